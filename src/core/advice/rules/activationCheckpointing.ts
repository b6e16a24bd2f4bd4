/**
 * Training whose peak is mostly activations: module calls ranked by the activation bytes made
 * inside them and live at the peak, as candidates for torch.utils.checkpoint (which frees them
 * after the forward and recomputes them during backward).
 */
import { formatBytes, formatPercent } from '../../format';
import { peakComposition, rankModuleCalls } from '../activations';
import type { Finding } from '../finding';
import type { AdviceRule } from '../rule';
import { where } from '../rule';

/** Activations must be at least this share of the peak to "dominate" it. */
export const DOMINANT_SHARE = 0.5;
export const MIN_ACTIVATION_BYTES = 256 * 1024 * 1024;
/** A candidate must hold at least this share of the activations. */
const MIN_CANDIDATE_SHARE = 0.1;
const MAX_CANDIDATES = 3;

export const activationCheckpointing: AdviceRule = {
  id: 'activation-checkpointing',
  run(ctx) {
    const d = ctx.device;
    if (!ctx.runFacts.hasBackward || d.peakEventIndex < 0) return [];
    const peak = peakComposition(ctx);
    const bytes = peak.activationBytes;
    if (bytes < MIN_ACTIVATION_BYTES || bytes < DOMINANT_SHARE * d.peakBytes) return [];
    // Submodule calls inside a forward are what torch.utils.checkpoint can wrap.
    const calls = rankModuleCalls(ctx, peak.activationRecords).filter((c) => c.caller === 'forward' && c.bytes >= MIN_CANDIDATE_SHARE * bytes);
    return calls.slice(0, MAX_CANDIDATES).map(
      (c, rank): Finding => ({
        rule: 'activation-checkpointing',
        severity: 'information',
        device: d.device,
        file: c.file,
        line: c.line,
        title: `Checkpointing candidate #${rank + 1}: ${formatBytes(c.bytes)} of activations under ${where(c)}`,
        message:
          `Activations made up ${formatBytes(bytes)} (${formatPercent(bytes, d.peakBytes)}) of the ${formatBytes(d.peakBytes)} peak (event ${d.peakEventIndex}); ` +
          `${formatBytes(c.bytes)} of them (${c.records} blocks) were made inside the module call at ${where(c)}. ` +
          `Wrapping that call in torch.utils.checkpoint.checkpoint(..., use_reentrant=False) may save up to about ${formatBytes(c.bytes)} at the peak ` +
          '(less the inputs it keeps), at the cost of recomputing its forward during backward (roughly one extra forward of that part, often 20-30% more step time when every block is checkpointed).',
        evidence: {
          candidateBytes: c.bytes,
          candidateBlockCount: c.records,
          activationLiveAtPeakBytes: bytes,
          peakBytes: d.peakBytes,
          peakEvent: d.peakEventIndex,
          rank: rank + 1,
        },
      }),
    );
  },
};
