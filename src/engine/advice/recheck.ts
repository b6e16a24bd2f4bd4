/**
 * Whether what a finding says about the code still reads true in the source as it is now, after the
 * user edited it (or applied the finding's quick fix). The memory figures describe the recorded run
 * and cannot be re-measured without recording again; what can be read again is the pattern in the
 * source that the finding rests on:
 * - in-place arithmetic: the statement still has an in-place form (after `x.div_(s)` it has not);
 * - inference without no_grad: no grad-mode switch is in force at the model call yet (after the fix
 *   wraps it in `with torch.inference_mode():`, one is);
 * - growing memory: the accumulation the finding pointed at still keeps a tensor (after `.item()` or
 *   `.detach()`, written by the user, it does not).
 * `finding` is placed where its lines are now (line and related lines moved with the edits).
 */
import { inPlaceFormAt } from '../python/inPlaceForm';
import type { Finding } from './finding';
import type { SourceProvider } from './quickFix';
import { accumulationAt } from './quickFix';

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
    case 'growing-memory': {
      // Only a finding that pointed at an accumulation can see it go.
      const kept = finding.related?.find((r) => r.role === 'accumulation');
      if (!kept) return true;
      const s = sourceOf(kept.file);
      return !s || kept.line > s.lineCount || accumulationAt(s, kept.file, kept.line) !== undefined;
    }
    default:
      return true;
  }
}
