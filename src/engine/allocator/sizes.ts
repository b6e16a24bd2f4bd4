/**
 * The size rules of PyTorch's CUDA caching allocator (c10/cuda/CUDACachingAllocator.cpp):
 * how a request is rounded into a block size, which pool serves it, and how large a segment a
 * cudaMalloc for it asks for. Pure arithmetic on exact integers below 2^53. The bottom of the allocator
 * model: it imports nothing (settings.ts reads its constants).
 */

/** The settings the size rules read (an `AllocatorSettings` of settings.ts has them). */
export interface SizeSettings {
  /** One entry per power-of-two interval from 1 MiB (`roundup_power2_divisions`), 0 for none. */
  readonly roundupPower2Divisions: readonly number[];
  /** The segment a large request below 10 MiB gets (`kLargeBuffer`, or what expandable segments map). */
  readonly largeSegmentSize: number;
}

export const KiB = 1024;
export const MiB = 1024 * KiB;
export const GiB = 1024 * MiB;

/** Every block is a multiple of 512 bytes (`kMinBlockSize`). */
export const MIN_BLOCK_SIZE = 512;
/** Requests up to 1 MiB go to the small pool (`kSmallSize`). */
export const SMALL_SIZE = MiB;
/** Small-pool segments are 2 MiB (`kSmallBuffer`); so are the small pool's expandable pages. */
export const SMALL_BUFFER = 2 * MiB;
/** Large requests below 10 MiB get a 20 MiB segment (`kLargeBuffer`, `kMinLargeAlloc`). */
export const LARGE_BUFFER = 20 * MiB;
export const MIN_LARGE_ALLOC = 10 * MiB;
/** Larger requests get a segment rounded up to 2 MiB (`kRoundLarge`). */
export const ROUND_LARGE = 2 * MiB;
/** `roundup_power2_divisions` has one entry per power-of-two interval from 1 MiB to 64 GiB. */
export const ROUNDUP_INTERVALS = 16;

/** floor(log2(n)) for a positive integer up to 2^53, exactly (Math.log2 rounds near powers of two). */
export function floorLog2(n: number): number {
  if (n < 2 ** 32) return 31 - Math.clz32(n);
  return 32 + floorLog2(Math.floor(n / 2 ** 32));
}

export function isPowerOfTwo(n: number): boolean {
  return n > 0 && 2 ** floorLog2(n) === n;
}

/** The divisions that apply to a size: the entry of its power-of-two interval (sizes under 1 MiB use the first). */
export function divisionsFor(size: number, settings: SizeSettings): number {
  const index = Math.min(Math.max(0, floorLog2(size) - 20), ROUNDUP_INTERVALS - 1);
  return settings.roundupPower2Divisions[index] ?? 0;
}

/** `roundup_power2_next_division`: up to the next of `divisions` equal steps between two powers of two. */
export function roundupPower2NextDivision(size: number, divisions: number): number {
  if (isPowerOfTwo(size)) return size;
  const floor = 2 ** floorLog2(size);
  const step = floor / 2 ** floorLog2(divisions);
  if (step < 1) return floor * 2;
  const below = Math.floor(size / step) * step;
  return below === size ? size : below + step;
}

/** `round_size`: the block size a request of `size` bytes needs. */
export function roundSize(size: number, settings: SizeSettings): number {
  if (size < MIN_BLOCK_SIZE) return MIN_BLOCK_SIZE;
  const divisions = divisionsFor(size, settings);
  if (divisions > 1 && size > MIN_BLOCK_SIZE * divisions) return roundupPower2NextDivision(size, divisions);
  return MIN_BLOCK_SIZE * Math.ceil(size / MIN_BLOCK_SIZE);
}

/** Whether a rounded size is served by the small pool. */
export function isSmallSize(roundedSize: number): boolean {
  return roundedSize <= SMALL_SIZE;
}

/** `get_allocation_size`: the segment a cudaMalloc makes for a rounded size that no cached block fits. */
export function allocationSize(roundedSize: number, settings: SizeSettings): number {
  if (roundedSize <= SMALL_SIZE) return SMALL_BUFFER;
  if (roundedSize < MIN_LARGE_ALLOC) return settings.largeSegmentSize;
  return ROUND_LARGE * Math.ceil(roundedSize / ROUND_LARGE);
}
