/**
 * Replays one device's trace through the caching allocator: every `alloc` is a malloc of its
 * requested size on its stream, every `free_completed` frees the block the replay gave that
 * allocation, the program's `empty_cache()` calls are replayed where the trace shows them, and the
 * allocator starts from the state recording began in (`initialLayout`).
 *
 * With the recorded device (no capacity) this is the self-check: cudaMalloc succeeds where PyTorch
 * recorded a segment and fails where PyTorch went on to release memory, and each allocation and
 * segment event the replay makes is compared with the recorded one. With a capacity it is a
 * prediction: what the same program would reserve under other settings or on another GPU.
 */
import { traceOf } from '../analysis/replay';
import type { DeviceTrace, Snapshot } from '../snapshot/model';
import { Action, NO_STACK, STACK_NOT_READ } from '../snapshot/model';
import { StacksNotReadError } from '../snapshot/errors';
import { BEFORE_TRACE, Block, searchKey } from './blocks';
import type { DeviceMemory, SegmentEventKind } from './cachingAllocator';
import { CachingAllocator } from './cachingAllocator';
import type { LazyMismatch, Mismatch } from './devices';
import { AddressMap } from './addressMap';
import { AddressHints, CapacityDevice, RecordedDevice } from './devices';
import type { InitialLayout } from './initialState';
import { initialLayout } from './initialState';
import { CudaSegment, ExpandableSegment } from './segments';
import type { AllocatorSettings } from './settings';
import { roundSize } from './sizes';
import { formatBytesFine, formatHex } from '../text/format';

export type { SegmentEventKind };

/** Hooks for building series while a replay runs (each optional; a replay without them keeps O(live blocks) memory). */
export interface ReplayObserver {
  /**
   * The replay made a segment event (cudaMalloc, cudaFree, page map or unmap) while replaying event
   * `replaying`, and the allocator's books show it. `at` is the event it belongs to: where PyTorch
   * recorded it when the replay reproduced a recorded segment event (its `segment_alloc` comes just
   * before the `alloc` that needed it, an `empty_cache()`'s releases before whatever event follows
   * them), else `replaying`.
   */
  segment?(at: number, kind: SegmentEventKind, ptr: number, size: number, replaying: number): void;
  /** Event `event` has been replayed. */
  afterEvent?(event: number, replay: AllocatorReplay): void;
}

export interface ReplayOptions {
  readonly settings: AllocatorSettings;
  /** The GPU's memory, for the address space of expandable segments (1.125 times it). */
  readonly totalMemory: number;
  /** Bytes the device lets PyTorch have; undefined replays against the recording (the self-check). */
  readonly capacity?: number;
  /** `set_per_process_memory_fraction`: allowed bytes are this fraction of `capacity`. */
  readonly memoryFraction?: number;
  /** Trace events where the program called `empty_cache()` (what a self-check found), for predictions. */
  readonly emptyCacheAt?: readonly number[];
  /** Stop at the first allocation the device cannot satisfy (the program would have died there). */
  readonly stopAtOom?: boolean;
  readonly observer?: ReplayObserver;
  /** The state recording began in, when already worked out for these settings and GPU size (see `initialLayout`). */
  readonly layout?: InitialLayout;
}

/** An allocation the replayed allocator could not satisfy. */
export interface ReplayOom {
  readonly event: number;
  /** Bytes the program asked for. */
  readonly requestedBytes: number;
  /** Reserved bytes after the allocator released what it could. */
  readonly reservedBytes: number;
  /** Bytes of allocated blocks then. */
  readonly allocatedBytes: number;
  /** The largest cached free block then (of any pool and stream). */
  readonly largestFreeBytes: number;
  /** The largest cached free block of the pool and stream the request needed. */
  readonly largestFreeForRequestBytes: number;
  /** Whether the trace itself recorded an OOM here. */
  readonly recorded: boolean;
}

const MAX_MISMATCHES = 200;

function isRelease(a: number): boolean {
  return a === Action.SegmentFree || a === Action.SegmentUnmap;
}

