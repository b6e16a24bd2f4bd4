/**
 * What a profiling notification and the status bar say while a program runs: its phase and live
 * memory, from the bootstrap's records. Free of `vscode`, so its transitions are unit-tested.
 */
import { formatBytes } from '../../engine/text/format';
import { LiveMemory, describeLive } from '../../runtime/profile/live';
import type { ProfileRecord } from '../../protocol/profile';

/** The phase and live memory of a running program, from the bootstrap's records (the progress text and status bar show it). */
export class RunProgress {
  readonly live = new LiveMemory();
  torch: string | undefined;
  private phase = 'starting';
  private isCancelling = false;

  /** Takes one record; true when what is shown changed. */
  apply(record: ProfileRecord): boolean {
    switch (record.type) {
      case 'hello':
        this.torch = record.torch;
        this.phase = 'running';
        return true;
      case 'predicting':
        this.torch = record.torch;
        this.phase = 'running';
        return true;
      case 'progress':
        this.live.update(record);
        return true;
      case 'dumping':
        this.phase = 'writing the snapshot';
        return true;
      case 'dumped':
      case 'dump-failed':
        this.phase = this.isCancelling ? 'cancelling' : 'running';
        return true;
      case 'cancelling':
        this.cancelling();
        return true;
      default:
        return false;
    }
  }

  cancelling(): void {
    this.isCancelling = true;
    this.phase = 'cancelling';
  }

  text(): string {
    return this.phase === 'running' ? describeLive(this.live.summary) : this.phase;
  }

  statusText(): string {
    const peak = this.live.summary.peakAllocated;
    return `$(pulse) ${peak > 0 ? `VRAM peak ${formatBytes(peak)}` : 'VRAM Lens'}${this.phase === 'running' ? '' : ` (${this.phase})`}`;
  }
}
