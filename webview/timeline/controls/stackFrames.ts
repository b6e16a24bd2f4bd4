/** Counts behind the pinned block's stack: frames not yet shown and allocator frames skipped. No DOM: tested in Node. */
import type { BlockDetail } from '../../../src/protocol/timeline';

/** Frames of the shown stack the detail does not hold yet (the "N more frames" control). */
export function moreFrames(d: BlockDetail): number {
  return Math.max(0, d.totalFrames - d.frames.length);
}

/** Innermost allocator and unwinder frames the core skipped (`hiddenFrames`, when the core sends it). */
export function allocatorFramesSkipped(d: BlockDetail): number {
  const hidden = (d as { readonly hiddenFrames?: unknown }).hiddenFrames;
  return typeof hidden === 'number' && Number.isInteger(hidden) && hidden > 0 ? hidden : 0;
}