/**
 * With a capacity, the state recording began in did not fit under it as it was. The replay keeps that
 * state (what the program did before recording is not in the trace), so:
 * - `allocated`: the blocks live then need more than the capacity (each request rounded as these
 *   settings round it, the least any allocator could give): the program runs out of memory before
 *   recording began, whatever happened then. Certain; the replay does not run.
 * - `reserved`: they fit, but the segments holding them (after releasing every cached segment, as a
 *   failed cudaMalloc makes PyTorch do) take more than the capacity: how a smaller GPU would have laid
 *   them out is not in the trace. Unknown; the replay does not run.
 * - `released`: only cached segments held the excess; the replay begins by releasing them, as PyTorch
 *   does when cudaMalloc fails, and goes on from there.
 */
export interface RecordingStart {
  readonly outcome: 'allocated' | 'reserved' | 'released';
  /** Bytes the allocator may use: the capacity, times the memory fraction. */
  readonly limitBytes: number;
  /** Reserved when recording began. */
  readonly reservedBytes: number;
  /** Bytes of the blocks live when recording began (their sizes as recorded). */
  readonly allocatedBytes: number;
  /** The least those blocks need under these settings: the sum of their requests, each rounded. */
  readonly neededBytes: number;
  /** Reserved after releasing every cached segment (`reservedBytes` for `allocated`). */
  readonly keptBytes: number;
}

/** A device call that failed: the device had no room for `size` more bytes with `reserved` reserved. */
export interface DeviceFailure {
  readonly event: number;
  readonly reserved: number;
  readonly size: number;
}

/** Counts the device calls the allocator makes and notes the ones that fail. */
class ObservedDevice implements DeviceMemory {
  mallocs = 0;
  frees = 0;
  event = -1;
  readonly failures: DeviceFailure[] = [];
  constructor(
    private readonly inner: DeviceMemory,
    private readonly reserved: () => number,
  ) {}
  /** The same counts over another device (a forked replay's). */
  copyOver(inner: DeviceMemory, reserved: () => number): ObservedDevice {
    const copy = new ObservedDevice(inner, reserved);
    copy.mallocs = this.mallocs;
    copy.frees = this.frees;
    copy.event = this.event;
    copy.failures.push(...this.failures);
    return copy;
  }
  get recordedEvent(): number | undefined {
    return this.inner.recordedEvent;
  }
  malloc(size: number, stream: number, small: boolean): number | undefined {
    const ptr = this.inner.malloc(size, stream, small);
    if (ptr !== undefined) this.mallocs++;
    else if (this.failures.length < 1000) this.failures.push({ event: this.event, reserved: this.reserved(), size });
    return ptr;
  }
  free(ptr: number, size: number, stream: number): void {
    this.frees++;
    this.inner.free(ptr, size, stream);
  }
  reserve(size: number, stream: number, small: boolean): number {
    return this.inner.reserve(size, stream, small);
  }
  map(ptr: number, size: number, stream: number): boolean {
    const ok = this.inner.map(ptr, size, stream);
    if (ok) this.mallocs++;
    else if (this.failures.length < 1000) this.failures.push({ event: this.event, reserved: this.reserved(), size });
    return ok;
  }
  unmap(ptr: number, size: number, stream: number): void {
    this.frees++;
    this.inner.unmap(ptr, size, stream);
  }
  /** Forgets the calls counted so far (what happened before recording is not the run's). */
  resetCounts(): void {
    this.mallocs = 0;
    this.frees = 0;
    this.failures.length = 0;
  }
}

export class AllocatorReplay {
  readonly trace: DeviceTrace;
  readonly layout: InitialLayout;
  readonly allocator: CachingAllocator;
  /** The next event to replay. */
  position = 0;
  /** Live blocks by the address PyTorch recorded for them. */
  readonly live = new AddressMap<Block>();
  readonly mismatches: Mismatch[] = [];
  mismatchCount = 0;
  allocations = 0;
  atRecordedAddress = 0;
  segmentEvents = 0;
  recordedOoms = 0;
  oomsReproduced = 0;
  /** Where the program called empty_cache() (the first release event of each call). */
  readonly emptyCacheEvents: number[] = [];
  readonly ooms: ReplayOom[] = [];
  peakReserved: number;
  /** Event after which `peakReserved` was first reached (-1: the state before the trace). */
  peakReservedEvent = -1;
  /** Allocated bytes when reserved memory peaked. */
  allocatedAtPeak: number;
  /** Set when the replay stopped at an OOM (`stopAtOom`). */
  stopped = false;
  /** Frees of blocks the replay never had (a failed allocation, a block in no segment). */
  unknownFrees = 0;
  /** With a capacity: how the state recording began in met it; undefined when it fit as it was (or no capacity). */
  readonly start: RecordingStart | undefined;
  private readonly recorded: RecordedDevice | undefined;
  private readonly device: ObservedDevice;
  private readonly emptyCacheAt: ReadonlySet<number>;
  private readonly afterEvent: ReplayObserver['afterEvent'];
  private readonly unplaced = new Set<number>();
  /** Where the `runTo` under way stops. */
  private stop = 0;
  /** Stacks of the blocks live when recording began (from `segments`, or the event that frees them). */
  private readonly initialStacks = new Map<Block, number>();

