/**
 * A replay's allocation records: one per block lifetime, column-wise. A record made from an event of the
 * trace (an alloc, or the free of a block allocated before the trace) keeps only its event indices and
 * reads its address, size and stack from that event; only the blocks no event names (carried in from
 * before a window, first; live all along, last) keep their own. 8 bytes a record where copies of the
 * trace's columns took 28: a 100 MB snapshot's replay holds 13-17 MB less, and writes that much less.
 */
import type { DeviceTrace } from '../snapshot/model';
import { FloatBuffer, IntBuffer } from '../base/growableArrays';

/** An allocation's event index when it happened before recording began. */
export const BEFORE_TRACE = -1;
/**
 * An allocation's event index when the trace allocated it before the window a snapshot was loaded
 * with (its time is the window's `carried.allocTimeUs`: carried-in records come first, in order).
 */
export const BEFORE_WINDOW = -2;
/** An allocation's free event index when it is still live at the end. */
export const NEVER_FREED = -1;

/** Allocations column-wise; index r is one block's lifetime. */
export interface AllocationRecords {
  readonly count: number;
  /** Index of the `alloc` event, or BEFORE_TRACE / BEFORE_WINDOW. */
  readonly allocEvent: Int32Array;
  /** Index of the `free_completed` event, or NEVER_FREED. */
  readonly freeEvent: Int32Array;
  /** The block's address. */
  addrOf(r: number): number;
  /** The block's size: its alloc event's (its free event's when allocated before the trace; the bytes asked for, for a block live all along). */
  sizeOf(r: number): number;
  /** The stack of its alloc event (of its free event, or of the block in `segments`, when the trace never allocated it). */
  stackOf(r: number): number;
  /** Every record's address, size and stack as columns, made when first read (for views that walk them all). */
  readonly addr: Float64Array;
  readonly size: Float64Array;
  readonly stack: Int32Array;
}

/** The records of blocks no event of the trace names: their address, size and stack. */
class OwnRecords {
  readonly addr = new FloatBuffer(16);
  readonly size = new FloatBuffer(16);
  readonly stack = new IntBuffer(16);
  push(addr: number, size: number, stack: number): void {
    this.addr.push(addr);
    this.size.push(size);
    this.stack.push(stack);
  }
}

/**
 * Where record r's fields are: the trace event it was made from (>= 0: its alloc, or, for a block allocated
 * before the trace, its free), or -1 - its index in `own` for the records that keep their own fields (those
 * below `ownBefore`, at their index; those from `ownFrom` on, after them).
 */
function fieldsAt(r: number, allocEvent: number, freeEvent: number, ownBefore: number, ownFrom: number): number {
  if (r < ownBefore) return -1 - r;
  if (r >= ownFrom) return -1 - (ownBefore + r - ownFrom);
  return allocEvent >= 0 ? allocEvent : freeEvent;
}

/**
 * Records while the trace is replayed: those carried in (before any other), then one per alloc and per
 * free of a block allocated before the trace, in event order, then those live all along. Sized by an upper
 * bound of their number (`capacity`): the slots never written cost address space, not memory.
 */
export class RecordBuilder {
  private readonly allocEvents: IntBuffer;
  private readonly freeEvents: IntBuffer;
  private readonly own = new OwnRecords();
  private ownBefore = 0;
  private ownFrom = Number.MAX_SAFE_INTEGER;

  constructor(
    private readonly trace: DeviceTrace,
    capacity: number,
  ) {
    this.allocEvents = new IntBuffer(capacity);
    this.freeEvents = new IntBuffer(capacity);
  }

  get count(): number {
    return this.allocEvents.length;
  }

  /** A block a window carries in (before every record of the trace). */
  addCarried(addr: number, size: number, allocEvent: number, stack: number): number {
    if (this.count !== this.ownBefore) throw new Error('carried records come first');
    this.ownBefore++;
    this.own.push(addr, size, stack);
    return this.push(allocEvent, NEVER_FREED);
  }

  /** The block allocated by event `event` (still live). */
  addAlloc(event: number): number {
    return this.push(event, NEVER_FREED);
  }

  /** A block allocated before the trace that event `event` frees. */
  addFreedBeforeTrace(event: number): number {
    return this.push(BEFORE_TRACE, event);
  }

  /** A block live all along (after every record of the trace). */
  addLiveAllAlong(addr: number, size: number, stack: number): number {
    if (this.ownFrom === Number.MAX_SAFE_INTEGER) this.ownFrom = this.count;
    this.own.push(addr, size, stack);
    return this.push(BEFORE_TRACE, NEVER_FREED);
  }

  freeEvent(r: number): number {
    return this.freeEvents.get(r);
  }

  /** Record r's block is freed by event `event`. */
  setFreeEvent(r: number, event: number): void {
    this.freeEvents.set(r, event);
  }

  addrOf(r: number): number {
    const at = fieldsAt(r, this.allocEvents.get(r), this.freeEvents.get(r), this.ownBefore, this.ownFrom);
    return at >= 0 ? this.trace.addr[at] : this.own.addr.get(-1 - at);
  }

  build(): AllocationRecords {
    return new TraceRecords(this.trace, this.own, this.ownBefore, Math.min(this.ownFrom, this.count), this.allocEvents.take(), this.freeEvents.take());
  }

  private push(allocEvent: number, freeEvent: number): number {
    this.allocEvents.push(allocEvent);
    this.freeEvents.push(freeEvent);
    return this.allocEvents.length - 1;
  }
}

/** The records of a finished replay. */
class TraceRecords implements AllocationRecords {
  readonly count: number;
  private addrColumn: Float64Array | undefined;
  private sizeColumn: Float64Array | undefined;
  private stackColumn: Int32Array | undefined;

  constructor(
    private readonly trace: DeviceTrace,
    private readonly own: OwnRecords,
    private readonly ownBefore: number,
    private readonly ownFrom: number,
    readonly allocEvent: Int32Array,
    readonly freeEvent: Int32Array,
  ) {
    this.count = allocEvent.length;
  }

  addrOf(r: number): number {
    const at = this.fieldsAt(r);
    return at >= 0 ? this.trace.addr[at] : this.own.addr.get(-1 - at);
  }

  sizeOf(r: number): number {
    const at = this.fieldsAt(r);
    return at >= 0 ? this.trace.size[at] : this.own.size.get(-1 - at);
  }

  stackOf(r: number): number {
    const at = this.fieldsAt(r);
    return at >= 0 ? this.trace.stack[at] : this.own.stack.get(-1 - at);
  }

  get addr(): Float64Array {
    return (this.addrColumn ??= this.column(new Float64Array(this.count), (r) => this.addrOf(r)));
  }

  get size(): Float64Array {
    return (this.sizeColumn ??= this.column(new Float64Array(this.count), (r) => this.sizeOf(r)));
  }

  get stack(): Int32Array {
    return (this.stackColumn ??= this.column(new Int32Array(this.count), (r) => this.stackOf(r)));
  }

  private fieldsAt(r: number): number {
    return fieldsAt(r, this.allocEvent[r], this.freeEvent[r], this.ownBefore, this.ownFrom);
  }

  private column<T extends Float64Array | Int32Array>(into: T, value: (r: number) => number): T {
    for (let r = 0; r < into.length; r++) into[r] = value(r);
    return into;
  }
}
