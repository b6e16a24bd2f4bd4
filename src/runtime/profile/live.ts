/**
 * Live memory of a running job, from the bootstrap's progress records: the latest sample of every
 * GPU of every process (its peaks the highest seen over the run), summarised for the status bar and the progress notification.
 */
import { formatBytes } from '../../engine/text/format';
import type { DeviceSample, ProfileRecord } from '../../protocol/profile';

export interface LiveSummary {
  /** Seconds since the program started (the latest record's). */
  readonly elapsed: number;
  /** Over all GPUs of all processes, the highest of each figure (each GPU has its own capacity). */
  readonly allocated: number;
  readonly peakAllocated: number;
  readonly reserved: number;
  readonly peakReserved: number;
  /** How many (process, GPU) pairs have memory. */
  readonly gpus: number;
}

export class LiveMemory {
  private readonly latest = new Map<string, DeviceSample>();
  private elapsed = 0;

  /** Takes a record; returns true when the summary changed. */
  update(record: ProfileRecord): boolean {
    if (record.type !== 'progress') return false;
    this.elapsed = Math.max(this.elapsed, record.t);
    const owner = record.rank ?? record.pid ?? 0;
    for (const sample of record.devices) {
      const key = `${owner}:${sample.index}`;
      const before = this.latest.get(key);
      // The peaks are the highest seen over the run: `reset_peak_memory_stats()` lowers PyTorch's own.
      this.latest.set(key, {
        ...sample,
        peakAllocated: Math.max(sample.peakAllocated, sample.allocated, before?.peakAllocated ?? 0),
        peakReserved: Math.max(sample.peakReserved, sample.reserved, before?.peakReserved ?? 0),
      });
    }
    return true;
  }

  get summary(): LiveSummary {
    let allocated = 0;
    let peakAllocated = 0;
    let reserved = 0;
    let peakReserved = 0;
    for (const s of this.latest.values()) {
      allocated = Math.max(allocated, s.allocated);
      peakAllocated = Math.max(peakAllocated, s.peakAllocated);
      reserved = Math.max(reserved, s.reserved);
      peakReserved = Math.max(peakReserved, s.peakReserved);
    }
    return { elapsed: this.elapsed, allocated, peakAllocated, reserved, peakReserved, gpus: this.latest.size };
  }
}

/** E.g. `1.2 GiB allocated, peak 3.4 GiB (reserved 4.0 GiB) · 12s`. */
export function describeLive(s: LiveSummary): string {
  const time = `${Math.floor(s.elapsed)}s`;
  if (s.gpus === 0) return `waiting for GPU memory · ${time}`;
  const scope = s.gpus > 1 ? ` (max of ${s.gpus} GPUs)` : '';
  return `${formatBytes(s.allocated)} allocated, peak ${formatBytes(s.peakAllocated)} (reserved ${formatBytes(s.peakReserved)})${scope} · ${time}`;
}
