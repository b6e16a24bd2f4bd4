/**
 * The memory beneath the replayed allocator. `CapacityDevice` is a GPU with so many bytes for
 * PyTorch: cudaMalloc and page mapping fail past that. `RecordedDevice` answers as the recording
 * says the real device answered: a cudaMalloc succeeded (at the recorded address) when PyTorch
 * recorded a `segment_alloc` for it, failed when PyTorch went on to release cached memory instead,
 * and every segment event the replay makes is checked against the recorded ones.
 */
import type { DeviceTrace } from '../snapshot/model';
import { Action } from '../snapshot/model';
import type { DeviceMemory } from './cachingAllocator';
import { SMALL_BUFFER } from './sizes';
import { formatBytesFine, formatHex } from '../text/format';

/** Where made-up addresses start: above any real GPU address, below 2^53. */
const SYNTHETIC_BASE = 2 ** 52;

/** Addresses for segments whose real address cannot be known, handed out upwards. */
export class AddressSource {
  private next = SYNTHETIC_BASE;
  clone(): AddressSource {
    const copy = new AddressSource();
    copy.next = this.next;
    return copy;
  }
  take(size: number): number {
    const at = this.next;
    this.next += Math.ceil(Math.max(size, 1) / SMALL_BUFFER) * SMALL_BUFFER;
    return at;
  }
}

/**
 * Addresses for a prediction's new segments: where the recording put a segment of that size (or an
 * expandable segment of that stream and pool), when that range is free, so that a prediction under
 * the recorded settings lays blocks out as PyTorch did; made-up addresses otherwise.
 */
export class AddressHints implements DeviceAddresses {
  /** Recorded segment_alloc addresses per size, in trace order (repeats kept), and the next one to offer. */
  private readonly bySize = new Map<number, number[]>();
  private readonly cursor = new Map<number, number>();
  private readonly expandable: { base: number; stream: number; small: boolean }[];
  private readonly live = new Map<number, number>();
  private readonly synthetic = new AddressSource();

  constructor(trace: DeviceTrace, expandable: readonly { base: number; stream: number; small: boolean }[]) {
    for (let i = 0; i < trace.length; i++) {
      if (trace.action[i] !== Action.SegmentAlloc) continue;
      const list = this.bySize.get(trace.size[i]) ?? [];
      list.push(trace.addr[i]);
      this.bySize.set(trace.size[i], list);
    }
    this.expandable = [...expandable];
  }

  /** Marks a range as in use (segments that exist when the replay starts). */
  use(ptr: number, size: number): void {
    this.live.set(ptr, size);
  }

  release(ptr: number): void {
    this.live.delete(ptr);
  }

  private isFree(ptr: number, size: number): boolean {
    for (const [base, bytes] of this.live) if (ptr < base + bytes && base < ptr + size) return false;
    return true;
  }

  /** The next recorded address for a segment of this size that is free now (in recorded order, wrapping round). */
  segment(size: number): number {
    const list = this.bySize.get(size) ?? [];
    const start = this.cursor.get(size) ?? 0;
    let ptr: number | undefined;
    for (let k = 0; k < list.length && ptr === undefined; k++) {
      const j = (start + k) % list.length;
      if (this.isFree(list[j], size)) {
        ptr = list[j];
        this.cursor.set(size, j + 1);
      }
    }
    ptr ??= this.synthetic.take(size);
    this.use(ptr, size);
    return ptr;
  }

  /** Expandable segments in use, by base (their address space is only estimated, so bases are compared). */
  private readonly reservations = new Set<number>();

  reserveHint(base: number): void {
    this.reservations.add(base);
  }

  reservation(size: number, stream: number, small: boolean): number {
    const ptr = this.expandable.find((c) => c.stream === stream && c.small === small && !this.reservations.has(c.base))?.base ?? this.synthetic.take(size);
    this.reservations.add(ptr);
    return ptr;
  }
}

/** Where a device's segments and expandable reservations go: the addresses a recording chose (AddressHints), or
 * a driver's rule where there is no recording (LowestFreeAddresses, engine/predict/predictedDevice.ts). */
export interface DeviceAddresses {
  segment(size: number): number;
  release(ptr: number): void;
  reservation(size: number, stream: number, small: boolean): number;
}

/** A GPU with `capacity` bytes for PyTorch: cudaMalloc and page mapping fail once the bytes in use would pass it. */
export class CapacityDevice implements DeviceMemory {
  constructor(
    readonly capacity: number,
    public used: number,
    private readonly addresses: DeviceAddresses,
  ) {}
  malloc(size: number): number | undefined {
    if (this.used + size > this.capacity) return undefined;
    this.used += size;
    return this.addresses.segment(size);
  }
  free(ptr: number, size: number): void {
    this.used -= size;
    this.addresses.release(ptr);
  }
  reserve(size: number, stream: number, small: boolean): number {
    return this.addresses.reservation(size, stream, small);
  }
  map(_ptr: number, size: number): boolean {
    if (this.used + size > this.capacity) return false;
    this.used += size;
    return true;
  }
  unmap(_ptr: number, size: number): void {
    this.used -= size;
  }
}

/** A difference between the replay and the recording, at the event where it showed. */
export interface Mismatch {
  readonly event: number;
  readonly kind: MismatchKind;
  readonly detail: string;
}

