/** Builds small `Snapshot` models by hand, so tests can state expected figures worked out on paper. */
import type { DeviceTrace, Frame, Segment, Snapshot } from '../../src/core/snapshot/model';
import { Action, NO_STACK } from '../../src/core/snapshot/model';

export interface HandEvent {
  readonly action: 'alloc' | 'free_requested' | 'free_completed' | 'segment_alloc' | 'segment_free';
  readonly addr: number;
  readonly size: number;
  /** Index into the stacks given to `handSnapshot`, or undefined for none. */
  readonly stack?: number;
}

const ACTIONS: Record<HandEvent['action'], Action> = {
  alloc: Action.Alloc,
  free_requested: Action.FreeRequested,
  free_completed: Action.FreeCompleted,
  segment_alloc: Action.SegmentAlloc,
  segment_free: Action.SegmentFree,
};

export function handTrace(device: number, events: readonly HandEvent[]): DeviceTrace {
  return {
    device,
    length: events.length,
    action: Uint8Array.from(events.map((e) => ACTIONS[e.action])),
    addr: Float64Array.from(events.map((e) => e.addr)),
    size: Float64Array.from(events.map((e) => e.size)),
    timeUs: Float64Array.from(events.map((_, i) => 1000 + i)),
    stack: Int32Array.from(events.map((e) => e.stack ?? NO_STACK)),
    stream: new Float64Array(events.length),
    deviceFree: new Map(),
    otherActions: new Map(),
    userMetadata: new Map(),
    compileContext: new Map(),
  };
}

/** A one-device snapshot: frames, stacks (frame indices, innermost first) and device 0's events. */
export function handSnapshot(frames: readonly Frame[], stacks: readonly (readonly number[])[], events: readonly HandEvent[], segments: readonly Segment[] = []): Snapshot {
  return {
    layout: 'torch-2.1+',
    frames,
    stacks,
    traces: [handTrace(0, events)],
    segments,
    externalAnnotations: [],
    allocatorSettings: undefined,
  };
}
