/** What one snapshot worker holds: the model and its analysis under the current filter. */
import type { Analysis } from '../analysis/analyze';
import { analyzeSnapshot } from '../analysis/analyze';
import type { FrameFilterOptions } from '../analysis/frameFilter';
import { summarizeDevice } from '../analysis/summary';
import type { Snapshot } from '../snapshot/model';
import { TimelineQueries } from '../timeline/queries';
import type { SnapshotInfo } from './protocol';

export class SnapshotSession {
  private current: Analysis;
  /** The memory timeline's layouts and queries (built per device on first use). */
  readonly timeline: TimelineQueries;
  constructor(
    readonly snapshot: Snapshot,
    readonly byteLength: number,
    filter: FrameFilterOptions,
  ) {
    this.current = analyzeSnapshot(snapshot, filter);
    this.timeline = new TimelineQueries(snapshot, () => this.current);
  }

  get analysis(): Analysis {
    return this.current;
  }

  setFilter(filter: FrameFilterOptions): void {
    this.current = analyzeSnapshot(this.snapshot, filter);
  }

  info(): SnapshotInfo {
    const a = this.current;
    return {
      layout: this.snapshot.layout,
      byteLength: this.byteLength,
      devices: a.devices.map((d) => summarizeDevice(a, d)),
      frames: this.snapshot.frames.length,
      stacks: this.snapshot.stacks.length,
      externalAnnotations: this.snapshot.externalAnnotations.length,
      hasTimes: this.snapshot.traces.some((t) => t.length > 0 && !Number.isNaN(t.timeUs[0])),
    };
  }

  device(device: number) {
    const found = this.current.devices.find((d) => d.device === device);
    if (!found) throw new Error(`no device ${device} in this snapshot`);
    return found;
  }
}
