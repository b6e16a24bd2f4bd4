/**
 * Optimizer state (blocks made inside torch.optim that outlive the step that made them, e.g. Adam's
 * exp_avg / exp_avg_sq) taking a large share of the peak: 8-bit optimizers store it in a quarter.
 */
import { NEVER_FREED } from '../../analysis/replay';
import { formatBytes, formatPercent } from '../../text/format';
import { NO_STACK } from '../../snapshot/model';
import { isSourceFrame } from '../../analysis/frameFilter';
import { bytesByLine } from '../context';
import type { AdviceContext } from '../context';
import { peakComposition } from '../activations';
import type { Finding } from '../finding';
import { isOptimizerFrame } from '../frames';
import type { AdviceRule } from '../rule';
import { counted, where } from '../rule';
import { FIGURE } from '../../analysis/lineFigures';

export const MIN_STATE_SHARE = 0.25;
export const MIN_STATE_BYTES = 256 * 1024 * 1024;

/** For each event, the first event at or after it whose stack is outside the optimizer (n if none). */
function nextOutsideOptimizer(ctx: AdviceContext): Int32Array {
  const t = ctx.trace;
  const next = new Int32Array(t.length + 1).fill(t.length);
  for (let i = t.length - 1; i >= 0; i--) {
    const s = t.stack[i];
    next[i] = s !== NO_STACK && !ctx.stackHas(s, isOptimizerFrame) ? i : next[i + 1];
  }
  return next;
}

export const optimizerState: AdviceRule = {
  id: 'optimizer-state',
  label: 'optimizer state',
  run(ctx) {
    const d = ctx.device;
    const r = d.allocations;
    const peak = peakComposition(ctx);
    if (peak.optimizerRecords.length === 0) return [];
    const next = nextOutsideOptimizer(ctx);
    // State survives the step: the program runs code outside the optimizer while it is still live.
    const state = peak.optimizerRecords.filter((k) => {
      const free = r.freeEvent[k];
      return free === NEVER_FREED || next[r.allocEvent[k] + 1] < free;
    });
    const bytes = state.reduce((s, k) => s + r.sizeOf(k), 0);
    if (bytes < MIN_STATE_BYTES || bytes < MIN_STATE_SHARE * d.peakBytes) return [];
    const lines = bytesByLine(ctx, state);
    // Whose code made the state: the innermost source frame is the user's own optimizer, or torch.optim's.
    const ownBytes = state.filter((k) => ctx.frames(r.stackOf(k)).find((f) => isSourceFrame(f)) !== undefined && ctx.isUserFrame(ctx.frames(r.stackOf(k)).find((f) => isSourceFrame(f))!)).reduce((s, k) => s + r.sizeOf(k), 0);
    const own = ownBytes * 2 > bytes;
    const madeBy = own ? 'made in the step of an optimizer in your own code' : 'made inside torch.optim';
    const at = lines[0];
    const finding: Finding = {
      rule: 'optimizer-state',
      severity: 'information',
      device: d.device,
      ...(at ? { file: at.file, line: at.line } : {}),
      title: `Optimizer state is ${formatPercent(bytes, d.peakBytes)} of the peak (${formatBytes(bytes)})`,
      message:
        `${formatBytes(bytes)} live at the peak (${formatPercent(bytes, d.peakBytes)} of ${formatBytes(d.peakBytes)}, event ${ctx.eventName(d.peakEventIndex)}) is optimizer state: ` +
        `${counted(state.length, 'block')} ${madeBy} that outlive the step that made them` +
        (lines.length > 0 ? ` (${lines.slice(0, 3).map((l) => `${where(l, ctx.places)} ${formatBytes(l.bytes)}`).join(', ')})` : '') +
        '. An 8-bit optimizer (e.g. bitsandbytes AdamW8bit) keeps Adam-style state in about a quarter of the bytes, ' +
        `which may save about ${formatBytes(bytes * 0.75)}; sharding it across ranks (ZeRO / FSDP) is the other common remedy.`,
      evidence: {
        optimizerStateBytes: bytes,
        optimizerStateBlockCount: state.length,
        peakBytes: d.peakBytes,
        peakEvent: d.peakEventIndex,
        estimatedSavingBytes: Math.round(bytes * 0.75),
      },
      // The state each line made is part of what that line holds at the peak.
      lineFigures: lines.slice(0, 5).map((l) => ({ file: l.file, line: l.line, figure: FIGURE.heldAtPeak, relation: 'atMost' as const, value: l.bytes })),
      related: lines.slice(0, 5).map((l) => ({ file: l.file, line: l.line, message: `${formatBytes(l.bytes)} of optimizer state (${counted(l.count, 'block')})` })),
    };
    return [finding];
  },
};
