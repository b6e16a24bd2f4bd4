/**
 * The device memory beneath a predicted run's caching allocator: a GPU with so many bytes for PyTorch.
 * cudaMalloc (and the page mapping of expandable segments) fails once the reserved bytes would pass them;
 * addresses are handed out as a driver does, lowest free range first, aligned to 2 MiB, so that freed
 * segments' ranges are reused. The real driver's choices cannot be known from a machine without the GPU;
 * these are consistent, which is what the snapshot needs (PyTorch's own viewer and our replay read them).
 */
import type { DeviceMemory } from '../allocator/cachingAllocator';

/** Where device addresses start (a typical CUDA address on Linux). */
export const DEVICE_BASE = 0x7f00_0000_0000;
const ALIGN = 2 * 1024 * 1024;

export class PredictedDevice implements DeviceMemory {
  /** Bytes of segments and mapped pages. */
  used = 0;
  /** Ranges in use, start -> end (address space: segments and expandable reservations). */
  private readonly ranges = new Map<number, number>();

  constructor(readonly capacity: number) {}

  malloc(size: number): number | undefined {
    if (this.used + size > this.capacity) return undefined;
    this.used += size;
    return this.take(size);
  }

  free(ptr: number, size: number): void {
    this.used -= size;
    this.ranges.delete(ptr);
  }

  reserve(size: number): number {
    return this.take(size);
  }

  map(_ptr: number, size: number): boolean {
    if (this.used + size > this.capacity) return false;
    this.used += size;
    return true;
  }

  unmap(_ptr: number, size: number): void {
    this.used -= size;
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
