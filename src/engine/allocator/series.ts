/**
 * The allocator's view over time, from the self-check replay: reserved memory and what of it is
 * allocated, the largest cached free block (what one allocation could still get without a new
 * segment), and every segment's (or mapped page range's) life as a span of events.
 */
import type { DeviceTrace } from '../snapshot/model';
import type { ReplayObserver, SegmentEventKind } from './traceReplay';
import { AllocatorReplay, largestCached } from './traceReplay';

/** One segment (or, for expandable segments, one mapped page range) from the event that made it to the one that gave it back. */
export interface SegmentSpan {
  readonly address: number;
  readonly size: number;
  readonly expandable: boolean;
  /** The event whose allocation made it (-1: it existed when recording began). */
  readonly from: number;
  /** The event that released it (-1: still there at the end). */
  readonly to: number;
}

/**
 * Per-event arrays: index i is the state right after event i. A segment event the replay reproduced
 * counts at the event where PyTorch recorded it (the replay makes it while replaying the allocation
 * that follows), so reserved memory here rises and falls where the recording's does.
 */
export interface AllocatorSeriesData {
  readonly initialReserved: number;
  readonly initialAllocated: number;
  readonly initialLargestFree: number;
  readonly reserved: Float64Array;
  readonly allocated: Float64Array;
  readonly largestFree: Float64Array;
  readonly spans: readonly SegmentSpan[];
}

interface OpenSpan {
  address: number;
  size: number;
  expandable: boolean;
  from: number;
}

/** Collects the series while a replay runs; `finish` returns them. */
export class SeriesRecorder implements ReplayObserver {
  private reserved: Float64Array;
  private allocated: Float64Array;
  private largestFree: Float64Array;
  private readonly open: OpenSpan[] = [];
  private readonly closed: SegmentSpan[] = [];
  private initial: { reserved: number; allocated: number; largestFree: number } | undefined;
  private replay: AllocatorReplay | undefined;
  /** The event whose replay made the last segment event, and the latest recorded event written back for it. */
  private replaying = -1;
  private writtenBack = -1;

  constructor(trace: DeviceTrace) {
    this.reserved = new Float64Array(trace.length);
    this.allocated = new Float64Array(trace.length);
    this.largestFree = new Float64Array(trace.length);
  }

  /** The state before the first event (call once the replay is built, before it runs). */
  start(replay: AllocatorReplay): void {
    const a = replay.allocator;
    this.replay = replay;
    this.initial = { reserved: a.reserved, allocated: a.allocated, largestFree: largestCached(a) };
    for (const s of replay.layout.segments) this.open.push({ address: s.address, size: s.size, expandable: false, from: -1 });
    for (const c of replay.layout.expandable) {
      for (const [p0, p1] of c.mappedAtStart) this.open.push({ address: c.base + p0 * c.pageSize, size: (p1 - p0) * c.pageSize, expandable: true, from: -1 });
    }
  }

  segment(event: number, kind: SegmentEventKind, ptr: number, size: number, replaying: number): void {
    if (event < replaying) this.writeBack(event, kind, size, replaying);
    if (kind === 'alloc' || kind === 'map') {
      this.open.push({ address: ptr, size, expandable: kind === 'map', from: event });
      return;
    }
    const end = ptr + size;
    for (let k = this.open.length - 1; k >= 0; k--) {
      const s = this.open[k];
      if (s.expandable !== (kind === 'unmap') || s.address >= end || s.address + s.size <= ptr) continue;
      this.open.splice(k, 1);
      const cut0 = Math.max(s.address, ptr);
      const cut1 = Math.min(s.address + s.size, end);
      this.closed.push({ address: cut0, size: cut1 - cut0, expandable: s.expandable, from: s.from, to: event });
      if (s.address < cut0) this.open.push({ ...s, size: cut0 - s.address });
      if (cut1 < s.address + s.size) this.open.push({ ...s, address: cut1, size: s.address + s.size - cut1 });
    }
  }

  /**
   * The state right after recorded event `at`, which the replay reached while replaying a later event:
   * written over the events from `at` up to that one. Calls come in the recorded order when the replay
   * makes PyTorch's calls in PyTorch's order; a call reproduced out of order is written from the latest
   * recorded event already written back (the events between keep the state before it).
   */
  private writeBack(at: number, kind: SegmentEventKind, size: number, replaying: number): void {
    const a = this.replay?.allocator;
    if (!a) return;
    if (replaying !== this.replaying) {
      this.replaying = replaying;
      this.writtenBack = -1;
    }
    // A new segment is one free block until the allocation that asked for it takes it.
    const largest = kind === 'alloc' ? Math.max(largestCached(a), size) : largestCached(a);
    for (let k = Math.max(at, this.writtenBack); k < replaying; k++) {
      this.reserved[k] = a.reserved;
      this.allocated[k] = a.allocated;
      this.largestFree[k] = largest;
    }
    this.writtenBack = Math.max(this.writtenBack, at);
  }

  afterEvent(event: number, replay: AllocatorReplay): void {
    const a = replay.allocator;
    this.reserved[event] = a.reserved;
    this.allocated[event] = a.allocated;
    this.largestFree[event] = largestCached(a);
  }

  finish(): AllocatorSeriesData {
    const initial = this.initial ?? { reserved: 0, allocated: 0, largestFree: 0 };
    const spans = [...this.closed, ...this.open.map((s) => ({ ...s, to: -1 }))].sort((x, y) => x.from - y.from || x.address - y.address);
    return {
      initialReserved: initial.reserved,
      initialAllocated: initial.allocated,
      initialLargestFree: initial.largestFree,
      reserved: this.reserved,
      allocated: this.allocated,
      largestFree: this.largestFree,
      spans,
    };
  }
}
