/**
 * Notebooks read from disk for the command line: `.ipynb` files named, or found under folders
 * (hidden folders, checkpoints and installed packages are not searched), and the cell texts our
 * kernel extension writes beside a snapshot.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import * as path from 'node:path';
import type { NotebookSource } from '../../engine/notebook/cellIndex';
import type { RanCell } from '../../engine/notebook/cellTexts';
import { CELL_TEXTS_SUFFIX, parseCellTexts } from '../../engine/notebook/cellTexts';
import { NotebookFormatError, parseNotebook } from '../../engine/notebook/ipynb';

/** Notebooks with outputs can be large; larger than this is not read. */
export const MAX_NOTEBOOK_BYTES = 256 * 1024 * 1024;
/** How many notebooks one folder search reads at most. */
export const MAX_NOTEBOOKS_FOUND = 2000;

const SKIPPED_FOLDERS = new Set(['node_modules', 'site-packages', 'dist-packages', '__pycache__', '.ipynb_checkpoints', 'venv']);

/** A notebook that could not be read, and why. */
export class NotebookFileError extends Error {
  override readonly name = 'NotebookFileError';
}

/** The `.ipynb` files under `folder`, sorted, at most `limit`. */
export function findNotebooks(folder: string, limit = MAX_NOTEBOOKS_FOUND): string[] {
  const found: string[] = [];
  const walk = (dir: string): void => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return; // unreadable folder: nothing found there
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (found.length >= limit) return;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!entry.name.startsWith('.') && !SKIPPED_FOLDERS.has(entry.name)) walk(full);
      } else if (entry.isFile() && entry.name.toLowerCase().endsWith('.ipynb')) {
        found.push(full);
      }
    }
  };
  walk(folder);
  return found;
}

/** One notebook file's cells. @throws NotebookFileError naming the file and why. */
export function readNotebookFile(file: string): NotebookSource {
  let text: string;
  try {
    const stats = statSync(file);
    if (!stats.isFile()) throw new NotebookFileError(`${file}: not a notebook file`);
    if (stats.size > MAX_NOTEBOOK_BYTES) throw new NotebookFileError(`${file}: larger than ${MAX_NOTEBOOK_BYTES / 1024 / 1024} MiB`);
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if (e instanceof NotebookFileError) throw e;
    const code = (e as NodeJS.ErrnoException).code;
    throw new NotebookFileError(code === 'ENOENT' ? `${file}: no such file` : `${file}: cannot read (${code ?? 'unknown error'})`);
  }
  try {
    return { path: file, cells: parseNotebook(text) };
  } catch (e) {
    if (e instanceof NotebookFormatError) throw new NotebookFileError(`${file}: ${e.message}`);
    throw e;
  }
}

/** What `--notebook` arguments name: the notebooks read, and those found in folders that could not be. */
export interface NotebookSearch {
  readonly notebooks: NotebookSource[];
  readonly skipped: string[];
}

/**
 * Reads each argument: an `.ipynb` file (an error when it cannot be read), or a folder searched for
 * them (one that cannot be read is skipped, with the reason in `skipped`).
 */
export function readNotebooks(paths: readonly string[]): NotebookSearch {
  const notebooks: NotebookSource[] = [];
  const skipped: string[] = [];
  const seen = new Set<string>();
  for (const given of paths) {
    let isFolder = false;
    try {
      isFolder = statSync(given).isDirectory();
    } catch {
      // not there: readNotebookFile says so
    }
    for (const file of isFolder ? findNotebooks(given) : [given]) {
      const key = path.resolve(file);
      if (seen.has(key)) continue;
      seen.add(key);
      try {
        notebooks.push(readNotebookFile(file));
      } catch (e) {
        if (!isFolder || !(e instanceof NotebookFileError)) throw e;
        skipped.push(e.message);
      }
    }
  }
  return { notebooks, skipped };
}

/** The cell texts written beside `snapshotPath`, when there are any. */
export function readCellTexts(snapshotPath: string): RanCell[] {
  try {
    const file = snapshotPath + CELL_TEXTS_SUFFIX;
    if (statSync(file).size > MAX_NOTEBOOK_BYTES) return [];
    return parseCellTexts(readFileSync(file, 'utf8'));
  } catch {
    return []; // none beside it
  }
}
