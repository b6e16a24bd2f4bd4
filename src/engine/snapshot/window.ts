/**
 * Loading a window of a recording: which trace entries a device's columns keep, and what the replay
 * of the whole recording has when the window opens, carried in (see `TraceWindow`).
 *
 * Every entry of the recorded trace passes through {@link WindowCarry.event}, kept or not, in order:
 * the carry follows the full replay's rules (spec: "Replay") for what it needs. The replay's initial
 * state depends on the whole trace (a block freed by a later `free_completed` that nothing allocated
 * was live from the start; a block live at the end per `segments` that the trace never allocated was
 * live all along), so the carry also reads the entries after the window, and learns the rest from the
 * device's segments when the trace is built. Its memory is a few bytes per allocation of the
 * recording, where the kept columns cost 29 per event.
 */
import { AddressIndex } from '../base/addressIndex';
import { FloatBuffer, IntBuffer } from '../base/growableArrays';
import { SnapshotFormatError } from './errors';
import type { LoadWindow, Segment, TraceWindow } from './model';
import { Action, NO_STACK } from './model';

/**
 * A window from the words a person writes for its ends (`--from`/`--to`, the editor's prompt): a
 * whole number is an event index (the first event of each device's trace is 0); a number with a unit
 * (`s`, `ms`, `us`) is a time after the first traced event of the file. Either end may be left out
 * (undefined or empty); both must be on the same axis. Returns the window, or why the words are not one.
 */
export function parseLoadWindow(from: string | undefined, to: string | undefined): LoadWindow | undefined | { readonly problem: string } {
  const ends: ({ axis: 'event' | 'time'; value: number } | undefined)[] = [];
  for (const [name, raw] of [
    ['from', from],
    ['to', to],
  ] as const) {
    const text = raw?.trim() ?? '';
    if (text === '') {
      ends.push(undefined);
      continue;
    }
    if (/^\d+$/.test(text)) {
      ends.push({ axis: 'event', value: Number(text) });
      continue;
    }
    const time = /^(\d+(?:\.\d+)?)\s*(s|ms|us)$/.exec(text);
    if (time === null) return { problem: `${name} is an event index (a whole number) or a time after the first event with a unit: 12.5s, 300ms, 1500us` };
    ends.push({ axis: 'time', value: Math.round(Number(time[1]) * TIME_UNITS[time[2] as keyof typeof TIME_UNITS]) });
  }
  const [start, end] = ends;
  if (start === undefined && end === undefined) return undefined;
  if (start !== undefined && end !== undefined && start.axis !== end.axis) return { problem: 'from and to must both be event indices or both be times' };
  if (start !== undefined && end !== undefined && end.value < start.value) return { problem: 'to must not come before from' };
  return { axis: (start ?? end)!.axis, ...(start === undefined ? {} : { from: start.value }), ...(end === undefined ? {} : { to: end.value }) };
}

/** Microseconds per unit of a time window's ends. */
const TIME_UNITS = { s: 1e6, ms: 1e3, us: 1 } as const;

const enum Phase {
  Before,
  In,
  After,
}

/** What the allocations of the recording need to be, for the replay's bookkeeping. */
class Allocations {
  readonly addr = new FloatBuffer(1024);
  /** 1 while the block is live. */
  readonly live = new IntBuffer(1024);
  /** Index of the allocation's record among those made before the window opens (-1 for later ones). */
  readonly before = new IntBuffer(1024);
}

export class WindowCarry {
  private phase = Phase.Before;
  private firstEvent = -1;
  private readonly allocations = new Allocations();
  private readonly latest = new AddressIndex(1024);
  // The allocations made before the window opens, for the blocks carried in.
  private readonly beforeSize = new FloatBuffer(1024);
  private readonly beforeStack = new IntBuffer(1024);
  private readonly beforeEvent = new FloatBuffer(1024);
  private readonly beforeTime = new FloatBuffer(1024);
  // The blocks carried in, as found: live trace allocations when the window opens, then blocks live
  // since before the recording (freed at or after it opens).
  private readonly carried = {
    addr: new FloatBuffer(64),
    size: new FloatBuffer(64),
    stack: new IntBuffer(64),
    allocEvent: new FloatBuffer(64),
    allocTimeUs: new FloatBuffer(64),
  };
  /** The full replay's sums: bytes freed by frees of unallocated addresses, and segment growth and shrink. */
  private freedBeforeTrace = 0;
  private growth = 0;
  private shrink = 0;
  /** Active and reserved deltas before the window opens. */
  private activeBefore = 0;
  private reservedBefore = 0;

  /**
   * @param window what to keep
   * @param origin time 0 of a time window, shared by the traces of a file: the first time read
   */
  constructor(
    private readonly window: LoadWindow,
    private readonly origin: { us: number },
  ) {}

