/**
 * The blocks live at a device's peak with the stack that allocated each (spec: "Live at peak"):
 * after the peak event, the blocks its trace allocated; when the initial state is the peak, the
 * blocks live at the end per `segments`, with their own frames.
 */
import type { DeviceReplay } from './replay';
import { BEFORE_TRACE, liveAfter } from './replay';

export interface LiveBlock {
  readonly stack: number;
  readonly size: number;
  /** Allocation record index, or -1 for a block known only from `segments`. */
  readonly record: number;
}

export function liveAtPeak(replay: DeviceReplay): LiveBlock[] {
  if (replay.peakEventIndex < 0) return replay.liveBlocksAtEnd.map((b) => ({ stack: b.stack, size: b.size, record: -1 }));
  const records = replay.allocations;
  return liveAfter(records, replay.peakEventIndex)
    .filter((r) => records.allocEvent[r] !== BEFORE_TRACE)
    .map((r) => ({ stack: records.stack[r], size: records.size[r], record: r }));
}
