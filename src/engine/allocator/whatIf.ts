/**
 * What if the program ran with other allocator settings, or on a GPU of another size: the trace
 * replayed through the allocator against a device of that capacity. Answers the peak reserved
 * memory, the cudaMalloc calls, and the first allocation that would fail, with its line.
 *
 * A prediction keeps what the trace cannot tell fixed: the program allocates and frees what it
 * did, in the same order, and calls empty_cache() where it did (as the self-check found).
 */
import type { LineIndex } from '../analysis/lineIndex';
import { NO_LINE } from '../analysis/lineIndex';
import type { Snapshot } from '../snapshot/model';
import { Action } from '../snapshot/model';
import { gpuSizeFor, GPU_SIZES_GIB, assumedTotalMemory } from './recordedDevice';
import type { SelfCheckDetails } from './selfCheck';
import { selfCheckOf, selfCheckReplay, settingsOf } from './selfCheck';
import type { AllocatorSettings } from './settings';
import { applyAllocConf, describeSettings } from './settings';
import { GiB, MiB, roundSize } from './sizes';
import type { RecordingStart, ReplayOom } from './traceReplay';
import { formatBytes } from '../text/format';
import { AllocatorReplay, addressSpan } from './traceReplay';
import type { InitialLayout } from './initialState';
import { initialLayout } from './initialState';

export interface WhatIfOom {
  readonly event: number;
  /** The user line of the allocation (null when its stack has none). */
  readonly file: string | null;
  readonly line: number | null;
  readonly requestedBytes: number;
  readonly reservedBytes: number;
  readonly largestFreeBytes: number;
  /** fragmentation: the cache held enough free bytes, but no block large enough; capacity: it did not. */
  readonly cause: 'fragmentation' | 'capacity';
  /** Whether the trace recorded an OOM at this allocation too. */
  readonly recorded: boolean;
}

interface WhatIfCommon {
  /** The settings replayed, as a configuration string ('' for the defaults). */
  readonly settings: string;
  /** Bytes the device let the allocator have (null: no limit). */
  readonly capacityBytes: number | null;
  /** How the state recording began in met the capacity, when it did not fit under it as it was (else null). */
  readonly start: RecordingStart | null;
  /** The first allocation that fails, or null (an OOM the trace also recorded is reported, and the replay goes on past it as the program did). */
  readonly oom: WhatIfOom | null;
  /** Recorded OOMs the prediction got past. */
  readonly recordedOomsAvoided: number;
}

/** A prediction the replay made: it ran from the state recording began in (after releasing cached segments, for `start.outcome` 'released'). */
export interface WhatIfReplayed extends WhatIfCommon {
  readonly replayed: true;
  /** Whether the program fits: no allocation fails. */
  readonly fits: boolean;
  readonly peakReservedBytes: number;
  /** Reserved but not allocated (cached free and split remainders) when reserved memory peaked. */
  readonly reservedFreeAtPeakBytes: number;
  /** Segments cudaMalloc'd and page ranges mapped (PyTorch's num_device_alloc). */
  readonly cudaMallocs: number;
  /** Segments cudaFree'd and page ranges unmapped (num_device_free). */
  readonly cudaFrees: number;
}

/**
 * No replay: the state recording began in does not fit the capacity (`start`). `fits` is false when
 * more was allocated then than the device holds (certain), null when only the segments holding those
 * blocks take more (unknown).
 */
export interface WhatIfNotReplayed extends WhatIfCommon {
  readonly replayed: false;
  readonly fits: false | null;
  readonly start: RecordingStart;
  readonly peakReservedBytes: null;
  readonly reservedFreeAtPeakBytes: null;
  readonly cudaMallocs: null;
  readonly cudaFrees: null;
}

export type WhatIfResult = WhatIfReplayed | WhatIfNotReplayed;

