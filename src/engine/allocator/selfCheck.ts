/**
 * The self-check: the trace replayed with the settings it was recorded with, against the recording.
 * PyTorch recorded the address of every block and every segment it made or released; the replay
 * must put each allocation at the recorded address, make or release each segment where PyTorch
 * did (with the same size), and end in the state `segments` shows. Where it first departs, and
 * the likeliest reason, tell a user how far to trust a prediction for this snapshot.
 */
import { replayDevice, traceOf } from '../analysis/replay';
import { shortfallWords } from '../analysis/summary';
import type { Snapshot } from '../snapshot/model';
import { Action, isLiveState } from '../snapshot/model';
import type { Block } from './blocks';
import type { MismatchKind } from './devices';
import type { InitialLayout } from './initialState';
import { assumedTotalMemory, recordedCapacity } from './recordedDevice';
import type { AllocatorSettings } from './settings';
import { describeSettings, recordedSettings } from './settings';
import type { SeriesRecorder } from './series';
import type { ReplayObserver } from './traceReplay';
import { AllocatorReplay } from './traceReplay';
import { formatHex } from '../text/format';

/** Where the replay first did something PyTorch did not. */
export interface Departure {
  /** The trace event (-1: the state before recording already disagrees). */
  readonly event: number;
  /** The recorded action there ('alloc', 'segment_alloc', ...). */
  readonly action: string;
  readonly kind: MismatchKind | 'layout' | 'finalState';
  /** What differed, and the likeliest reason. */
  readonly reason: string;
}

/** The figures `whatif --json` prints as `selfCheck`. */
export interface SelfCheck {
  readonly allocations: number;
  readonly atRecordedAddress: number;
  readonly segmentEvents: number;
  readonly segmentEventsReproduced: number;
  readonly firstDeparture: Departure | null;
}

export interface SelfCheckDetails {
  readonly device: number;
  readonly check: SelfCheck;
  /** The recorded settings, as a configuration string ('' for PyTorch's defaults). */
  readonly settings: string;
  /** Whether the snapshot recorded its settings (`allocator_settings`, PyTorch 2.3+); else defaults were assumed. */
  readonly settingsRecorded: boolean;
  readonly recordedOoms: number;
  readonly oomsReproduced: number;
  /** How many times the program called empty_cache(), as the trace shows it (its release events with no allocation to explain them). */
  readonly emptyCacheCalls: number;
  /** Where: the first release event of each call (at most the first 1,000). */
  readonly emptyCacheEvents: readonly number[];
  /** Blocks of `segments` compared with the replay's state at the end, and how many agree (address, size, state). */
  readonly finalBlocks: number;
  readonly finalBlocksMatching: number;
  /** Blocks live when recording began whose size the trace did not record (worked out from the layout). */
  readonly inferredBlockSizes: number;
  /** Every difference found (the first is `check.firstDeparture`). */
  readonly departures: number;
  /**
   * The memory PyTorch could have had on this device, as the recording shows it: at an OOM, reserved
   * plus the free memory PyTorch reported; else, where cudaMalloc failed and PyTorch released cached
   * memory to retry, the most it ever reserved (every recorded success fits it, every failure does not).
   * Null when the recording never ran short.
   */
  readonly capacityBytes: number | null;
  readonly capacitySource: 'oom' | 'failedMalloc' | null;
  /**
   * The replay's own figures. When it departs nowhere and the device never ran short (no failed
   * cudaMalloc, no OOM), they are the prediction for the recorded settings with no capacity limit:
   * that prediction makes the same decisions with the same outcomes.
   */
  readonly peakReservedBytes: number;
  readonly reservedFreeAtPeakBytes: number;
  readonly cudaMallocs: number;
  readonly cudaFrees: number;
  readonly clean: boolean;
  /**
   * Set when replaying the trace does not apply, in plain words: the trace was not recorded by PyTorch's
   * caching allocator (a snapshot VRAM Lens wrote from a run of its own), or it records allocations but
   * no segment at all (none held, none made or released), or more allocated memory than its segments
   * reserve (the analysis' `reservedShortfall`: the device's reserved memory is unknown), which no
   * caching allocator does. Views say this instead of a failed check.
   */
  readonly notReplayable?: string;
}