  /** Builds the replay in the state recording began in; with `from`, a copy of that replay's state (see `fork`). */
  constructor(
    private readonly snapshot: Snapshot,
    readonly deviceIndex: number,
    readonly options: ReplayOptions,
    from?: AllocatorReplay,
  ) {
    if (from) {
      const recorded = from.recorded;
      if (!recorded) throw new Error('only a replay against the recording forks');
      this.trace = from.trace;
      this.layout = from.layout;
      this.recorded = recorded.clone((m) => this.addMismatch(m));
      this.device = from.device.copyOver(this.recorded, () => this.allocator.reserved);
      this.allocator = new CachingAllocator(this.device, from.allocator.options);
      const copies = this.allocator.copyStateOf(from.allocator);
      this.live = from.live.mapValues((b) => copies.get(b)!);
      for (const [b, stack] of from.initialStacks) {
        const c = copies.get(b);
        if (c) this.initialStacks.set(c, stack);
      }
      for (const address of from.unplaced) this.unplaced.add(address);
      this.emptyCacheAt = from.emptyCacheAt;
      this.afterEvent = undefined;
      this.start = from.start;
      this.position = from.position;
      this.mismatches.push(...from.mismatches);
      this.mismatchCount = from.mismatchCount;
      this.allocations = from.allocations;
      this.atRecordedAddress = from.atRecordedAddress;
      this.segmentEvents = from.segmentEvents;
      this.recordedOoms = from.recordedOoms;
      this.oomsReproduced = from.oomsReproduced;
      this.emptyCacheEvents.push(...from.emptyCacheEvents);
      this.ooms.push(...from.ooms);
      this.peakReserved = from.peakReserved;
      this.peakReservedEvent = from.peakReservedEvent;
      this.allocatedAtPeak = from.allocatedAtPeak;
      this.stopped = from.stopped;
      this.unknownFrees = from.unknownFrees;
      this.stop = from.stop;
      return;
    }
    this.trace = traceOf(snapshot, deviceIndex);
    const segmentsAtEnd = snapshot.segments.filter((s) => s.device === deviceIndex);
    const span = addressSpan(options.totalMemory);
    this.layout = options.layout ?? initialLayout(segmentsAtEnd, this.trace, options.settings, span);
    const initialReserved =
      this.layout.segments.reduce((sum, s) => sum + s.size, 0) +
      this.layout.expandable.reduce((sum, c) => sum + c.mappedAtStart.reduce((t, [p0, p1]) => t + (p1 - p0) * c.pageSize, 0), 0);
    let inner: DeviceMemory;
    if (options.capacity === undefined) {
      this.recorded = new RecordedDevice(this.trace, (m) => this.addMismatch(m));
      inner = this.recorded;
    } else {
      const hints = new AddressHints(this.trace, this.layout.expandable);
      for (const seg of this.layout.segments) hints.use(seg.address, seg.size);
      for (const c of this.layout.expandable) if (c.mappedAtStart.length > 0) hints.reserveHint(c.base);
      inner = new CapacityDevice(options.capacity, initialReserved, hints);
    }
    this.device = new ObservedDevice(inner, () => this.allocator.reserved);
    const allowedMaximum =
      options.memoryFraction !== undefined && options.capacity !== undefined ? Math.floor(options.memoryFraction * options.capacity) : undefined;
    this.allocator = new CachingAllocator(this.device, { settings: options.settings, totalMemory: options.totalMemory, allowedMaximum });
    this.emptyCacheAt = new Set(options.emptyCacheAt ?? []);
    this.afterEvent = options.observer?.afterEvent?.bind(options.observer);
    this.restore();
    if (options.capacity !== undefined) this.start = this.fitStart(Math.min(options.capacity, allowedMaximum ?? Infinity));
    const onSegment = options.observer?.segment?.bind(options.observer);
    if (onSegment) this.allocator.onSegment = (at, kind, ptr, size) => onSegment(at, kind, ptr, size, this.position - 1);
    this.peakReserved = this.allocator.reserved;
    this.allocatedAtPeak = this.allocator.allocated;
    this.segmentEvents = this.layout.segmentEvents;
  }

