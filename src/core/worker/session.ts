/** What one snapshot worker holds: the model and its analysis under the current filter. */
import type { Analysis } from '../analysis/analyze';
import { analyzeSnapshot } from '../analysis/analyze';
import { advise } from '../advice/advise';
import type { Finding } from '../advice/finding';
import type { FrameFilterOptions } from '../analysis/frameFilter';
import { summarizeDevice } from '../analysis/summary';
import type { Snapshot } from '../snapshot/model';
import { TimelineQueries } from '../timeline/queries';
import type { SnapshotInfo } from './protocol';

export class SnapshotSession {
  private current: Analysis;
  /** The advisor's findings per device ('all' for every device), under the current filter. */
  private readonly findings = new Map<number | 'all', Finding[]>();
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
    this.findings.clear();
  }

  /** The advisor's findings for one device or all, computed once (the Problems panel and the timeline both ask). */
  advice(device?: number): Finding[] {
    const key = device ?? 'all';
    let found = this.findings.get(key);
    if (found === undefined) {
      if (device !== undefined) this.device(device);
      found = advise(this.current, { device });
      this.findings.set(key, found);
    }
    return found;
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