export interface WhatIfOptions {
  readonly settings: AllocatorSettings;
  /** Bytes the device lets PyTorch have; undefined: no limit. */
  readonly capacity?: number;
  /** `set_per_process_memory_fraction` of `capacity`. */
  readonly memoryFraction?: number;
  /** Replay as if the program had not called empty_cache() (what its calls cost). */
  readonly skipEmptyCache?: boolean;
  /** The GPU's total memory, when known (sizes expandable segments' address space); else `capacity`, else a guess from the recording. */
  readonly totalMemory?: number;
}

/** The self-check facts a prediction needs (found once per device and reused). */
export interface WhatIfBasis {
  readonly snapshot: Snapshot;
  readonly device: number;
  readonly check: SelfCheckDetails;
  readonly lineIndex?: LineIndex;
  /** Where the program called empty_cache() (every call; the self-check found them). */
  readonly emptyCacheAt: readonly number[];
  /** Initial layouts already worked out, by the settings they depend on. */
  readonly layouts?: Map<string, InitialLayout>;
}

export function whatIfBasis(snapshot: Snapshot, device: number, lineIndex?: LineIndex): WhatIfBasis {
  const replay = selfCheckReplay(snapshot, device);
  return { snapshot, device, check: selfCheckOf(snapshot, replay), emptyCacheAt: replay.emptyCacheEvents, lineIndex, layouts: new Map() };
}

/**
 * The layout recording began in, as these settings read it (cached in the basis). It describes the
 * recorded GPU, so expandable segments are told apart with the recorded GPU's size, whatever the
 * capacity asked.
 */
function layoutFor(basis: WhatIfBasis, settings: AllocatorSettings): InitialLayout | undefined {
  const trace = basis.snapshot.traces[basis.device];
  if (!trace || !basis.layouts) return undefined;
  const { roundupPower2Divisions, maxSplitSize, maxNonSplitRoundingSize, expandableSegments, largeSegmentSize } = settings;
  const totalMemory = assumedTotalMemory(basis.snapshot, trace);
  const key = JSON.stringify([roundupPower2Divisions, maxSplitSize, maxNonSplitRoundingSize, expandableSegments, largeSegmentSize]);
  let layout = basis.layouts.get(key);
  if (!layout) {
    const segments = basis.snapshot.segments.filter((s) => s.device === basis.device);
    layout = initialLayout(segments, trace, settings, addressSpan(totalMemory));
    basis.layouts.set(key, layout);
  }
  return layout;
}

export function whatIf(basis: WhatIfBasis, options: WhatIfOptions): WhatIfResult {
  const { snapshot, device, check } = basis;
  if (options.capacity === undefined && !options.skipEmptyCache && check.clean && sameSettings(options.settings, settingsOf(snapshot))) {
    // The self-check made every decision PyTorch made, and no cudaMalloc failed: no limit changes nothing.
    return {
      settings: describeSettings(options.settings),
      capacityBytes: null,
      replayed: true,
      fits: true,
      start: null,
      peakReservedBytes: check.peakReservedBytes,
      reservedFreeAtPeakBytes: check.reservedFreeAtPeakBytes,
      cudaMallocs: check.cudaMallocs,
      cudaFrees: check.cudaFrees,
      oom: null,
      recordedOomsAvoided: 0,
    };
  }
  const trace = snapshot.traces[device];
  const capacity = options.capacity;
  const totalMemory = options.totalMemory ?? capacity ?? (trace ? assumedTotalMemory(snapshot, trace) : 80 * GiB);
  const fraction = options.memoryFraction ?? options.settings.memoryFraction;
  const replay = new AllocatorReplay(snapshot, device, {
    settings: options.settings,
    totalMemory,
    capacity: capacity ?? Infinity,
    memoryFraction: capacity === undefined ? undefined : fraction,
    emptyCacheAt: options.skipEmptyCache ? [] : basis.emptyCacheAt,
    stopAtOom: true,
    layout: layoutFor(basis, options.settings),
  }).runTo();
  const failed = replay.ooms[0];
  const common = { settings: describeSettings(options.settings), capacityBytes: capacity ?? null, oom: failed ? oomOf(basis, failed, options.settings) : null };
  const start = replay.start;
  if (start !== undefined && start.outcome !== 'released') {
    return { ...common, replayed: false, fits: start.outcome === 'allocated' ? false : null, start, peakReservedBytes: null, reservedFreeAtPeakBytes: null, cudaMallocs: null, cudaFrees: null, recordedOomsAvoided: 0 };
  }
  return {
    ...common,
    replayed: true,
    fits: failed === undefined,
    start: start ?? null,
    peakReservedBytes: replay.peakReserved,
    reservedFreeAtPeakBytes: replay.peakReserved - replay.allocatedAtPeak,
    cudaMallocs: replay.cudaMallocs,
    cudaFrees: replay.cudaFrees,
    recordedOomsAvoided: replay.recordedOoms - replay.oomsReproduced,
  };
}