  /**
   * An independent replay in this one's state, to run on from here while this one stays put (a
   * checkpoint). Only the self-check replay (against the recording, no capacity) forks; the fork has
   * no observer. O(segments and blocks) time and memory.
   */
  fork(): AllocatorReplay {
    return new AllocatorReplay(this.snapshot, this.deviceIndex, { ...this.options, observer: undefined }, this);
  }

  get done(): boolean {
    return this.stopped || this.position >= this.trace.length;
  }

  /** Recorded segment events replayed but not yet matched: the replay makes them with the event after them. */
  get pendingRecorded(): readonly number[] {
    return this.recorded?.pending ?? [];
  }

  get segmentEventsReproduced(): number {
    return this.recorded?.reproduced ?? 0;
  }

  get cudaMallocs(): number {
    return this.device.mallocs;
  }

  get cudaFrees(): number {
    return this.device.frees;
  }

  /** Device calls that failed (with the recorded device: where PyTorch's cudaMalloc or page mapping failed). */
  get deviceFailures(): readonly DeviceFailure[] {
    return this.device.failures;
  }

  /** The stack of an allocated block's allocation (NO_STACK when none was recorded). */
  stackOf(block: Block): number {
    if (block.allocEvent >= 0) return this.trace.stack[block.allocEvent];
    return this.initialStacks.get(block) ?? NO_STACK;
  }

  /** Replays events up to (not including) `end`. */
  runTo(end: number = this.trace.length): this {
    const stop = Math.min(end, this.trace.length);
    this.stop = stop;
    const { action, addr } = this.trace;
    const quiet = this.afterEvent === undefined;
    const rec = this.recorded;
    while (this.position < stop && !this.stopped) {
      const i = this.position;
      // A free_requested completed by the next event changes nothing the replay keeps (see `step`):
      // passed over without a step (a third of most traces' events).
      if (quiet && action[i] === Action.FreeRequested && i + 1 < stop && action[i + 1] === Action.FreeCompleted && addr[i + 1] === addr[i] && !(rec && rec.pending.length > 0)) {
        this.position = i + 1;
        continue;
      }
      this.step();
    }
    if (this.position >= this.trace.length && this.recorded) this.flushQueue();
    return this;
  }

  private addMismatch(m: LazyMismatch): void {
    this.mismatchCount++;
    if (this.mismatches.length < MAX_MISMATCHES) this.mismatches.push({ event: m.event, kind: m.kind, detail: m.detail() });
  }

  /** The allocator in the state recording began in. */
  private restore(): void {
    const a = this.allocator;
    for (const s of this.layout.segments) {
      const pool = s.small ? a.small : a.large;
      a.reserved += s.size;
      pool.cache(a.newSegment(s.address, s.size, s.stream, pool, BEFORE_TRACE));
    }
    for (const c of this.layout.expandable) {
      if (c.mappedAtStart.length === 0) continue;
      const pool = c.small ? a.small : a.large;
      const pageCount = Math.max(Math.ceil((c.seenEnd - c.base) / c.pageSize), Math.ceil(addressSpan(this.options.totalMemory) / c.pageSize));
      const head = a.addExpandableSegment(c.base, c.pageSize, pageCount, c.stream, pool, BEFORE_TRACE);
      const es = head.segment as ExpandableSegment;
      // Map each run: split the unmapped block that holds it, then map its start.
      for (const [p0, p1] of c.mappedAtStart) {
        let block: Block | undefined = head;
        while (block && !(block.ptr <= c.base + p0 * c.pageSize && c.base + p0 * c.pageSize < block.ptr + block.size)) block = block.next;
        if (!block || block.mapped) continue;
        const start = c.base + p0 * c.pageSize;
        if (start > block.ptr) block = splitUnmapped(block, start);
        es.setMapped(p0, p1, true);
        restoreMapped(a, block, (p1 - p0) * c.pageSize);
      }
    }
    this.placeInitialBlocks();
  }

