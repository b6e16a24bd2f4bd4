/**
 * Whether what a finding says about the code still reads true in the source as it is now, after the
 * user edited it (or applied the finding's quick fix). The memory figures describe the recorded run
 * and cannot be re-measured without recording again; what can be read again is the pattern in the
 * source that the finding rests on:
 * - in-place arithmetic: the statement still has an in-place form (after `x.div_(s)` it has not);
 * - inference without no_grad: no grad-mode switch is in force at the model call yet (after the fix
 *   wraps it in `with torch.inference_mode():`, one is);
 * - growing memory: an accumulation that keeps the graph is still there to fix (after `.item()` it
 *   is not).
 * `finding` is placed where its lines are now (line and related lines moved with the edits).
 */
import { inPlaceFormAt } from '../python/inPlaceForm';
import type { Finding } from './finding';
import type { SourceProvider } from './quickFix';
import { quickFixesFor } from './quickFix';

export function stillHolds(finding: Finding, sourceOf: SourceProvider): boolean {
  if (finding.file === undefined || finding.line === undefined) return true;
  const src = sourceOf(finding.file);
  if (!src) return true;
  switch (finding.rule) {
    case 'in-place-arithmetic':
      return inPlaceFormAt(src, finding.line) !== undefined;
    case 'inference-without-no-grad': {
      // The fix puts `with torch.inference_mode():` on the call's line and the call below it.
      const st = src.statementAt(finding.line);
      const lines = st?.name === 'WithStatement' ? [finding.line, finding.line + 1] : [finding.line];
      return !lines.some((l) => src.gradModeAt(l)?.enabled === false);
    }
    case 'growing-memory':
      // Only a finding that had an accumulation to fix can see it go.
      return (finding.quickFixes?.length ?? 0) === 0 || quickFixesFor(finding, sourceOf).length > 0;
    default:
      return true;
  }
}
