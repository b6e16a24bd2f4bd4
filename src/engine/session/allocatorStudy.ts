/**
 * Everything the editor and the CLI ask about one device's allocator (src/engine/allocator), worked
 * out once and kept: the self-check replay (with its series and OOMs), the what-if table, and on
 * demand the segment map at an event and single predictions, shaped for the views (series on the
 * timeline's axes, lines with their colours). A worker session holds one per device.
 */
import type { InitialLayout } from '../allocator/initialState';
import type { OomExplanation } from '../allocator/oom';
import { explainOom } from '../allocator/oom';
import { ReplayCheckpoints } from '../allocator/checkpoints';
import type { SegmentMap } from '../allocator/segmentMap';
import { segmentMapAfter } from '../allocator/segmentMap';
import type { SelfCheckDetails } from '../allocator/selfCheck';
import { selfCheckOf, selfCheckReplay, selfCheckReplayAt, settingsOf } from '../allocator/selfCheck';
import type { AllocatorSeriesData } from '../allocator/series';
import { SeriesRecorder } from '../allocator/series';
import { applyAllocConf } from '../allocator/settings';
import type { AllocatorReplay } from '../allocator/traceReplay';
import type { WhatIfBasis, WhatIfResult, WhatIfTable } from '../allocator/whatIf';
import { allocatorOutOfWindow } from '../allocator/window';
import { UserError } from '../base/errors';
import { defaultCapacity, whatIf, whatIfTable } from '../allocator/whatIf';
import type { LineIndex } from '../analysis/lineIndex';
import type { Snapshot } from '../snapshot/model';
import { timelineLine } from '../timeline/queries';
import type { TimelineLine } from '../timeline/types';

/** The segment map with the lines its blocks name (id, file, line, colour), for the legend. */
export interface SegmentMapView extends SegmentMap {
  readonly lines: readonly TimelineLine[];
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
  private replayCheckpoints: ReplayCheckpoints | undefined;

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

  /** The segment map right after `event` (-1: before the first event). */
  segmentMap(event: number, lineIndex: LineIndex | undefined, maxBlocks: number): SegmentMapView {
    const replay = this.checkpoints().at(event + 1);
    const map = segmentMapAfter(replay, event, lineIndex, maxBlocks);
    return { ...map, lines: lineIndex ? map.lineIds.map((id) => timelineLine(lineIndex, id)) : [] };
  }

  /** The self-check replay's checkpoints, which segment maps are replayed from. */
  checkpoints(): ReplayCheckpoints {
    this.replayCheckpoints ??= new ReplayCheckpoints(() => selfCheckReplayAt(this.snapshot, this.device), this.snapshot.traces[this.device]?.length ?? 0);
    return this.replayCheckpoints;
  }

  /**
   * The recorded OOMs, explained from the replayed allocator's state; none where the replay does not
   * apply (`notReplayable`): its reserved figures would not be PyTorch's (issue 29: "1.0 TiB asked
   * with 1.0 GiB reserved" beside a recording that reserves nothing it knows of).
   */
  ooms(lineIndex?: LineIndex): OomExplanation[] {
    if (this.check().notReplayable !== undefined) return [];
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
