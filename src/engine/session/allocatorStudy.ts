/**
 * Everything the editor and the CLI ask about one device's allocator (src/engine/allocator), worked
 * out once and kept: the self-check replay (with its series and OOMs), the what-if table, and on
 * demand the segment map at an event and single predictions, shaped for the views (series on the
 * timeline's axes, lines with their colours). A worker session holds one per device.
 */
import type { InitialLayout } from '../allocator/initialState';
import type { OomExplanation } from '../allocator/oom';
import { explainOom } from '../allocator/oom';
import type { SegmentMap } from '../allocator/segmentMap';
import { segmentMapOf } from '../allocator/segmentMap';
import type { SelfCheckDetails } from '../allocator/selfCheck';
import { selfCheckOf, selfCheckReplay, selfCheckReplayAt, settingsOf } from '../allocator/selfCheck';
import type { AllocatorSeriesData, SegmentSpan } from '../allocator/series';
import { SeriesRecorder } from '../allocator/series';
import { applyAllocConf } from '../allocator/settings';
import type { AllocatorReplay } from '../allocator/traceReplay';
import type { WhatIfBasis, WhatIfResult, WhatIfTable } from '../allocator/whatIf';
import { allocatorOutOfWindow } from '../allocator/window';
import { UserError } from '../base/errors';
import { defaultCapacity, whatIf, whatIfTable } from '../allocator/whatIf';
import type { LineIndex } from '../analysis/lineIndex';
import type { SeriesAxis, TotalsSeries } from '../compare/totals';
import { downsampleTotals } from '../compare/totals';
import type { Snapshot } from '../snapshot/model';
import { timelineLine } from '../timeline/queries';
import type { TimelineLine } from '../timeline/types';

/** The allocator's series at a glance: each point the largest value within its bucket (see `downsampleTotals`). */
export interface AllocatorTimeline {
  readonly axis: SeriesAxis;
  readonly extent: number;
  readonly x: readonly number[];
  readonly reserved: readonly number[];
  /** Bytes of allocated blocks (rounded sizes, as PyTorch's memory_allocated()). */
  readonly allocated: readonly number[];
  /** Reserved but not allocated: cached free blocks and the free ends of expandable segments' mapped pages. */
  readonly reservedUnallocated: readonly number[];
  readonly largestFree: readonly number[];
  /** Segment spans, largest first, at most the number asked for. */
  readonly spans: readonly SegmentSpan[];
  readonly spansOmitted: number;
}

/** The segment map with the lines its blocks name (id, file, line, colour), for the legend. */
export interface SegmentMapView extends SegmentMap {
  readonly lines: readonly TimelineLine[];
}

export function allocatorTimeline(data: AllocatorSeriesData, timeUs: Float64Array, axis: SeriesAxis, points: number, maxSpans: number): AllocatorTimeline {
  const n = data.reserved.length;
  const unallocated = new Float64Array(n);
  for (let i = 0; i < n; i++) unallocated[i] = data.reserved[i] - data.allocated[i];
  const main: TotalsSeries = downsampleTotals(
    { active: data.allocated, reserved: data.reserved, initialActiveBytes: data.initialAllocated, initialReservedBytes: data.initialReserved },
    timeUs,
    axis,
    points,
  );
  const extra: TotalsSeries = downsampleTotals(
    {
      active: data.largestFree,
      reserved: unallocated,
      initialActiveBytes: data.initialLargestFree,
      initialReservedBytes: data.initialReserved - data.initialAllocated,
    },
    timeUs,
    axis,
    points,
  );
  const spans = [...data.spans].sort((a, b) => b.size - a.size || a.from - b.from).slice(0, Math.max(0, maxSpans));
  return {
    axis,
    extent: main.extent,
    x: main.x,
    reserved: main.reserved,
    allocated: main.active,
    reservedUnallocated: extra.reserved,
    largestFree: extra.active,
    spans,
    spansOmitted: data.spans.length - spans.length,
  };
}

