/**
 * The blocks live at a device's peak (spec: "Live at peak"): right after event peakEventIndex (or in
 * the initial state when it is -1),
 * - the blocks the trace allocated and has not yet freed, each attributed by its `alloc` event's stack;
 * - the blocks live at the end per `segments` that the trace never allocated (live all along), counted
 *   by their requested size and attributed by their block frames;
 * - the pre-recording blocks a later `free_completed` frees: live, but without frames.
 * Their sizes add up to the peak: this set is the one every figure "at the peak" reads.
 */
import type { AllocationRecords, DeviceReplay } from './replay';
import { BEFORE_TRACE, NEVER_FREED, liveAfter } from './replay';
import { NO_STACK } from '../snapshot/model';

/** Where a live block comes from. */
export type LiveBlockOrigin = 'trace' | 'allAlong' | 'beforeRecording';

export interface LiveBlock {
  /** The stack that attributes it (the alloc event's, or the block's own frames), or NO_STACK. */
  readonly stack: number;
  readonly size: number;
  /** Allocation record index in `DeviceReplay.allocations`. */
  readonly record: number;
  readonly origin: LiveBlockOrigin;
}

/** How a replay's allocation record came to be. */
export function recordOrigin(records: AllocationRecords, r: number): LiveBlockOrigin {
  if (records.allocEvent[r] !== BEFORE_TRACE) return 'trace';
  return records.freeEvent[r] === NEVER_FREED ? 'allAlong' : 'beforeRecording';
}

/** The stack that attributes record r: none for pre-recording blocks freed in the trace. */
export function attributingStack(records: AllocationRecords, r: number): number {
  return recordOrigin(records, r) === 'beforeRecording' ? NO_STACK : records.stackOf(r);
}

export function liveAtPeak(replay: DeviceReplay): LiveBlock[] {
  const records = replay.allocations;
  return liveAfter(records, replay.peakEventIndex).map((r) => ({
    stack: attributingStack(records, r),
    size: records.sizeOf(r),
    record: r,
    origin: recordOrigin(records, r),
  }));
}
