/**
 * The timeline's queries over one loaded snapshot: the per-device layouts (built once, on first
 * use) and the answers the timeline view asks for: overview, span summaries, block details,
 * the blocks of a line, and the lines whose stacks mention a text.
 */
import { attributingStack } from '../analysis/liveAtPeak';
import { PEAK_BUCKET_KINDS } from '../analysis/peakBreakdown';
import { skipAllocatorFrames } from '../analysis/shownFrames';
import type { Analysis, DeviceAnalysis } from '../analysis/analyze';
import { isSourceFrame } from '../analysis/frameFilter';
import type { LineIndex } from '../analysis/lineIndex';
import { NO_LINE } from '../analysis/lineIndex';
import type { DeviceReplay } from '../analysis/replay';
import { reservedUnknownWords } from '../analysis/summary';
import { windowReplayProblem } from '../allocator/window';
import { traceOf } from '../analysis/replay';
import type { DeviceTrace, Snapshot } from '../snapshot/model';
import { Action, devicesOf, NO_STACK } from '../snapshot/model';
import type { TimelineAxis } from './axis';
import { eventAxis, hasTimes, timeAxis } from './axis';
import { lineColor } from './colors';
import { BlockLayout } from './layout';
import { measuredLine } from './measuredLine';
import type {
  AnnotationSpan,
  AxisKind,
  BlockDetail,
  LineBlock,
  LineBlocks,
  OomMarker,
  StackFrameView,
  TimelineLine,
  TimelineOverview,
  TimelineSpan,
  SpanRequest,
} from './types';
import type { LineLookup } from './span';
import { summarizeSpan } from './span';

/** Most annotation spans an overview carries (the longest are kept). */
const MAX_ANNOTATIONS = 5_000;

/**
 * From this many states on, a new layout summarises a few spans before it is used (see
 * `TimelineQueries.timeline`). Below it, a step costs little even before V8 has compiled the summariser.
 */
const WARM_UP_STATES = 10_000_000;
/** Pixel columns of the warm-up spans: a side bar's width, as the view asks. */
const WARM_UP_COLUMNS = 1200;

export function timelineLine(index: LineIndex, id: number): TimelineLine {
  const source = index.lines[id];
  return { id, file: source.file, line: Number(source.line), color: lineColor(source.file, source.line) };
}

function selfLineOf(index: LineIndex, stack: number): TimelineLine | undefined {
  if (stack === NO_STACK) return undefined;
  const id = index.selfLine[stack];
  return id === NO_LINE ? undefined : timelineLine(index, id);
}

/** One device's layout and axes; independent of the user-frame filter. */
export class DeviceTimeline {
  readonly layout: BlockLayout;
  readonly hasTimes: boolean;
  private readonly events: TimelineAxis;
  private times: TimelineAxis | undefined;

  constructor(
    readonly trace: DeviceTrace,
    replay: DeviceReplay,
  ) {
    const releaseState: number[] = [];
    const releaseBytes: number[] = [];
    for (let i = 0; i < trace.length; i++) {
      const a = trace.action[i];
      if (a === Action.SegmentFree || a === Action.SegmentUnmap) {
        releaseState.push(i + 1);
        releaseBytes.push(trace.size[i]);
      }
    }
    this.layout = new BlockLayout(replay, { state: Int32Array.from(releaseState), bytes: Float64Array.from(releaseBytes) });
    this.hasTimes = hasTimes(trace.timeUs);
    this.events = eventAxis(this.layout.states);
  }

  /** The axis of that kind; the event axis when the trace has no times. */
  axis(kind: AxisKind): TimelineAxis {
    if (kind !== 'time' || !this.hasTimes) return this.events;
    this.times ??= timeAxis(this.trace.timeUs);
    return this.times;
  }

  /** Where wall time `timeUs` falls on the axis (linear inside a state's span on the event axis). */
  timeToX(kind: AxisKind, timeUs: number): number {
    const times = this.axis('time');
    const axis = this.axis(kind);
    if (axis === times) return timeUs;
    if (times.kind !== 'time') return 0;
    const states = times.states;
    let lo = 0;
    let hi = states - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (times.start(mid) <= timeUs) lo = mid;
      else hi = mid - 1;
    }
    const a = times.start(lo);
    const b = times.start(lo + 1);
    const within = b > a ? Math.min(1, Math.max(0, (timeUs - a) / (b - a))) : 0;
    return lo + within;
  }
}