/** Why the replay does not apply to this snapshot's trace, or undefined where it does. */
function notReplayableReason(snapshot: Snapshot, replay: AllocatorReplay, departs: boolean): string | undefined {
  const { allocations, segmentEvents } = replay;
  if (snapshot.producer?.tool === 'vram-lens') {
    const ran = snapshot.producer.provider === 'cpu' ? ' on the CPU' : snapshot.producer.provider === 'webgpu' ? ' on WebGPU' : '';
    return `VRAM Lens wrote this snapshot from a run of its own${ran}, not PyTorch's caching allocator, so there is no allocator to replay: replaying it and the what-if predictions do not apply.`;
  }
  if (allocations > 0 && segmentEvents === 0 && snapshot.segments.length === 0) {
    return 'The trace records allocations but no memory segment (none held, none made or released), so it did not come from a caching allocator PyTorch could replay: replaying it and the what-if predictions do not apply.';
  }
  // A trace that allocates more than its segments reserve makes the replay depart; only then is it looked for.
  const shortfall = departs ? replayDevice(snapshot, replay.deviceIndex).reservedShortfall : undefined;
  if (shortfall !== undefined) {
    return `The trace allocates more than this device's recorded segments reserve (${shortfallWords(shortfall)}), so the snapshot does not record its reserved memory and the trace did not come from a caching allocator PyTorch could replay: replaying it and the what-if predictions do not apply.`;
  }
  return undefined;
}

const ACTION_NAMES: Record<number, string> = {
  [Action.Alloc]: 'alloc',
  [Action.FreeRequested]: 'free_requested',
  [Action.FreeCompleted]: 'free_completed',
  [Action.SegmentAlloc]: 'segment_alloc',
  [Action.SegmentFree]: 'segment_free',
  [Action.SegmentMap]: 'segment_map',
  [Action.SegmentUnmap]: 'segment_unmap',
  [Action.Oom]: 'oom',
  [Action.Snapshot]: 'snapshot',
};

export function actionName(a: number): string {
  return ACTION_NAMES[a] ?? 'other';
}

/** The settings a snapshot was recorded with. */
export function settingsOf(snapshot: Snapshot): AllocatorSettings {
  return recordedSettings(snapshot.allocatorSettings, snapshot.segments.some((s) => s.isExpandable));
}

/** The self-check replay of one device, built but not run (`runTo` replays it), for callers that want its state at some event. */
export function selfCheckReplayAt(snapshot: Snapshot, device: number, observer?: ReplayObserver): AllocatorReplay {
  const trace = traceOf(snapshot, device);
  return new AllocatorReplay(snapshot, device, { settings: settingsOf(snapshot), totalMemory: assumedTotalMemory(snapshot, trace), observer });
}

/** The self-check replay of one device, run to the end; `recorder` collects its series. */
export function selfCheckReplay(snapshot: Snapshot, device: number, recorder?: SeriesRecorder): AllocatorReplay {
  const replay = selfCheckReplayAt(snapshot, device, recorder);
  recorder?.start(replay);
  return replay.runTo();
}

export function selfCheck(snapshot: Snapshot, device: number): SelfCheckDetails {
  return selfCheckOf(snapshot, selfCheckReplay(snapshot, device));
}

/** The self-check figures of a finished self-check replay. */
export function selfCheckOf(snapshot: Snapshot, replay: AllocatorReplay): SelfCheckDetails {
  const device = replay.deviceIndex;
  const final = compareFinalState(snapshot, replay);
  const firstMismatch = replay.mismatches[0];
  let firstDeparture: Departure | null = null;
  if (replay.layout.problems.length > 0) {
    firstDeparture = { event: -1, action: 'segments', kind: 'layout', reason: `${replay.layout.problems[0]}: ${TRACE_AND_SEGMENTS_DISAGREE}` };
  } else if (firstMismatch !== undefined) {
    firstDeparture = {
      event: firstMismatch.event,
      action: actionName(replay.trace.action[firstMismatch.event]),
      kind: firstMismatch.kind,
      reason: `${firstMismatch.detail}${causeOf(snapshot, replay)}`,
    };
  } else if (final.matching < final.compared) {
    firstDeparture = { event: replay.trace.length, action: 'end', kind: 'finalState', reason: `${final.firstDifference}${causeOf(snapshot, replay)}` };
  }
  const settings = settingsOf(snapshot);
  return {
    device,
    check: {
      allocations: replay.allocations,
      atRecordedAddress: replay.atRecordedAddress,
      segmentEvents: replay.segmentEvents,
      segmentEventsReproduced: replay.segmentEventsReproduced,
      firstDeparture,
    },
    settings: describeSettings(settings),
    settingsRecorded: snapshot.allocatorSettings !== undefined,
    recordedOoms: replay.recordedOoms,
    oomsReproduced: replay.oomsReproduced,
    emptyCacheCalls: replay.emptyCacheEvents.length,
    emptyCacheEvents: replay.emptyCacheEvents.slice(0, 1000),
    finalBlocks: final.compared,
    finalBlocksMatching: final.matching,
    inferredBlockSizes: replay.layout.blocks.filter((b) => b.inferred).length,
    departures: replay.mismatchCount + replay.layout.problems.length + (final.compared - final.matching),
    ...impliedCapacity(snapshot, replay),
    peakReservedBytes: replay.peakReserved,
    reservedFreeAtPeakBytes: replay.peakReserved - replay.allocatedAtPeak,
    cudaMallocs: replay.cudaMallocs,
    cudaFrees: replay.cudaFrees,
    clean: firstDeparture === null && replay.deviceFailures.length === 0 && replay.recordedOoms === 0,
    ...withReason(notReplayableReason(snapshot, replay, firstDeparture !== null)),
  };
}