/** A mismatch whose words are written only if it is kept (a replay far off its recording finds millions). */
export interface LazyMismatch {
  readonly event: number;
  readonly kind: MismatchKind;
  readonly detail: () => string;
}

export type MismatchKind =
  | 'address'
  | 'extraSegment'
  | 'missingSegment'
  | 'segmentSize'
  | 'extraRelease'
  | 'missingRelease'
  | 'unexpectedOom'
  | 'missedOom'
  | 'unknownFree'
  | 'unplacedBlock';

const NONE: number[] = [];

export class RecordedDevice implements DeviceMemory {
  /** Recorded segment events not yet matched, in trace order. */
  private queue: number[] = [];
  private addresses = new AddressSource();
  /** The allocation being replayed is the one PyTorch could not satisfy (an `oom` event). */
  expectFailure = false;
  /** The event being replayed, for the mismatches. */
  event = -1;
  reproduced = 0;
  /** The recorded event the last call reproduced (-1: none). */
  recordedEvent = -1;
  constructor(
    private readonly trace: DeviceTrace,
    private readonly onMismatch: (m: LazyMismatch) => void,
  ) {}

  get pending(): readonly number[] {
    return this.queue;
  }

  /** A device in the same state, reporting its mismatches to `onMismatch` (a forked replay's). */
  clone(onMismatch: (m: LazyMismatch) => void): RecordedDevice {
    const copy = new RecordedDevice(this.trace, onMismatch);
    copy.queue = this.queue.slice();
    copy.addresses = this.addresses.clone();
    copy.expectFailure = this.expectFailure;
    copy.event = this.event;
    copy.reproduced = this.reproduced;
    copy.recordedEvent = this.recordedEvent;
    return copy;
  }

  push(event: number): void {
    this.queue.push(event);
  }

  /** The recorded segment events nothing in the replay matched; the queue is emptied. */
  drain(): number[] {
    if (this.queue.length === 0) return NONE;
    const left = this.queue;
    this.queue = [];
    return left;
  }

  private head(): number | undefined {
    return this.queue[0];
  }

  private isRelease(e: number): boolean {
    const a = this.trace.action[e];
    return a === Action.SegmentFree || a === Action.SegmentUnmap;
  }

  /** Consumes the first queued event of `action` at `ptr` of `size`, if any. */
  private take(action: Action, ptr: number, size: number): boolean {
    const t = this.trace;
    const k = this.queue.findIndex((e) => t.action[e] === action && t.addr[e] === ptr && t.size[e] === size);
    this.recordedEvent = k < 0 ? -1 : this.queue[k];
    if (k < 0) return false;
    this.queue.splice(k, 1);
    this.reproduced++;
    return true;
  }

  private mismatch(kind: MismatchKind, detail: () => string): void {
    this.onMismatch({ event: this.event, kind, detail });
  }

  malloc(size: number): number | undefined {
    const e = this.head();
    const t = this.trace;
    this.recordedEvent = -1;
    if (e === undefined) {
      if (this.expectFailure) return undefined;
      this.mismatch('extraSegment', () => `the replay made a ${formatBytesFine(size)} segment where PyTorch reused a cached block`);
      return this.addresses.take(size);
    }
    if (this.isRelease(e)) return undefined;
    this.queue.shift();
    if (t.action[e] === Action.SegmentAlloc && t.size[e] === size) {
      this.reproduced++;
      this.recordedEvent = e;
      return t.addr[e];
    }
    this.mismatch('segmentSize', () => `the replay made a ${formatBytesFine(size)} segment where PyTorch made ${formatBytesFine(t.size[e])} (event ${e})`);
    return t.action[e] === Action.SegmentAlloc ? t.addr[e] : this.addresses.take(size);
  }

  free(ptr: number, size: number): void {
    if (!this.take(Action.SegmentFree, ptr, size)) this.mismatch('extraRelease', () => `the replay freed the ${formatBytesFine(size)} segment at ${formatHex(ptr)}, which PyTorch kept`);
  }

  reserve(size: number): number {
    const t = this.trace;
    const e = this.queue.find((x) => t.action[x] === Action.SegmentMap);
    return e === undefined ? this.addresses.take(size) : t.addr[e];
  }

  map(ptr: number, size: number): boolean {
    const e = this.head();
    this.recordedEvent = -1;
    if (e === undefined) {
      if (this.expectFailure) return false;
      this.mismatch('extraSegment', () => `the replay mapped ${formatBytesFine(size)} at ${formatHex(ptr)} where PyTorch mapped nothing`);
      return true;
    }
    if (this.isRelease(e)) return false;
    if (this.take(Action.SegmentMap, ptr, size)) return true;
    const t = this.trace;
    this.queue.shift();
    this.mismatch('segmentSize', () => `the replay mapped ${formatBytesFine(size)} at ${formatHex(ptr)} where PyTorch mapped ${formatBytesFine(t.size[e])} at ${formatHex(t.addr[e])} (event ${e})`);
    return true;
  }

  unmap(ptr: number, size: number): void {
    if (!this.take(Action.SegmentUnmap, ptr, size)) this.mismatch('extraRelease', () => `the replay unmapped ${formatBytesFine(size)} at ${formatHex(ptr)}, which PyTorch kept mapped`);
  }
}