  /** Entry `i` of the recorded trace; true when the window keeps it. */
  event(i: number, action: number, addr: number, size: number, stack: number, timeUs: number): boolean {
    this.advance(i, timeUs);
    const phase = this.phase;
    const a = this.allocations;
    switch (action) {
      case Action.Alloc: {
        if (phase === Phase.Before) this.activeBefore += size;
        const record = a.addr.length;
        a.addr.push(addr);
        a.live.push(1);
        a.before.push(phase === Phase.Before ? this.beforeSize.length : -1);
        if (phase === Phase.Before) {
          this.beforeSize.push(size);
          this.beforeStack.push(stack);
          this.beforeEvent.push(i);
          this.beforeTime.push(timeUs);
        }
        // An address allocated again without a free in between: the newer block replaces it.
        const previous = this.latest.swap(addr, record);
        if (previous >= 0) a.live.set(previous, 0);
        break;
      }
      case Action.FreeCompleted: {
        if (phase === Phase.Before) this.activeBefore -= size;
        const latest = this.latest.get(addr);
        if (latest < 0) {
          // A block live since before the recording: live when the window opens if freed after that.
          this.freedBeforeTrace += size;
          if (phase !== Phase.Before) this.carry(addr, size, NO_STACK, -1, NaN);
        } else {
          a.live.set(latest, 0);
        }
        break;
      }
      case Action.SegmentAlloc:
      case Action.SegmentMap:
        this.growth += size;
        if (phase === Phase.Before) this.reservedBefore += size;
        break;
      case Action.SegmentFree:
      case Action.SegmentUnmap:
        this.shrink += size;
        if (phase === Phase.Before) this.reservedBefore -= size;
        break;
      default:
        break;
    }
    return phase === Phase.In;
  }

  /** The window of the trace, once all of it was read: `recordedEvents` entries, the device's `segments`. */
  finish(recordedEvents: number, segments: readonly Segment[]): TraceWindow {
    if (this.phase === Phase.Before) this.open(recordedEvents);
    // Blocks live at the end per `segments` whose address the trace left free: live all along.
    let liveBeforeTrace = 0;
    for (const segment of segments) {
      for (const block of segment.blocks) {
        if (block.state !== 'active_allocated' && block.state !== 'active_pending_free') continue;
        const latest = this.latest.get(block.address);
        if (latest >= 0 && this.allocations.live.get(latest) === 1) continue;
        liveBeforeTrace += block.requestedSize;
        this.carry(block.address, block.requestedSize, block.stack, -1, NaN);
      }
    }
    const finalReserved = segments.reduce((sum, s) => sum + s.totalSize, 0);
    const c = this.carried;
    return {
      firstEvent: this.firstEvent,
      recordedEvents,
      activeBytes: this.freedBeforeTrace + liveBeforeTrace + this.activeBefore,
      reservedBytes: finalReserved - this.growth + this.shrink + this.reservedBefore,
      carried: { length: c.addr.length, addr: c.addr.take(), size: c.size.take(), stack: c.stack.take(), allocEvent: c.allocEvent.take(), allocTimeUs: c.allocTimeUs.take() },
    };
  }

  /** Moves to the phase entry `i` (at `timeUs`) is in. */
  private advance(i: number, timeUs: number): void {
    if (this.phase === Phase.After) return;
    const { axis, from, to } = this.window;
    if (Number.isNaN(this.origin.us) && !Number.isNaN(timeUs)) this.origin.us = timeUs;
    let at: number;
    if (axis === 'event') {
      at = i;
    } else {
      if (Number.isNaN(timeUs)) {
        throw new SnapshotFormatError(`trace entry ${i} has no time_us (PyTorch 2.0 records none): give the window in events, not in time`);
      }
      at = timeUs - this.origin.us;
    }
    if (this.phase === Phase.Before && (from === undefined || at >= from)) this.open(i);
    if (this.phase === Phase.In && to !== undefined && at >= to) this.phase = Phase.After;
  }

  /** The window opens before entry `i`: the trace's live allocations are carried in. */
  private open(i: number): void {
    this.phase = Phase.In;
    this.firstEvent = i;
    const a = this.allocations;
    for (let r = 0; r < a.addr.length; r++) {
      if (a.live.get(r) !== 1) continue;
      const k = a.before.get(r);
      this.carry(a.addr.get(r), this.beforeSize.get(k), this.beforeStack.get(k), this.beforeEvent.get(k), this.beforeTime.get(k));
    }
  }

  private carry(addr: number, size: number, stack: number, allocEvent: number, allocTimeUs: number): void {
    const c = this.carried;
    c.addr.push(addr);
    c.size.push(size);
    c.stack.push(stack);
    c.allocEvent.push(allocEvent);
    c.allocTimeUs.push(allocTimeUs);
  }
}