const withReason = (reason: string | undefined): { notReplayable?: string } => (reason === undefined ? {} : { notReplayable: reason });

function impliedCapacity(snapshot: Snapshot, replay: AllocatorReplay): Pick<SelfCheckDetails, 'capacityBytes' | 'capacitySource'> {
  const fromOom = recordedCapacity(snapshot, replay.trace);
  if (fromOom !== undefined) return { capacityBytes: fromOom, capacitySource: 'oom' };
  if (replay.deviceFailures.length > 0 && replay.mismatchCount === 0) return { capacityBytes: replay.peakReserved, capacitySource: 'failedMalloc' };
  return { capacityBytes: null, capacitySource: null };
}

const TRACE_AND_SEGMENTS_DISAGREE =
  'the trace does not lead to the final segments (entries dropped by the trace ring buffer, or a file assembled from several recordings)';

/** The likeliest reason for a departure, from what the snapshot holds that the replay does not model. */
function causeOf(snapshot: Snapshot, replay: AllocatorReplay): string {
  const t = replay.trace;
  const streams = new Set<number>();
  for (let i = 0; i < t.length; i++) if (t.action[i] === Action.Alloc) streams.add(t.stream[i]);
  const causes: string[] = [];
  if (streams.size > 1) causes.push('allocations on several streams (a block used on another stream is reused only after its CUDA events complete)');
  if (snapshot.segments.some((s) => s.device === replay.deviceIndex && s.privatePool)) causes.push('a private memory pool (CUDA graphs or torch.cuda.MemPool)');
  if (replay.layout.blocks.some((b) => b.inferred)) causes.push('blocks allocated before recording, whose sizes were worked out rather than recorded');
  if (snapshot.allocatorSettings === undefined) causes.push('settings not recorded (PyTorch before 2.3): the defaults were assumed');
  return causes.length === 0 ? '' : `; possible cause: ${causes.join('; or ')}`;
}

function compareFinalState(snapshot: Snapshot, replay: AllocatorReplay): { compared: number; matching: number; firstDifference: string } {
  const mine = new Map<number, { size: number; allocated: boolean }>();
  for (const s of replay.allocator.segments) {
    for (let b: Block | undefined = s.head; b; b = b.next) if (b.mapped) mine.set(b.ptr, { size: b.size, allocated: b.allocated });
  }
  let compared = 0;
  let matching = 0;
  let firstDifference = '';
  for (const seg of snapshot.segments) {
    if (seg.device !== replay.deviceIndex) continue;
    for (const b of seg.blocks) {
      compared++;
      const m = mine.get(b.address);
      const live = isLiveState(b.state);
      if (m && m.size === b.size && m.allocated === live) matching++;
      else if (!firstDifference) {
        firstDifference = m
          ? `at the end the replay holds a ${m.allocated ? 'live' : 'free'} block of ${m.size} bytes at ${formatHex(b.address)}; the snapshot has ${b.size} bytes, ${b.state}`
          : `at the end the replay has no block at ${formatHex(b.address)} (${b.size} bytes, ${b.state} in the snapshot)`;
      }
    }
  }
  return { compared, matching, firstDifference };
}

export type { InitialLayout };
