/**
 * What a snapshot tells about the GPU it was recorded on: the memory PyTorch could have had (at an
 * OOM, reserved bytes plus the `device_free` PyTorch reported), and a GPU size to assume where an
 * expandable segment's address space (1.125 times the GPU's memory) matters.
 */
import type { DeviceTrace, Snapshot } from '../snapshot/model';
import { Action } from '../snapshot/model';
import { GiB } from './sizes';

/** Common GPU memory sizes, GiB (the what-if table's columns). */
export const GPU_SIZES_GIB: readonly number[] = [8, 12, 16, 24, 40, 48, 80];

/** Larger cards, for guessing a recorded GPU's size. */
const ALL_GPU_SIZES_GIB: readonly number[] = [...GPU_SIZES_GIB, 94, 141, 192];

/** Reserved bytes after each event of the recorded trace, and before the first (index 0 = initial). */
export function recordedReserved(snapshot: Snapshot, trace: DeviceTrace): Float64Array {
  const finalReserved = snapshot.segments.filter((s) => s.device === trace.device).reduce((sum, s) => sum + s.totalSize, 0);
  let delta = 0;
  for (let i = 0; i < trace.length; i++) {
    const a = trace.action[i];
    if (a === Action.SegmentAlloc || a === Action.SegmentMap) delta += trace.size[i];
    else if (a === Action.SegmentFree || a === Action.SegmentUnmap) delta -= trace.size[i];
  }
  const out = new Float64Array(trace.length + 1);
  out[0] = finalReserved - delta;
  for (let i = 0; i < trace.length; i++) {
    const a = trace.action[i];
    const s = trace.size[i];
    out[i + 1] = out[i] + (a === Action.SegmentAlloc || a === Action.SegmentMap ? s : a === Action.SegmentFree || a === Action.SegmentUnmap ? -s : 0);
  }
  return out;
}

/**
 * The bytes PyTorch's allocator could have had on this device, from the first `oom` event that
 * carries `device_free`: what it had reserved then plus what the device said was free. Undefined
 * when the trace recorded no such OOM.
 */
export function recordedCapacity(snapshot: Snapshot, trace: DeviceTrace): number | undefined {
  for (let i = 0; i < trace.length; i++) {
    if (trace.action[i] !== Action.Oom) continue;
    const free = trace.deviceFree.get(i);
    if (free === undefined) continue;
    return recordedReserved(snapshot, trace)[i] + free;
  }
  return undefined;
}

/** The smallest common GPU size holding `bytes` (at least 8 GiB; the largest listed beyond). */
export function gpuSizeFor(bytes: number): number {
  const size = ALL_GPU_SIZES_GIB.find((g) => g * GiB >= bytes);
  return (size ?? ALL_GPU_SIZES_GIB[ALL_GPU_SIZES_GIB.length - 1]) * GiB;
}

/** A GPU size to assume for the recording: the smallest common one that held what PyTorch reserved (or could have). */
export function assumedTotalMemory(snapshot: Snapshot, trace: DeviceTrace): number {
  // One pass: reserved relative to the start, its peak and its low point (the start is final minus the net change).
  let delta = 0;
  let high = 0;
  let hasOom = false;
  for (let i = 0; i < trace.length; i++) {
    const a = trace.action[i];
    if (a === Action.SegmentAlloc || a === Action.SegmentMap) delta += trace.size[i];
    else if (a === Action.SegmentFree || a === Action.SegmentUnmap) delta -= trace.size[i];
    else if (a === Action.Oom) hasOom = true;
    if (delta > high) high = delta;
  }
  const finalReserved = snapshot.segments.filter((s) => s.device === trace.device).reduce((sum, s) => sum + s.totalSize, 0);
  const peak = finalReserved - delta + high;
  return gpuSizeFor(Math.max(peak, hasOom ? (recordedCapacity(snapshot, trace) ?? 0) : 0));
}
