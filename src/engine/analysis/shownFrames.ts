/**
 * Stacks as people read them: the innermost frames of every recorded allocation are the recorder's
 * and the allocator's own (`torch::unwind::unwind()`, `CapturedTraceback::gather`,
 * `CUDACachingAllocator::...::malloc`, the `empty_*` helpers that call it). They say nothing about
 * who asked for the memory, so a stack shown to people starts at the first frame past them, and says
 * how many it hid ("N more frames").
 */

/** Function names of the unwinder, the recorder and the allocator's malloc paths (substrings). */
const INTERNAL_NAMES: readonly string[] = [
  'unwind::unwind',
  'CapturedTraceback::gather',
  'gather_with_cpp',
  'CUDACachingAllocator::',
  'CachingDeviceAllocator',
  'c10::cuda::',
  'c10::Allocator::',
  'at::detail::empty_',
  'at::native::empty_',
  'at::empty_',
  'create_out(',
  'allocate_or_resize_outputs',
];

/** Files that hold only those paths. */
const INTERNAL_FILES: readonly string[] = ['CUDACachingAllocator.cpp', 'memory_snapshot.cpp'];

/** Whether a frame belongs to the unwinder, the recorder or the allocator. */
export function isAllocatorFrame(frame: { readonly name: string; readonly filename: string }): boolean {
  if (INTERNAL_NAMES.some((n) => frame.name.includes(n))) return true;
  const file = frame.filename.replace(/\\/g, '/');
  return INTERNAL_FILES.some((f) => file === f || file.endsWith(`/${f}`));
}

export interface ShownFrames<T> {
  /** From the first meaningful frame on, innermost first. */
  readonly frames: readonly T[];
  /** How many innermost frames were skipped. */
  readonly hidden: number;
}

/**
 * Skips the leading (innermost) run of allocator and unwinder frames. A stack made of nothing else
 * is returned whole: hiding every frame would explain less than showing them.
 */
export function skipAllocatorFrames<T extends { readonly name: string; readonly filename: string }>(frames: readonly T[]): ShownFrames<T> {
  let first = 0;
  while (first < frames.length && isAllocatorFrame(frames[first])) first++;
  if (first === frames.length) return { frames, hidden: 0 };
  return { frames: frames.slice(first), hidden: first };
}
