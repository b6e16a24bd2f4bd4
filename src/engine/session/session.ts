/** What one snapshot worker holds: the model and its analysis under the current filter. */
import type { Analysis } from '../analysis/analyze';
import { analyzeSnapshot } from '../analysis/analyze';
import { advise } from '../advice/advise';
import type { Finding } from '../advice/finding';
import type { FrameFilterOptions } from '../analysis/frameFilter';
import type { DeviceSummary } from '../analysis/summary';
import { summarizeDevice } from '../analysis/summary';
import type { Snapshot, SnapshotLayout, SnapshotProducer } from '../snapshot/model';
import type { AllocatorSpan, AllocatorSpanRequest } from '../timeline/allocatorSpan';
import { SegmentStack, summarizeAllocatorSpan } from '../timeline/allocatorSpan';
import type { CellPlaces } from '../paths/places';
import { TimelineQueries } from '../timeline/queries';
import { AllocatorStudy } from './allocatorStudy';

/** A source file's text for the advisor, at a revision the caller counts; `text: null` forgets the file. */
export interface SourceUpdate {
  /** The file as the snapshot names it. */
  readonly file: string;
  readonly revision: number;
  readonly text: string | null;
}

export interface SnapshotInfo {
  readonly layout: SnapshotLayout;
  readonly byteLength: number;
  readonly devices: readonly DeviceSummary[];
  readonly frames: number;
  readonly stacks: number;
  readonly externalAnnotations: number;
  /** Whether trace entries carry `time_us` (PyTorch 2.1+), so a wall-time axis exists. */
  readonly hasTimes: boolean;
  /** Set when VRAM Lens wrote the snapshot from a run of its own (what it ran on). */
  readonly producer?: SnapshotProducer;
}

export class SnapshotSession {
  private current: Analysis;
  /** The advisor's findings per device ('all' for every device), under the current filter. */
  private readonly findings = new Map<number | 'all', Finding[]>();
  /** The program's source files, as sent by the caller (file as recorded -> text and revision). */
  private readonly sources = new Map<string, { readonly revision: number; readonly text: string }>();
  /** The notebook cells of recorded cell files, as sent by the caller (messages name their lines). */
  private places: CellPlaces = {};
  /** The memory timeline's layouts and queries (built per device on first use). */
  readonly timeline: TimelineQueries;
  /** The allocator replay of each device (built on first use; independent of the frame filter). */
  private readonly allocators = new Map<number, AllocatorStudy>();
  /** Each device's segments in the timeline's stacking order (built on first use). */
  private readonly segmentStacks = new Map<number, SegmentStack>();
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
      const sources = this.sources;
      const lineIndex = this.current.lineIndex;
      found = advise(this.current, {
        device,
        fileText: (file) => sources.get(file)?.text,
        places: this.places,
        allocator: (d) => this.allocator(d).basis(lineIndex),
      });
      this.findings.set(key, found);
    }
    return found;
  }

  /** The notebook cells of recorded cell files (the findings are worked out again when they differ). */
  setPlaces(places: CellPlaces): void {
    if (JSON.stringify(places) === JSON.stringify(this.places)) return;
    this.places = places;
    this.findings.clear();
  }

  /**
   * Sets, updates or forgets source texts for the advisor, file by file. A file at the revision already
   * held is left alone (texts are told apart by revision, never compared); the findings are worked out
   * again only when some file's revision changed. Returns the revisions now held.
   */
  setSources(updates: readonly SourceUpdate[]): Record<string, number> {
    let changed = false;
    for (const { file, revision, text } of updates) {
      const held = this.sources.get(file);
      if (text === null) {
        if (this.sources.delete(file)) changed = true;
      } else if (held?.revision !== revision) {
        this.sources.set(file, { revision, text });
        changed = true;
      }
    }
    if (changed) this.findings.clear();
    return Object.fromEntries([...this.sources].map(([file, s]) => [file, s.revision]));
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
      ...(this.snapshot.producer ? { producer: this.snapshot.producer } : {}),
    };
  }

  /** The caching-allocator replay of a device (its self-check, series, segment maps and predictions). */
  allocator(device: number): AllocatorStudy {
    this.device(device);
    let study = this.allocators.get(device);
    if (!study) {
      study = new AllocatorStudy(this.snapshot, device, { series: true });
      this.allocators.set(device, study);
    }
    return study;
  }

  /** The allocator's view of a timeline span (reserved memory by segment, the allocator's series); undefined without a trace. */
  allocatorSpan(device: number, request: AllocatorSpanRequest): AllocatorSpan | undefined {
    const data = this.allocator(device).series();
    const trace = this.snapshot.traces[device];
    if (!data || !trace) return undefined;
    const axis = this.timeline.timeline(device).axis(request.axis);
    let stack = this.segmentStacks.get(device);
    if (!stack) {
      stack = new SegmentStack(data.spans, axis.states);
      this.segmentStacks.set(device, stack);
    }
    return summarizeAllocatorSpan(data, stack, axis, request, trace, this.current.lineIndex);
  }

  device(device: number) {
    const found = this.current.devices.find((d) => d.device === device);
    if (!found) throw new Error(`no device ${device} in this snapshot`);
    return found;
  }
}