/** The queries of one snapshot; layouts are cached per device, line look-ups per analysis. */
export class TimelineQueries {
  private readonly devices = new Map<number, DeviceTimeline>();
  private readonly lookups = new WeakMap<DeviceAnalysis, LineLookup>();

  constructor(
    private readonly snapshot: Snapshot,
    private readonly analysis: () => Analysis,
    /** Layouts of this many states or more are warmed up when built (tests lower it). */
    private readonly warmUpStates = WARM_UP_STATES,
  ) {}

  private deviceAnalysis(device: number): DeviceAnalysis {
    const found = this.analysis().devices.find((d) => d.device === device);
    if (!found) throw new Error(`no device ${device} in this snapshot`);
    return found;
  }

  timeline(device: number): DeviceTimeline {
    let t = this.devices.get(device);
    if (!t) {
      t = new DeviceTimeline(traceOf(this.snapshot, device), this.deviceAnalysis(device));
      this.devices.set(device, t);
      if (t.layout.states >= this.warmUpStates) this.warmUp(device, t);
    }
    return t;
  }

  /**
   * Summarises a span of each kind a user meets first, and drops them: the whole recording on each
   * axis (its columns read from the layout's checkpoints), a third of it (the cursor moved from column
   * to column), and a 25th (its largest blocks picked among the candidates rather than by size). V8
   * compiles each of these paths only after it has run a while: on a file of tens of millions of
   * events the first span of each kind took up to twice as long as the next (over 100 ms on the
   * 4.58 GB benchmark file). Here that time is spent while the layout is built (a few tenths of a
   * second on top of seconds). The summaries change nothing: every query moves the layout's cursor
   * where it needs it and leaves its scratch marks cleared.
   */
  private warmUp(device: number, t: DeviceTimeline): void {
    const spans: [AxisKind, number][] = [
      ['event', 1],
      ['event', 1 / 3],
      ['event', 1 / 25],
    ];
    if (t.hasTimes) spans.push(['time', 1]);
    for (const [kind, fraction] of spans) {
      const axis = t.axis(kind);
      const { start, end } = axis.info();
      const margin = ((end - start) * (1 - fraction)) / 2;
      summarizeSpan(t.layout, axis, { axis: kind, x0: start + margin, x1: end - margin, columns: WARM_UP_COLUMNS }, this.lookup(device));
    }
  }

  private lookup(device: number): LineLookup {
    const analysis = this.analysis();
    const d = this.deviceAnalysis(device);
    let lookup = this.lookups.get(d);
    if (!lookup) {
      const index = analysis.lineIndex;
      const recordLine = new Int32Array(d.allocations.count);
      const recordBucket = new Int8Array(d.allocations.count).fill(-1);
      for (let r = 0; r < recordLine.length; r++) {
        // The same attribution as the analysis' live-at-peak figures (one truth per line).
        const stack = attributingStack(d.allocations, r);
        recordLine[r] = stack === NO_STACK ? NO_LINE : index.selfLine[stack];
        // And the same buckets as its peakBreakdown for the blocks no line holds.
        if (recordLine[r] === NO_LINE) {
          const bucket = d.buckets.bucketOf(r);
          if (bucket !== undefined) recordBucket[r] = PEAK_BUCKET_KINDS.indexOf(bucket.kind);
        }
      }
      lookup = { recordLine, recordBucket, line: (id) => timelineLine(index, id) };
      this.lookups.set(d, lookup);
    }
    return lookup;
  }

  span(device: number, request: SpanRequest): TimelineSpan {
    const t = this.timeline(device);
    return summarizeSpan(t.layout, t.axis(request.axis), request, this.lookup(device));
  }

