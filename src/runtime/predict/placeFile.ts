/**
 * After a prediction, each snapshot file the bootstrap wrote (provisional addresses) is placed on its GPU by
 * the caching allocator's replay (`engine/predict/placement.ts`) and rewritten in place, atomically (a
 * `.partial` file renamed over it), so that PyTorch's viewer and every command of ours read the snapshot
 * the GPU would have recorded. A file that is already placed is left as it is.
 */
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { decodePickle } from '../../engine/pickle/decoder';
import { encodePickle } from '../../engine/pickle/encoder';
import { placePrediction } from '../../engine/predict/placement';
import type { PredictionPlacement } from '../../engine/snapshot/model';

export interface PlacedFile {
  readonly path: string;
  readonly placement: PredictionPlacement;
  readonly bytes: number;
}

/** Reads a provisional prediction, places it, and writes it back; undefined when it was placed already. */
export async function placePredictedFile(path: string): Promise<PlacedFile | undefined> {
  const root = decodePickle(await readFile(path));
  const vramLens = typeof root === 'object' && root !== null && !Array.isArray(root) ? (root as Record<string, unknown>).vram_lens : undefined;
  const predicted = typeof vramLens === 'object' && vramLens !== null ? (vramLens as Record<string, unknown>).predicted : undefined;
  if (typeof predicted === 'object' && predicted !== null && (predicted as Record<string, unknown>).placed === true) return undefined;
  const placed = placePrediction(root);
  const bytes = encodePickle(placed.root);
  const partial = `${path}.partial`;
  try {
    await writeFile(partial, bytes);
    await rename(partial, path);
  } catch (e) {
    await rm(partial, { force: true });
    throw e;
  }
  return { path, placement: placed.placement, bytes: bytes.length };
}