/** Bytes as the what-if's words write them. */
const bytes = (n: number) => formatBytes(n, 2);

/** Why a prediction on `capacityBytes` is not a replay from the state recording began in, in one sentence (shared by the CLI and the editor). */
export function recordingStartText(start: RecordingStart): string {
  switch (start.outcome) {
    case 'allocated':
      return (
        `Does not fit: ${bytes(start.allocatedBytes)} was already allocated before recording began ` +
        `(tensors that need at least ${bytes(start.neededBytes)}), more than the ${bytes(start.limitBytes)} the allocator may use.`
      );
    case 'reserved':
      return (
        `Unknown: recording began with ${bytes(start.reservedBytes)} reserved, and the segments holding live tensors alone take ` +
        `${bytes(start.keptBytes)}, more than the ${bytes(start.limitBytes)} the allocator may use; how a smaller GPU would have laid ` +
        `them out before recording began is not in the trace (record from the start of the program to know).`
      );
    case 'released':
      return (
        `Recording began with ${bytes(start.reservedBytes)} reserved, more than the ${bytes(start.limitBytes)} the allocator may use; ` +
        `the replay first releases the ${bytes(start.reservedBytes - start.keptBytes)} of cached segments PyTorch frees when cudaMalloc fails, ` +
        `and goes on from the ${bytes(start.keptBytes)} left.`
      );
  }
}

function sameSettings(a: AllocatorSettings, b: AllocatorSettings): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function oomOf(basis: WhatIfBasis, o: ReplayOom, settings: AllocatorSettings): WhatIfOom {
  const trace = basis.snapshot.traces[basis.device];
  const index = basis.lineIndex;
  const lineId = index && trace ? index.selfLine[trace.stack[o.event]] ?? NO_LINE : NO_LINE;
  const line = index && lineId !== NO_LINE ? index.lines[lineId] : undefined;
  const rounded = roundSize(o.requestedBytes, settings);
  const freeCached = o.reservedBytes - o.allocatedBytes;
  return {
    event: o.event,
    file: line ? line.file : null,
    line: line ? Number(line.line) : null,
    requestedBytes: o.requestedBytes,
    reservedBytes: o.reservedBytes,
    largestFreeBytes: o.largestFreeBytes,
    cause: freeCached >= rounded && o.largestFreeForRequestBytes < rounded ? 'fragmentation' : 'capacity',
    recorded: o.recorded,
  };
}

/** The capacity a what-if uses when none is asked: what the recording shows PyTorch had (see `SelfCheckDetails.capacityBytes`), else no limit. */
export function defaultCapacity(basis: WhatIfBasis): number | undefined {
  return basis.check.capacityBytes ?? undefined;
}

// --- the table: GPU sizes x settings ---

export interface WhatIfCell {
  readonly capacityBytes: number;
  /** As `WhatIfResult.fits`: null when unknown. */
  readonly fits: boolean | null;
  readonly peakReservedBytes: number | null;
  readonly oom: WhatIfOom | null;
  readonly start: RecordingStart | null;
}

export interface WhatIfRow {
  /** 'recorded' | 'expandable' | 'maxSplit' */
  readonly kind: 'recorded' | 'expandable' | 'maxSplit';
  /** What the row changes: 'as recorded', or the option applied over the recorded settings. */
  readonly label: string;
  /** All the settings replayed, as a configuration string ('' for the defaults). */
  readonly settings: string;
  /** With no capacity limit (always replayed: no limit holds every start). */
  readonly unlimited: WhatIfReplayed;
  readonly cells: readonly WhatIfCell[];
}

