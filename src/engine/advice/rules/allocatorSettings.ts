/**
 * Allocator settings the replay shows would help. The trace is replayed through PyTorch's caching
 * allocator (src/engine/allocator) with expandable segments toggled and with a max_split_size_mb
 * chosen from the trace, on the memory the recording had (or with no limit when it never ran short).
 * A setting is suggested only when its replay avoids the OOM, or lowers peak reserved memory by at
 * least 10% and 256 MiB; and only when the replay with the recorded settings made every decision
 * PyTorch made (the self-check), so the prediction rests on rules that reproduce this very run.
 */
import { settingsOf } from '../../allocator/selfCheck';
import type { WhatIfReplayed } from '../../allocator/whatIf';
import { tableSettings, whatIf } from '../../allocator/whatIf';
import { isPartialWindow } from '../../allocator/window';
import { formatBytes, formatPercent } from '../../text/format';
import type { Finding } from '../finding';
import type { AdviceRule } from '../rule';
import { where } from '../rule';

export const MIN_SAVING_BYTES = 256 * 1024 * 1024;
export const MIN_SAVING_SHARE = 0.1;

interface Candidate {
  readonly label: string;
  readonly result: WhatIfReplayed;
}

export const allocatorSettings: AdviceRule = {
  id: 'allocator-settings',
  label: 'allocator settings',
  run(ctx) {
    const d = ctx.device;
    if (d.allocations.count === 0 || !ctx.trace.length) return [];
    // A window of the recording: the replay needs all of it (src/engine/allocator/window.ts).
    if (isPartialWindow(ctx.trace.window, ctx.trace.length)) return [];
    // No setting reserves less than what is allocated at the peak: without an OOM, a gap under the
    // threshold cannot yield a saving over it (and the replay is not worth running).
    if (d.ooms.length === 0 && d.peakReservedBytes - d.peakBytes < MIN_SAVING_BYTES) return [];
    const basis = ctx.allocator();
    if (basis.check.check.allocations === 0 || basis.check.check.firstDeparture !== null) return [];
    const capacity = basis.check.capacityBytes ?? undefined;
    const base = whatIf(basis, { settings: settingsOf(ctx.snapshot), capacity });
    // Only predictions the replay made are compared (one from a start that does not fit says nothing about a setting).
    if (!base.replayed) return [];
    const helps = (r: WhatIfReplayed) =>
      base.oom !== null ? r.oom === null : r.oom === null && base.peakReservedBytes - r.peakReservedBytes >= Math.max(MIN_SAVING_BYTES, MIN_SAVING_SHARE * base.peakReservedBytes);
    const candidates: Candidate[] = tableSettings(basis)
      .filter((t) => t.kind !== 'recorded')
      .map((t) => ({ label: t.label, result: whatIf(basis, { settings: t.settings, capacity }) }))
      .filter((c): c is Candidate => c.result.replayed && helps(c.result))
      .sort((a, b) => a.result.peakReservedBytes - b.result.peakReservedBytes);
    const best = candidates[0];
    if (!best) return [];
    const r = best.result;
    const capacityText = capacity === undefined ? '' : ` on the ${formatBytes(capacity)} the recording had`;
    const evidence = {
      peakReservedBytes: base.peakReservedBytes,
      predictedPeakReservedBytes: r.peakReservedBytes,
      ...(base.oom ? {} : { savedBytes: base.peakReservedBytes - r.peakReservedBytes }),
      cudaMallocCount: base.cudaMallocs,
      predictedCudaMallocCount: r.cudaMallocs,
      ...(capacity === undefined ? {} : { capacityBytes: capacity }),
      ...(base.oom ? { oomEvent: base.oom.event } : {}),
    };
    const setting = `PYTORCH_CUDA_ALLOC_CONF=${best.label}`;
    const finding: Finding = base.oom
      ? {
          rule: 'allocator-settings',
          severity: 'warning',
          device: ctx.device.device,
          ...(base.oom.file !== null && base.oom.line !== null ? { file: base.oom.file, line: base.oom.line } : {}),
          title: `${setting} avoids the OOM in the replay`,
          message:
            `Replayed through PyTorch's caching allocator${capacityText}, this trace runs out of memory at event ${ctx.eventName(base.oom.event)}` +
            `${base.oom.file !== null && base.oom.line !== null ? ` (${where({ file: base.oom.file, line: base.oom.line })})` : ''} with the recorded settings (${base.oom.cause}), ` +
            `and does not with ${best.label}: it then reserves at most ${formatBytes(r.peakReservedBytes)} with ${r.cudaMallocs} cudaMallocs. ` +
            `Set ${setting} before the program starts; \`vram-lens whatif\` shows the prediction for other GPU sizes.`,
          evidence,
        }
      : {
          rule: 'allocator-settings',
          severity: 'information',
          device: ctx.device.device,
          title: `${setting} lowers peak reserved memory by ${formatBytes(base.peakReservedBytes - r.peakReservedBytes)} in the replay`,
          message:
            `Replayed through PyTorch's caching allocator${capacityText}, this trace reserves at most ${formatBytes(base.peakReservedBytes)} with the recorded settings, ` +
            `and ${formatBytes(r.peakReservedBytes)} with ${best.label} (${formatPercent(base.peakReservedBytes - r.peakReservedBytes, base.peakReservedBytes)} less; ` +
            `${r.cudaMallocs} cudaMallocs instead of ${base.cudaMallocs}). Set ${setting} before the program starts to keep that memory free for a larger batch or other processes.`,
          evidence,
        };
    return [finding];
  },
};