  /** How the state recording began in meets a device of `limit` bytes (see `RecordingStart`); stops the replay where it cannot go on. */
  private fitStart(limit: number): RecordingStart | undefined {
    const a = this.allocator;
    let neededBytes = 0;
    for (const b of this.layout.blocks) neededBytes += roundSize(b.requestedSize, this.options.settings);
    const reservedBytes = a.reserved;
    if (reservedBytes <= limit && neededBytes <= limit) return undefined;
    const facts = { limitBytes: limit, reservedBytes, allocatedBytes: a.allocated, neededBytes };
    if (neededBytes > limit) {
      this.stopped = true;
      return { outcome: 'allocated', ...facts, keptBytes: reservedBytes };
    }
    a.emptyCache();
    this.device.resetCounts();
    const keptBytes = a.reserved;
    if (keptBytes > limit) this.stopped = true;
    return { outcome: keptBytes > limit ? 'reserved' : 'released', ...facts, keptBytes };
  }

  /** Blocks live when recording began, carved out of the free space of their segments (one pass in address order). */
  private placeInitialBlocks(): void {
    const a = this.allocator;
    const owners = [...a.segments]
      .map((s) => {
        const seg = s as CudaSegment | ExpandableSegment;
        return { head: s.head, start: seg.base, end: seg.base + seg.size };
      })
      .sort((x, y) => x.start - y.start);
    const blocks = [...this.layout.blocks].sort((x, y) => x.address - y.address);
    let k = 0;
    let cursor: Block | undefined;
    for (const b of blocks) {
      while (k < owners.length && owners[k].end <= b.address) {
        k++;
        cursor = undefined;
      }
      const owner = owners[k];
      if (!owner || owner.start > b.address) {
        this.unplaced.add(b.address);
        continue;
      }
      cursor ??= owner.head;
      while (cursor && cursor.ptr + cursor.size <= b.address) cursor = cursor.next;
      const found = cursor;
      if (!found || found.ptr > b.address || found.allocated || !found.mapped || b.address + b.size > found.ptr + found.size) {
        this.unplaced.add(b.address);
        continue;
      }
      const block = carve(found, b.address, b.size);
      block.allocated = true;
      block.requestedSize = b.requestedSize;
      block.allocEvent = BEFORE_TRACE;
      a.allocated += block.size;
      a.requested += b.requestedSize;
      this.live.set(b.address, block);
      this.initialStacks.set(block, b.stack);
      cursor = block;
    }
  }

  private step(): void {
    const i = this.position++;
    const t = this.trace;
    const a = t.action[i];
    const rec = this.recorded;
    this.allocator.event = i;
    this.device.event = i;
    if (rec) rec.event = i;
    switch (a) {
      case Action.SegmentAlloc:
      case Action.SegmentFree:
      case Action.SegmentMap:
      case Action.SegmentUnmap:
        if (rec) rec.push(i);
        else if (this.emptyCacheAt.has(i)) this.allocator.emptyCache();
        break;
      case Action.Alloc:
        this.replayAlloc(i);
        break;
      case Action.Oom:
        this.replayOom(i);
        break;
      case Action.FreeRequested: {
        if (rec && rec.pending.length > 0) this.flushQueue();
        // Pending only shows in a segment map: a free completed by the next event replayed now is never seen pending.
        if (i + 1 < this.stop && t.action[i + 1] === Action.FreeCompleted && t.addr[i + 1] === t.addr[i]) break;
        const b = this.live.get(t.addr[i]);
        if (b) b.pendingFree = true;
        break;
      }
      case Action.FreeCompleted:
        if (rec && rec.pending.length > 0) this.flushQueue();
        this.replayFree(i);
        break;
      default:
        this.flushQueue();
        break;
    }
    const reserved = this.allocator.reserved;
    if (reserved > this.peakReserved) {
      this.peakReserved = reserved;
      this.peakReservedEvent = i;
      this.allocatedAtPeak = this.allocator.allocated;
    }
    if (this.afterEvent) this.afterEvent(i, this);
  }