export interface WhatIfTable {
  readonly device: number;
  readonly gpuSizesBytes: readonly number[];
  readonly rows: readonly WhatIfRow[];
}

/** The three settings of the table: as recorded, expandable segments toggled, and a max_split_size chosen by replay. */
export function tableSettings(basis: WhatIfBasis): { kind: WhatIfRow['kind']; label: string; settings: AllocatorSettings }[] {
  const recorded = settingsOf(basis.snapshot);
  const toggle = `expandable_segments:${recorded.expandableSegments ? 'False' : 'True'}`;
  const maxSplit = chooseMaxSplit(basis, recorded);
  return [
    { kind: 'recorded', label: 'as recorded', settings: recorded },
    { kind: 'expandable', label: toggle, settings: applyAllocConf(recorded, toggle) },
    { kind: 'maxSplit', label: `max_split_size_mb:${Math.floor(maxSplit.maxSplitSize / MiB)}`, settings: maxSplit },
  ];
}

/**
 * A max_split_size_mb for this trace: the smallest power of two (at least 32 MiB) at or above the
 * size of 90% of its allocations over 1 MiB, so the common large tensors still split and reuse
 * cached blocks while the rarer larger ones keep their blocks whole.
 */
export function chooseMaxSplit(basis: WhatIfBasis, base: AllocatorSettings): AllocatorSettings {
  const trace = basis.snapshot.traces[basis.device];
  const sizes: number[] = [];
  if (trace) for (let i = 0; i < trace.length; i++) if (trace.action[i] === Action.Alloc && trace.size[i] > MiB) sizes.push(trace.size[i]);
  sizes.sort((a, b) => a - b);
  const p90 = sizes.length === 0 ? 0 : sizes[Math.min(sizes.length - 1, Math.floor(sizes.length * 0.9))];
  let mb = 32;
  while (mb * MiB < p90) mb *= 2;
  return applyAllocConf(base, `max_split_size_mb:${mb}`);
}

export function whatIfTable(basis: WhatIfBasis, gpuSizesBytes: readonly number[] = GPU_SIZES_GIB.map((g) => g * GiB)): WhatIfTable {
  const rows = tableSettings(basis).map(({ kind, label, settings }): WhatIfRow => {
    const unlimited = whatIf(basis, { settings });
    if (!unlimited.replayed) throw new Error('whatIfTable: a replay with no limit always runs');
    const unlimitedPeak = unlimited.peakReservedBytes;
    const cells = gpuSizesBytes.map((capacity): WhatIfCell => {
      // The replay with no limit never reserved more than this device holds: it fits, making the same decisions.
      if (limitOf(capacity, settings) >= unlimitedPeak && recordedNeed(basis, settings) <= limitOf(capacity, settings)) {
        return { capacityBytes: capacity, fits: true, peakReservedBytes: unlimitedPeak, oom: null, start: null };
      }
      const r = whatIf(basis, { settings, capacity });
      return { capacityBytes: capacity, fits: r.fits, peakReservedBytes: r.peakReservedBytes, oom: r.oom, start: r.start };
    });
    return { kind, label, settings: describeSettings(settings), unlimited, cells };
  });
  return { device: basis.device, gpuSizesBytes, rows };
}

/** The bytes the allocator may use on a device of `capacity` (times a memory fraction set in `settings`). */
function limitOf(capacity: number, settings: AllocatorSettings): number {
  return settings.memoryFraction === undefined ? capacity : Math.min(capacity, Math.floor(settings.memoryFraction * capacity));
}

/** The least the blocks live when recording began need under `settings` (see `RecordingStart.neededBytes`). */
function recordedNeed(basis: WhatIfBasis, settings: AllocatorSettings): number {
  const layout = layoutFor(basis, settings);
  let need = 0;
  for (const b of layout?.blocks ?? []) need += roundSize(b.requestedSize, settings);
  return need;
}

export { gpuSizeFor };
