/**
 * Which frames are the user's own code (the spec's "user frames"), and the lines they name.
 * Default rule: a source frame (`.py`, line > 0) that is not a library frame (site-packages,
 * dist-packages, `<frozen ...>`, torch.compile output, the standard library).
 */
import { parseCellName } from '../notebook/cellNames';
import type { Frame } from '../snapshot/model';

export interface FrameFilterOptions {
  /** Treat library frames as user frames too (annotate everything that is Python source). */
  readonly includeLibraryFrames?: boolean;
  /** Extra path fragments (case-insensitive, `\` read as `/`) that mark a frame as library code. */
  readonly extraLibraryPaths?: readonly string[];
  /**
   * Count the cells of IPython before ipykernel 6 (`<ipython-input-N-HASH>`, a `<…>` name the default
   * rule reads as library code) as the user's code: on where notebooks are given to map them to.
   */
  readonly ipythonInputCells?: boolean;
}

/** An `<ipython-input-N-HASH>` frame with a line: the code of a cell run by IPython's own compiler. */
export function isIpythonInputFrame(frame: Frame): boolean {
  return frame.line > 0 && frame.filename.startsWith('<ipython-input-') && parseCellName(frame.filename)?.kind === 'ipython-input';
}

const POSIX_STDLIB = /\/lib\/python\d+(\.\d+)?\/(?!site-packages\/|dist-packages\/)/;
const WINDOWS_STDLIB = /\/python\d+\/lib\/(?!site-packages\/|dist-packages\/)/;

/** Prefix of the pseudo-files that stand for an ONNX model's node list (line = node index + 1; see workloads/onnxModelGraph.ts). */
export const ONNX_PSEUDO_FILE_PREFIX = 'onnx:';

/**
 * The Profile VRAM bootstrap (the package src/python/vram_lens/) sits under every profiled stack; it is
 * never the user's code. The extension and the CLI add these to the library paths they pass: the package's
 * folder, and the one-file bootstrap that snapshots recorded before the package name.
 */
export const PROFILER_LIBRARY_PATHS: readonly string[] = ['/src/python/vram_lens/', '/src/python/vram_lens_bootstrap.py'];

export function isSourceFrame(frame: Frame): boolean {
  return frame.line > 0 && (frame.filename.endsWith('.py') || frame.filename.startsWith(ONNX_PSEUDO_FILE_PREFIX));
}

/** Normalised form used by every path comparison: `\` as `/`, lower case. */
export function normalisePath(filename: string): string {
  return filename.replace(/\\/g, '/').toLowerCase();
}

export function isLibraryPath(filename: string, extraLibraryPaths: readonly string[] = []): boolean {
  const path = normalisePath(filename);
  if (path.startsWith('<')) return true;
  if (path.includes('/site-packages/') || path.includes('/dist-packages/') || path.includes('/torchinductor_')) {
    return true;
  }
  if (POSIX_STDLIB.test(path) || WINDOWS_STDLIB.test(path)) return true;
  for (const extra of extraLibraryPaths) {
    if (extra !== '' && path.includes(normalisePath(extra))) return true;
  }
  return false;
}

export type UserFramePredicate = (frame: Frame) => boolean;

export function userFramePredicate(options: FrameFilterOptions = {}): UserFramePredicate {
  const extra = options.extraLibraryPaths ?? [];
  const base: UserFramePredicate = options.includeLibraryFrames ? isSourceFrame : (frame) => isSourceFrame(frame) && !isLibraryPath(frame.filename, extra);
  return options.ipythonInputCells ? (frame) => base(frame) || isIpythonInputFrame(frame) : base;
}