  /** Recorded segment events before an allocation: released by an empty_cache() call, or by the malloc itself? */
  private settleBeforeMalloc(i: number, size: number): void {
    const rec = this.recorded;
    if (!rec || rec.pending.length === 0) return;
    const t = this.trace;
    const first = rec.pending[0];
    if (!isRelease(t.action[first])) return;
    // A snapshot read without stacks cannot tell: the caller reads it again with them.
    if (t.stack[first] === STACK_NOT_READ || t.stack[i] === STACK_NOT_READ) throw new StacksNotReadError();
    const sameContext = t.stack[first] === t.stack[i];
    const byMalloc = !this.allocator.wouldReuse(size, t.stream[i]) && (sameContext || t.stack[first] === NO_STACK);
    if (!byMalloc) this.replayEmptyCache(first);
  }

  private replayEmptyCache(first: number): void {
    const rec = this.recorded!;
    this.emptyCacheEvents.push(first);
    this.allocator.emptyCache();
    const t = this.trace;
    while (rec.pending.length > 0 && isRelease(t.action[rec.pending[0]])) {
      const e = rec.drain();
      const k = e.findIndex((x) => !isRelease(t.action[x]));
      const releases = k < 0 ? e : e.slice(0, k);
      for (const x of releases) this.addMismatch({ event: x, kind: 'missingRelease', detail: () => `PyTorch released ${formatBytesFine(t.size[x])} at ${formatHex(t.addr[x])}; the replay kept it` });
      if (k >= 0) for (const x of e.slice(k)) rec.push(x);
    }
  }

  /** Recorded segment events no allocation explains: an empty_cache() call, or something the replay does not model. */
  private flushQueue(): void {
    const rec = this.recorded;
    if (!rec || rec.pending.length === 0) return;
    const t = this.trace;
    if (isRelease(t.action[rec.pending[0]])) this.replayEmptyCache(rec.pending[0]);
    for (const x of rec.drain()) {
      this.addMismatch({
        event: x,
        kind: isRelease(t.action[x]) ? 'missingRelease' : 'missingSegment',
        detail: () => `PyTorch ${isRelease(t.action[x]) ? 'released' : 'made'} ${formatBytesFine(t.size[x])} at ${formatHex(t.addr[x])} outside any allocation the replay made`,
      });
    }
  }

  private leftoverAfterMalloc(i: number): void {
    const rec = this.recorded;
    if (!rec) return;
    const t = this.trace;
    for (const x of rec.drain()) {
      const release = isRelease(t.action[x]);
      this.addMismatch({
        event: i,
        kind: release ? 'missingRelease' : 'missingSegment',
        detail: () =>
          release
          ? `PyTorch released ${formatBytesFine(t.size[x])} at ${formatHex(t.addr[x])} (event ${x}); the replay kept it`
          : `PyTorch made a ${formatBytesFine(t.size[x])} segment (event ${x}); the replay used a cached block`,
      });
    }
  }

  private replayAlloc(i: number): void {
    const t = this.trace;
    const rec = this.recorded;
    this.allocations++;
    if (rec && rec.pending.length > 0) this.settleBeforeMalloc(i, t.size[i]);
    const block = this.allocator.malloc(t.size[i], t.stream[i]);
    if (rec && rec.pending.length > 0) this.leftoverAfterMalloc(i);
    if (!block) {
      // Whatever the replay held at this address is not what PyTorch handed out here.
      this.live.delete(t.addr[i]);
      if (this.recorded) {
        this.addMismatch({ event: i, kind: 'unexpectedOom', detail: () => `the replay ran out of memory for ${formatBytesFine(t.size[i])}, which PyTorch allocated` });
      } else {
        this.addOom(i, t.size[i], false);
      }
      return;
    }
    if (block.ptr === t.addr[i]) this.atRecordedAddress++;
    else if (this.recorded) {
      this.addMismatch({
        event: i,
        kind: 'address',
        detail: () => `the replay put ${formatBytesFine(t.size[i])} at ${formatHex(block.ptr)}; PyTorch put it at ${formatHex(t.addr[i])}`,
      });
    }
    this.live.set(t.addr[i], block);
  }

