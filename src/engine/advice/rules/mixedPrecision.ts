/**
 * Activations that dominate the peak with no sign of autocast: if they are float32, running the
 * forward under torch.autocast with bfloat16/float16 stores most of them in half the bytes.
 */
import { formatBytes, formatPercent } from '../../text/format';
import { peakComposition, rankModuleCalls } from '../activations';
import type { Finding } from '../finding';
import type { AdviceRule } from '../rule';
import { where } from '../rule';
import { FIGURE } from '../../analysis/lineFigures';

export const MIN_ACTIVATION_SHARE = 0.3;
export const MIN_ACTIVATION_BYTES = 256 * 1024 * 1024;

export const mixedPrecision: AdviceRule = {
  id: 'mixed-precision',
  label: 'mixed precision?',
  run(ctx) {
    const d = ctx.device;
    if (ctx.runFacts.hasAutocast || d.peakEventIndex < 0) return [];
    // In a run without training, blocks made with gradients off are a working set, not kept activations.
    const peak = peakComposition(ctx, { excludeGradDisabled: !ctx.isTraining });
    const bytes = peak.activationBytes;
    if (bytes < MIN_ACTIVATION_BYTES || bytes < MIN_ACTIVATION_SHARE * d.peakBytes) return [];
    const calls = rankModuleCalls(ctx, peak.activationRecords);
    const entry = calls.find((c) => c.caller !== 'forward') ?? calls[0];
    const finding: Finding = {
      rule: 'mixed-precision',
      severity: 'information',
      device: d.device,
      ...(entry ? { file: entry.file, line: entry.line } : {}),
      title: `Activations are ${formatPercent(bytes, d.peakBytes)} of the peak; autocast may halve them`,
      message:
        `${formatBytes(bytes)} of activations (${formatPercent(bytes, d.peakBytes)} of the ${formatBytes(d.peakBytes)} peak, event ${ctx.eventName(d.peakEventIndex)}) were live at the peak` +
        (entry ? ` (${formatBytes(entry.bytes)} of them made under the call at ${where(entry, ctx.places)})` : '') +
        ', ' +
        'and no frame shows torch.autocast at work (a snapshot does not record dtypes, so this is a guess). ' +
        `If they are float32, running the forward under torch.autocast("cuda", dtype=torch.bfloat16) stores most of them in half the bytes, about ${formatBytes(bytes / 2)} less.`,
      evidence: {
        activationLiveAtPeakBytes: bytes,
        peakBytes: d.peakBytes,
        peakEvent: d.peakEventIndex,
        estimatedSavingBytes: Math.round(bytes / 2),
        ...(entry ? { anchorActivationBytes: entry.bytes } : {}),
      },
      ...(entry ? { lineFigures: [{ file: entry.file, line: entry.line, figure: FIGURE.heldAtPeakWithCalls, relation: 'atMost' as const, value: entry.bytes }] } : {}),
    };
    return [finding];
  },
};
