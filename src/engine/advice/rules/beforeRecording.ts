/**
 * Memory allocated before recording began: a large share of the peak that no stack explains (the
 * peak's `beforeRecording` bucket). Recording earlier, before the model is built, names its lines.
 */
import { formatBytes, formatPercent } from '../../text/format';
import type { AdviceRule } from '../rule';

/** Below these, memory from before recording is not worth a finding. */
export const MIN_SHARE = 0.2;
export const MIN_BYTES = 64 * 1024 * 1024;

export const beforeRecording: AdviceRule = {
  id: 'before-recording',
  label: 'before recording',
  run(ctx) {
    const d = ctx.device;
    const bytes = d.peakBreakdown.filter((b) => b.kind === 'beforeRecording').reduce((sum, b) => sum + b.bytes, 0);
    if (d.peakBytes <= 0 || bytes < MIN_BYTES || bytes < MIN_SHARE * d.peakBytes) return [];
    return [
      {
        rule: 'before-recording',
        severity: 'information',
        device: d.device,
        title: `${formatPercent(bytes, d.peakBytes)} of the peak was allocated before recording began`,
        message:
          `${formatBytes(bytes)} of the ${formatBytes(d.peakBytes)} peak (${formatPercent(bytes, d.peakBytes)}) was allocated before ` +
          'torch.cuda.memory._record_memory_history was called, so no stack names the lines that made it (typically the model\'s ' +
          'weights and the optimizer\'s state). Consider starting recording before the model is built, or use Profile VRAM, which records from the start.',
        evidence: {
          beforeRecordingBytes: bytes,
          peakBytes: d.peakBytes,
          beforeRecordingPercent: Math.round((100 * bytes) / d.peakBytes),
        },
      },
    ];
  },
};