  private replayOom(i: number): void {
    const t = this.trace;
    this.recordedOoms++;
    this.settleBeforeMalloc(i, t.size[i]);
    if (this.recorded) this.recorded.expectFailure = true;
    const block = this.allocator.malloc(t.size[i], t.stream[i]);
    if (this.recorded) this.recorded.expectFailure = false;
    this.leftoverAfterMalloc(i);
    if (block) {
      // The program never got this block: it is given back at once.
      this.allocator.free(block);
      if (this.recorded) this.addMismatch({ event: i, kind: 'missedOom', detail: () => `PyTorch ran out of memory for ${formatBytesFine(t.size[i])}; the replay found room` });
      return;
    }
    this.oomsReproduced++;
    this.addOom(i, t.size[i], true);
  }

  private addOom(i: number, requested: number, recorded: boolean): void {
    const a = this.allocator;
    const rounded = roundSize(requested, this.options.settings);
    this.ooms.push({
      event: i,
      requestedBytes: requested,
      reservedBytes: a.reserved,
      allocatedBytes: a.allocated,
      largestFreeBytes: largestCached(a),
      largestFreeForRequestBytes: largestCachedIn(a.poolFor(rounded), this.trace.stream[i]),
      recorded,
    });
    if (!recorded && this.options.stopAtOom) this.stopped = true;
  }

  private replayFree(i: number): void {
    const addr = this.trace.addr[i];
    const block = this.live.take(addr);
    if (!block) {
      if (!this.unplaced.has(addr)) this.unknownFrees++;
      return;
    }
    this.allocator.free(block);
  }
}

/** An expandable segment's address space for a GPU of `totalMemory` bytes (before rounding to pages). */
export function addressSpan(totalMemory: number): number {
  return totalMemory + Math.floor(totalMemory / 8);
}

/** The largest cached free block of any pool and stream. */
export function largestCached(a: CachingAllocator): number {
  let best = 0;
  for (const pool of [a.small, a.large]) {
    for (const stream of pool.streams) best = Math.max(best, largestCachedIn(pool, stream));
  }
  return best;
}

/** The largest cached free block of one pool and stream. */
export function largestCachedIn(pool: CachingAllocator['small'], stream: number): number {
  const list = pool.blocks;
  const last = list.lastBelow(searchKey(stream, Infinity, pool));
  return last !== undefined && last.stream === stream ? last.size : 0;
}

/** Splits a cached free block so that [address, address + size) is a block of its own (returned, not cached). */
function carve(free: Block, address: number, size: number): Block {
  const pool = free.pool;
  pool.blocks.delete(free);
  if (address > free.ptr) {
    const before = new Block(free.ptr, address - free.ptr, free.stream, pool, free.segment);
    before.splice(free.prev, free);
    if (!before.prev) free.segment.head = before;
    free.ptr = address;
    free.size -= before.size;
    pool.cache(before);
  }
  if (free.size > size) {
    const after = new Block(address + size, free.size - size, free.stream, pool, free.segment);
    after.splice(free, free.next);
    free.size = size;
    pool.cache(after);
  }
  return free;
}

/** Splits an unmapped block at `start` (page aligned); returns the part from `start`. */
function splitUnmapped(block: Block, start: number): Block {
  const pool = block.pool;
  pool.unmapped.delete(block);
  const tail = new Block(start, block.ptr + block.size - start, block.stream, pool, block.segment);
  tail.mapped = false;
  tail.splice(block, block.next);
  block.size = start - block.ptr;
  pool.unmapped.insert(block);
  pool.unmapped.insert(tail);
  return tail;
}

/** Maps the first `bytes` of an unmapped block as a cached free block, without a device call (the state before recording). */
function restoreMapped(a: CachingAllocator, block: Block, bytes: number): void {
  const pool = block.pool;
  pool.unmapped.delete(block);
  if (bytes < block.size) {
    const rest = new Block(block.ptr + bytes, block.size - bytes, block.stream, pool, block.segment);
    rest.mapped = false;
    rest.splice(block, block.next);
    pool.unmapped.insert(rest);
    block.size = bytes;
  }
  block.mapped = true;
  pool.cache(block);
  a.reserved += bytes;
}
