/**
 * Training whose peak is mostly activations: module calls ranked by the activation bytes made
 * inside them and live at the peak, as candidates for torch.utils.checkpoint (which frees them
 * after the forward and recomputes them during backward).
 */
import { formatBytes, formatPercent } from '../../text/format';
import { moduleCallKey, peakComposition, rankModuleCalls } from '../activations';
import type { Finding } from '../finding';
import type { AdviceRule } from '../rule';
import { counted, where } from '../rule';
import { FIGURE } from '../../analysis/lineFigures';

/** Activations must be at least this share of the peak to "dominate" it. */
export const DOMINANT_SHARE = 0.5;
export const MIN_ACTIVATION_BYTES = 256 * 1024 * 1024;
/** A candidate must hold at least this share of the activations. */
const MIN_CANDIDATE_SHARE = 0.1;
const MAX_CANDIDATES = 3;

export const activationCheckpointing: AdviceRule = {
  id: 'activation-checkpointing',
  label: 'checkpointing?',
  run(ctx) {
    const d = ctx.device;
    if (!ctx.runFacts.hasBackward || d.peakEventIndex < 0) return [];
    const peak = peakComposition(ctx);
    const bytes = peak.activationBytes;
    if (bytes < MIN_ACTIVATION_BYTES || bytes < DOMINANT_SHARE * d.peakBytes) return [];
    // Submodule calls inside a forward are what torch.utils.checkpoint can wrap.
    const calls = rankModuleCalls(ctx, peak.activationRecords).filter((c) => c.caller === 'forward' && c.bytes >= MIN_CANDIDATE_SHARE * bytes);
    if (calls.length === 0) return [];
    const top = calls.slice(0, MAX_CANDIDATES);
    // Candidates inside one another are one choice at different depths, not savings that add up.
    const first = top[0];
    const outerOf = (c: (typeof top)[number]) => top.slice(0, top.indexOf(c)).reverse().find((o) => c.inside.has(moduleCallKey(o)));
    const chain = [first, ...top.slice(1).filter((c) => outerOf(c) !== undefined)];
    const separate = top.filter((c) => !chain.includes(c));
    const describe = (c: (typeof top)[number]) => `${formatBytes(c.bytes)} (${counted(c.records, 'block')}) under the module call at ${where(c, ctx.places)}`;
    const nested = chain
      .slice(1)
      .map((c) => `; inside ${where(outerOf(c)!, ctx.places)}, ${describe(c)}`)
      .join('');
    const finding: Finding = {
      rule: 'activation-checkpointing',
      severity: 'information',
      device: d.device,
      file: first.file,
      line: first.line,
      title: `Checkpointing candidate: ${formatBytes(first.bytes)} of activations under ${where(first, ctx.places)}`,
      message:
        `Activations made up ${formatBytes(bytes)} (${formatPercent(bytes, d.peakBytes)}) of the ${formatBytes(d.peakBytes)} peak (event ${ctx.eventName(d.peakEventIndex)}): ` +
        `${describe(first)}${nested}` +
        (chain.length > 1 ? ' (nested calls: the figures contain one another and do not add up)' : '') +
        (separate.length > 0 ? `; separately, ${separate.map(describe).join(', ')}` : '') +
        `. Wrapping a call in torch.utils.checkpoint.checkpoint(..., use_reentrant=False) may save up to about its figure at the peak ` +
        '(less the inputs it keeps), at the cost of recomputing its forward during backward (roughly one extra forward of that part, often 20-30% more step time when every block is checkpointed).',
      evidence: {
        candidateBytes: first.bytes,
        candidateBlockCount: first.records,
        nestedCandidateBytes: chain.slice(1).map((c) => c.bytes),
        separateCandidateBytes: separate.map((c) => c.bytes),
        activationLiveAtPeakBytes: bytes,
        peakBytes: d.peakBytes,
        peakEvent: d.peakEventIndex,
      },
      // Each candidate's activations are part of what its call line holds at the peak (with callees).
      lineFigures: top.map((c) => ({ file: c.file, line: c.line, figure: FIGURE.heldAtPeakWithCalls, relation: 'atMost' as const, value: c.bytes })),
      related: top.map((c) => ({
        file: c.file,
        line: c.line,
        message: `${formatBytes(c.bytes)} of activations made inside this module call${outerOf(c) ? ` (inside ${where(outerOf(c)!, ctx.places)})` : ''}`,
      })),
    };
    return [finding];
  },
};
