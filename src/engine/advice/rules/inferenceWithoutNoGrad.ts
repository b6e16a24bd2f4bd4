/**
 * A forward-only run (no backward anywhere in the trace or the blocks, no optimizer, no function
 * named like training) whose forward
 * activations pile up at the peak: if grad mode was on, autograd kept them for a backward that
 * never came. torch.inference_mode() (or no_grad) lets each be freed as soon as it is used.
 *
 * Evidence from the source too: blocks made where the code switches gradients off on the way to
 * the line (a `with torch.no_grad():`, a decorated function, `torch.set_grad_enabled(False)` at
 * the top of the script) are not kept activations. Without the source of the model call the rule
 * speaks only when the frees prove grad mode was on (autograd nodes releasing saved tensors).
 */
import { NO_LINE } from '../../analysis/lineIndex';
import { formatBytes, formatPercent } from '../../text/format';
import { Action } from '../../snapshot/model';
import type { AdviceContext } from '../context';
import { peakComposition, rankModuleCalls } from '../activations';
import type { Finding } from '../finding';
import type { AdviceRule } from '../rule';
import { counted, where } from '../rule';
import { FIGURE } from '../../analysis/lineFigures';

export const MIN_ACTIVATION_BYTES = 64 * 1024 * 1024;
export const MIN_ACTIVATION_SHARE = 0.2;
/** A line must hold outputs of this many separate calls at the peak. */
export const MIN_CALLS_KEPT = 3;

/** Frees that come from autograd graph nodes letting go of the tensors they saved: grad mode was on. */
function graphReleaseCount(ctx: AdviceContext): number {
  const isRelease = (f: { name: string }) => /::release_variables\(|SavedVariable::~?|_Sp_counted_deleter<torch::autograd::generated::/.test(f.name);
  let count = 0;
  const t = ctx.trace;
  for (let i = 0; i < t.length; i++) if (t.action[i] === Action.FreeCompleted && ctx.stackHas(t.stack[i], isRelease)) count++;
  return count;
}

/**
 * Why wrapping the call is left to the user: the code called is a model of unknown type, and no
 * reading of the source can show that the results are never used for gradients later.
 */
export const NO_INFERENCE_FIX =
  'No quick fix is offered: under inference mode the results carry no gradient and cannot be used by autograd or changed in place later, ' +
  'and whether the program (or the model it calls) still needs that cannot be read from the code.';

export const inferenceWithoutNoGrad: AdviceRule = {
  id: 'inference-without-no-grad',
  label: 'no_grad?',
  run(ctx) {
    const facts = ctx.runFacts;
    const d = ctx.device;
    if (!facts.hasForward || ctx.isTraining || d.peakEventIndex < 0) return [];
    // Allocations made with gradients off (decorators in the frames, switches in the source) are already fine.
    const peak = peakComposition(ctx, { excludeGradDisabled: true });
    const r = d.allocations;
    const activations = peak.activationRecords.filter((k) => r.allocEvent[k] >= 0);
    const bytes = activations.reduce((s, k) => s + r.sizeOf(k), 0);
    if (bytes < MIN_ACTIVATION_BYTES || bytes < MIN_ACTIVATION_SHARE * d.peakBytes) return [];

    // Kept, not just in flight: one line's output from several (3+) separate calls still live at
    // once. Without grad, a layer's input and output overlap, but not three layers' worth.
    const perLine = new Map<number, Set<number>>();
    for (const k of activations) {
      const line = ctx.lineIdOf(r.stackOf(k));
      if (line === NO_LINE) continue;
      const calls = perLine.get(line) ?? new Set<number>();
      calls.add(r.allocEvent[k]);
      perLine.set(line, calls);
    }
    const repeatedLines = [...perLine.values()].filter((calls) => calls.size >= MIN_CALLS_KEPT).length;
    const releases = graphReleaseCount(ctx);
    if (repeatedLines === 0 && releases === 0) return [];

    // Point at the call into the model from outside any forward (where inference_mode would go).
    const calls = rankModuleCalls(ctx, activations);
    const anchor = calls.find((c) => c.caller !== 'forward') ?? calls[0];
    const anchorSource = anchor ? ctx.source(anchor.file) : undefined;
    const sourceRead = anchorSource?.statementAt(anchor.line) !== undefined;
    if (!sourceRead && releases === 0) return [];
    const gradEvidence =
      releases > 0
        ? ` ${releases} frees came from autograd graph nodes releasing the tensors they saved, which happens only when grad mode is on.`
        : '';
    const finding: Finding = {
      rule: 'inference-without-no-grad',
      severity: releases > 0 ? 'warning' : 'information',
      device: d.device,
      ...(anchor ? { file: anchor.file, line: anchor.line } : {}),
      title: `Forward-only run keeps ${formatBytes(bytes)} of activations at the peak`,
      message:
        `This run has forward passes but no backward pass and no optimizer step, yet ${formatBytes(bytes)} (${formatPercent(bytes, d.peakBytes)} of the ${formatBytes(d.peakBytes)} peak) ` +
        `was live at the peak (event ${ctx.eventName(d.peakEventIndex)}) in blocks made under a module's forward` +
        (anchor ? ` (${formatBytes(anchor.bytes)} of them under the call at ${where(anchor, ctx.places)})` : '') +
        `, ${counted(repeatedLines, 'line')} holding the outputs of ${MIN_CALLS_KEPT} or more separate calls at once.${gradEvidence} ` +
        (sourceRead ? `The source shows no torch.no_grad(), torch.inference_mode() or torch.set_grad_enabled(False) on the way to ${where(anchor, ctx.places)}. ` : '') +
        `If this is inference, autograd keeps these for a backward that never comes: ` +
        `consider running it under torch.inference_mode() (or torch.no_grad())${anchor ? `, e.g. around ${where(anchor, ctx.places)}` : ''}. ` +
        NO_INFERENCE_FIX,
      evidence: {
        activationLiveAtPeakBytes: bytes,
        peakBytes: d.peakBytes,
        peakEvent: d.peakEventIndex,
        activationBlockCount: activations.length,
        linesWithSeveralCallsLiveCount: repeatedLines,
        graphReleaseFreeCount: releases,
        gradDisabledLiveAtPeakBytes: peak.gradDisabledBytes,
        ...(anchor ? { anchorActivationBytes: anchor.bytes } : {}),
      },
      ...(anchor ? { lineFigures: [{ file: anchor.file, line: anchor.line, figure: FIGURE.heldAtPeakWithCalls, relation: 'atMost' as const, value: anchor.bytes }] } : {}),
    };
    return [finding];
  },
};
