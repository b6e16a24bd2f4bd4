/**
 * The device addresses beneath a predicted run's caching allocator (a CapacityDevice of the GPU's bytes does the
 * accounting: cudaMalloc and page mapping fail past them). Addresses are handed out as a driver does, lowest free
 * range first, aligned to 2 MiB, so that freed segments' ranges are reused. The real driver's choices cannot be
 * known from a machine without the GPU; these are consistent, which is what the snapshot needs (PyTorch's own
 * viewer and our replay read them).
 */
import type { DeviceAddresses } from '../allocator/devices';
import { CapacityDevice } from '../allocator/devices';

/** Where device addresses start (a typical CUDA address on Linux). */
export const DEVICE_BASE = 0x7f00_0000_0000;
const ALIGN = 2 * 1024 * 1024;

export class LowestFreeAddresses implements DeviceAddresses {
  /** Ranges in use, start -> end (address space: segments and expandable reservations). */
  private readonly ranges = new Map<number, number>();

  segment(size: number): number {
    return this.take(size);
  }

  release(ptr: number): void {
    this.ranges.delete(ptr);
  }

  reservation(size: number): number {
    return this.take(size);
  }

  /** The lowest free range of `size` bytes (2 MiB aligned) above the base. */
  private take(size: number): number {
    const length = Math.ceil(Math.max(size, 1) / ALIGN) * ALIGN;
    const taken = [...this.ranges].sort((a, b) => a[0] - b[0]);
    let at = DEVICE_BASE;
    for (const [start, end] of taken) {
      if (at + length <= start) break;
      if (end > at) at = end;
    }
    this.ranges.set(at, at + length);
    return at;
  }
}

/** A predicted GPU of `capacity` bytes, empty at the start. */
export function predictedDevice(capacity: number): CapacityDevice {
  return new CapacityDevice(capacity, 0, new LowestFreeAddresses());
}