/** A what-if question: settings changed from the recorded ones, and a device. */
export interface WhatIfRequest {
  /** Options applied over the recorded settings (`PYTORCH_CUDA_ALLOC_CONF` syntax); '' or undefined: as recorded. */
  readonly allocConf?: string;
  /** Bytes the device lets PyTorch have; undefined: what the recording implies, else no limit. */
  readonly capacity?: number;
  readonly memoryFraction?: number;
}

export class AllocatorStudy {
  private replay: AllocatorReplay | undefined;
  private data: AllocatorSeriesData | undefined;
  private details: SelfCheckDetails | undefined;
  private readonly tables = new WeakMap<object, WhatIfTable>();
  private readonly layouts = new Map<string, InitialLayout>();

  /** `series`: collect the allocator's series during the self-check (the views want them; the CLI does not). */
  /**
   * @throws UserError when the snapshot holds a window of its recording that leaves events out: the
   *   replay needs the whole recording ({@link allocatorOutOfWindow}).
   */
  constructor(
    readonly snapshot: Snapshot,
    readonly device: number,
    private readonly options: { readonly series?: boolean } = {},
  ) {
    const outOfWindow = allocatorOutOfWindow(snapshot, device);
    if (outOfWindow !== undefined) throw new UserError(outOfWindow.charAt(0).toUpperCase() + outOfWindow.slice(1) + '.');
  }

  private selfCheckReplay(series = this.options.series ?? false): AllocatorReplay {
    if (!this.replay || (series && !this.data)) {
      const trace = this.snapshot.traces[this.device];
      const recorder = trace && series ? new SeriesRecorder(trace) : undefined;
      this.replay = selfCheckReplay(this.snapshot, this.device, recorder);
      this.data = recorder?.finish();
    }
    return this.replay;
  }

  check(): SelfCheckDetails {
    this.details ??= selfCheckOf(this.snapshot, this.selfCheckReplay());
    return this.details;
  }

  basis(lineIndex?: LineIndex): WhatIfBasis {
    const check = this.check();
    return { snapshot: this.snapshot, device: this.device, check, emptyCacheAt: this.selfCheckReplay().emptyCacheEvents, lineIndex, layouts: this.layouts };
  }

  /** The self-check replay's series (reserved, allocated, largest free block, segment spans); undefined for a device without a trace. */
  series(): AllocatorSeriesData | undefined {
    this.selfCheckReplay(true);
    return this.snapshot.traces[this.device] ? this.data : undefined;
  }

  timeline(axis: SeriesAxis, points: number, maxSpans: number): AllocatorTimeline | undefined {
    this.selfCheckReplay(true);
    const trace = this.snapshot.traces[this.device];
    if (!this.data || !trace) return undefined;
    return allocatorTimeline(this.data, trace.timeUs, axis, points, maxSpans);
  }

  /** The segment map right after `event` (-1: before the first event). */
  segmentMap(event: number, lineIndex: LineIndex | undefined, maxBlocks: number): SegmentMapView {
    const replay = selfCheckReplayAt(this.snapshot, this.device).runTo(event + 1);
    const map = segmentMapOf(replay, lineIndex, maxBlocks);
    return { ...map, lines: lineIndex ? map.lineIds.map((id) => timelineLine(lineIndex, id)) : [] };
  }

  /** The recorded OOMs, explained from the replayed allocator's state. */
  ooms(lineIndex?: LineIndex): OomExplanation[] {
    const replay = this.selfCheckReplay();
    const settings = settingsOf(this.snapshot);
    return replay.ooms.map((o) => explainOom(o, replay.trace, settings, lineIndex));
  }

  whatIf(request: WhatIfRequest, lineIndex?: LineIndex): WhatIfResult {
    const basis = this.basis(lineIndex);
    const settings = request.allocConf ? applyAllocConf(settingsOf(this.snapshot), request.allocConf) : settingsOf(this.snapshot);
    return whatIf(basis, { settings, capacity: request.capacity ?? defaultCapacity(basis), memoryFraction: request.memoryFraction });
  }

  table(lineIndex?: LineIndex): WhatIfTable {
    const key = lineIndex ?? this;
    let table = this.tables.get(key);
    if (!table) {
      table = whatIfTable(this.basis(lineIndex));
      this.tables.set(key, table);
    }
    return table;
  }
}