  overview(device: number, axisKind: AxisKind, columns: number): TimelineOverview {
    const t = this.timeline(device);
    const axis = t.axis(axisKind);
    const d = this.deviceAnalysis(device);
    const index = this.analysis().lineIndex;
    const summary = summarizeSpan(t.layout, axis, { axis: axis.kind, columns, budget: 0 }, this.lookup(device));
    const peakState = d.peakEventIndex + 1;
    const ooms: OomMarker[] = d.ooms.map((o) => ({
      state: o.eventIndex + 1,
      x: axis.start(o.eventIndex + 1),
      requestedBytes: o.requestedBytes,
      deviceFreeBytes: o.deviceFreeBytes,
      line: selfLineOf(index, o.stack),
    }));
    const { spans, omitted } = this.annotations(t, device, axis.kind);
    const sampled = this.snapshot.measuredDeviceMemory;
    const measured =
      sampled && t.hasTimes && devicesOf(this.snapshot).length === 1 ? measuredLine(sampled, (us) => t.timeToX(axis.kind, us)) : undefined;
    return {
      device,
      axis: axis.info(),
      hasTimes: t.hasTimes,
      peak: {
        state: peakState,
        x: axis.start(peakState),
        bytes: d.peakBytes,
        line: d.peakEventIndex >= 0 ? selfLineOf(index, t.trace.stack[d.peakEventIndex]) : undefined,
      },
      peakReservedBytes: d.peakReservedBytes,
      ...reservedUnknownOf(d, t.trace.window?.firstEvent ?? 0),
      ...allocatorUnavailableOf(this.snapshot, device, d),
      ooms,
      annotations: spans,
      annotationsOmitted: omitted,
      summary,
      peakBreakdown: d.peakBreakdown,
      allocations: t.layout.bySize.length,
      ...(measured ? { measured } : {}),
      ...(t.trace.window === undefined ? {} : { window: { firstEvent: t.trace.window.firstEvent, events: t.trace.length, recordedEvents: t.trace.window.recordedEvents } }),
    };
  }

  /** START/END pairs of this device's external annotations, matched by name (nesting allowed). */
  private annotations(t: DeviceTimeline, device: number, kind: AxisKind): { spans: AnnotationSpan[]; omitted: number } {
    if (!t.hasTimes) return { spans: [], omitted: 0 };
    const open = new Map<string, number[]>();
    const pairs: { name: string; start: number; end: number }[] = [];
    const ordered = this.snapshot.externalAnnotations
      .filter((a) => a.device === device && Number.isFinite(a.timeUs))
      .sort((a, b) => a.timeUs - b.timeUs);
    let lastTime = Number.NEGATIVE_INFINITY;
    for (const a of ordered) {
      lastTime = a.timeUs;
      if (a.stage === 'START') {
        const starts = open.get(a.name) ?? [];
        starts.push(a.timeUs);
        open.set(a.name, starts);
      } else if (a.stage === 'END') {
        const start = open.get(a.name)?.pop();
        if (start !== undefined) pairs.push({ name: a.name, start, end: a.timeUs });
      }
    }
    const end = t.axis('time').info().end;
    for (const [name, starts] of open) for (const start of starts) pairs.push({ name, start, end: Math.max(end, lastTime) });
    let omitted = 0;
    if (pairs.length > MAX_ANNOTATIONS) {
      pairs.sort((a, b) => b.end - b.start - (a.end - a.start));
      omitted = pairs.length - MAX_ANNOTATIONS;
      pairs.length = MAX_ANNOTATIONS;
    }
    pairs.sort((a, b) => a.start - b.start || b.end - a.end);
    const laneEnds: number[] = [];
    const spans = pairs.map((p): AnnotationSpan => {
      const x0 = t.timeToX(kind, p.start);
      const x1 = t.timeToX(kind, p.end);
      let lane = laneEnds.findIndex((e) => e <= x0);
      if (lane === -1) {
        lane = laneEnds.length;
        laneEnds.push(x1);
      } else laneEnds[lane] = x1;
      return { name: p.name, x0, x1, lane };
    });
    return { spans, omitted };
  }

