/**
 * The cell that loads VRAM Lens's kernel extension (`src/python/vram_lens/notebook.py`) into the user's
 * own Jupyter kernel: the package's folder on `sys.path`, the folder the extension watches for the
 * snapshots, then `%load_ext`. Free of `vscode`: the kernel tests run the very text the command inserts.
 */

/** The environment variable that tells the kernel extension where to write its snapshots (notebook.py reads it). */
export const SNAPSHOT_DIR_VARIABLE = 'VRAM_LENS_NOTEBOOK_DIR';
/** The kernel extension's module, under the extension's `src/python`. */
export const KERNEL_MODULE = 'vram_lens.notebook';

/** Paths are written as JSON strings, which Python reads as the same strings (quotes, backslashes, any Unicode). */
export function loadExtensionCell(pythonDir: string, snapshotDir: string): string {
  return (
    `import os, sys; sys.path.insert(0, ${JSON.stringify(pythonDir)}); os.environ[${JSON.stringify(SNAPSHOT_DIR_VARIABLE)}] = ${JSON.stringify(snapshotDir)}\n` +
    `%load_ext ${KERNEL_MODULE}`
  );
}