  block(device: number, record: number, maxFrames: number): BlockDetail {
    const d = this.deviceAnalysis(device);
    const t = this.timeline(device);
    const records = d.allocations;
    if (!(record >= 0 && record < records.count)) throw new Error(`no block ${record} on device ${device}`);
    const index = this.analysis().lineIndex;
    // The stack the analysis attributes the block by (none for pre-recording blocks freed in the trace).
    const stack = attributingStack(records, record);
    const frameIds = stack === NO_STACK ? [] : this.snapshot.stacks[stack];
    const all = frameIds.map((id) => ({ id, ...this.snapshot.frames[id] }));
    const source = all.filter(isSourceFrame);
    // Python frames when there are any; else the C++ frames past the allocator's and unwinder's own.
    const shown = source.length > 0 ? { frames: source, hidden: 0 } : skipAllocatorFrames(all);
    const bucket = d.buckets.bucketOf(record);
    const frames: StackFrameView[] = shown.frames.slice(0, Math.max(0, maxFrames)).map((frame) => ({
      file: frame.filename,
      line: Number(frame.line),
      name: frame.name,
      user: index.frameLine[frame.id] !== NO_LINE,
    }));
    const timeOf = (event: number) => {
      const v = event >= 0 ? t.trace.timeUs[event] : Number.NaN;
      return Number.isNaN(v) ? undefined : v;
    };
    const { bornState, diedState } = t.layout;
    return {
      record,
      size: records.sizeOf(record),
      address: records.addrOf(record),
      firstState: bornState[record],
      lastState: diedState[record] - 1,
      allocEvent: records.allocEvent[record],
      freeEvent: records.freeEvent[record],
      allocTimeUs: timeOf(records.allocEvent[record]),
      freeTimeUs: timeOf(records.freeEvent[record]),
      line: selfLineOf(index, stack),
      frames,
      totalFrames: shown.frames.length,
      hiddenFrames: shown.hidden,
      ...(bucket === undefined ? {} : { bucket: { kind: bucket.kind, label: bucket.label } }),
    };
  }

  /** The blocks that `file:line` allocated (as their self line), largest first, at most `limit`. */
  lineBlocksFor(device: number, file: string, line: number, limit = 500): LineBlocks | undefined {
    const index = this.analysis().lineIndex;
    const lineId = index.lines.findIndex((l) => l.file === file && Number(l.line) === line);
    if (lineId < 0) return undefined;
    const t = this.timeline(device);
    const { recordLine } = this.lookup(device);
    const { bySize, size, bornState, diedState } = t.layout;
    const blocks: LineBlock[] = [];
    for (let i = 0; i < bySize.length && blocks.length < limit; i++) {
      const r = bySize[i];
      if (recordLine[r] !== lineId) continue;
      blocks.push({ record: r, size: size[r], firstState: bornState[r], lastState: diedState[r] - 1 });
    }
    return { lineId, line: timelineLine(index, lineId), blocks };
  }

  /** Ids of the lines that are the self line of some stack with a frame whose file or function contains `text`. */
  linesMatchingStack(text: string): number[] {
    const needle = text.toLowerCase();
    const index = this.analysis().lineIndex;
    const frameMatch = new Uint8Array(this.snapshot.frames.length);
    const ids = new Set<number>();
    this.snapshot.stacks.forEach((frames, stack) => {
      const self = index.selfLine[stack];
      if (self === NO_LINE || ids.has(self)) return;
      for (const f of frames) {
        if (frameMatch[f] === 0) {
          const frame = this.snapshot.frames[f];
          frameMatch[f] = frame.filename.toLowerCase().includes(needle) || frame.name.toLowerCase().includes(needle) ? 1 : 2;
        }
        if (frameMatch[f] === 1) {
          ids.add(self);
          return;
        }
      }
    });
    return [...ids].sort((a, b) => a - b);
  }
}

function reservedUnknownOf(d: Pick<DeviceReplay, 'reservedShortfall'>, firstEvent: number): { reservedUnknown?: string } {
  const words = reservedUnknownWords(d, firstEvent);
  return words === undefined ? {} : { reservedUnknown: words };
}

function allocatorUnavailableOf(snapshot: Snapshot, device: number, d: Pick<DeviceReplay, 'reservedShortfall'>): { allocatorUnavailable?: string } {
  const problem = windowReplayProblem(snapshot, device, d);
  return problem === undefined ? {} : { allocatorUnavailable: problem.words };
}
