/**
 * The cells of a Jupyter notebook file (nbformat 4, the `.ipynb` JSON), as the kernel is given them:
 * each cell's `source` (a string, or a list of strings joined as they are) is the text a frontend
 * sends to run it. Pure: the caller reads the file.
 */

export type CellKind = 'code' | 'markdown' | 'raw';

export interface NotebookCellSource {
  /** 0-based position among all the notebook's cells (markdown and raw cells count). */
  readonly index: number;
  readonly kind: CellKind;
  /** The cell's text now. */
  readonly source: string;
  /** `execution_count` as saved (null in the file: undefined). */
  readonly executionCount?: number;
  /** Texts this cell ran with, newest first, when something watched it run (the editor's execution events). */
  readonly ranSources?: readonly string[];
}

/** A file that is not a notebook we can read. */
export class NotebookFormatError extends Error {
  override readonly name = 'NotebookFormatError';
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function sourceText(value: unknown, where: string): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.every((part) => typeof part === 'string')) return value.join('');
  throw new NotebookFormatError(`${where}: "source" is neither a string nor a list of strings`);
}

const KINDS: ReadonlySet<string> = new Set(['code', 'markdown', 'raw']);

/** The cells of an nbformat 4 notebook given as JSON text. Throws NotebookFormatError otherwise. */
export function parseNotebook(json: string): NotebookCellSource[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json.charCodeAt(0) === 0xfeff ? json.slice(1) : json);
  } catch (e) {
    throw new NotebookFormatError(`not JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (!isRecord(parsed)) throw new NotebookFormatError('not a notebook: the JSON is not an object');
  const format = parsed.nbformat;
  if (typeof format === 'number' && format < 4) {
    throw new NotebookFormatError(`nbformat ${format} notebooks are not read; save it again with Jupyter (nbformat 4)`);
  }
  if (!Array.isArray(parsed.cells)) throw new NotebookFormatError('not a notebook: no "cells" list');
  return parsed.cells.map((cell: unknown, index): NotebookCellSource => {
    const where = `cell ${index + 1}`;
    if (!isRecord(cell)) throw new NotebookFormatError(`${where} is not an object`);
    const type = cell.cell_type;
    const kind: CellKind = typeof type === 'string' && KINDS.has(type) ? (type as CellKind) : 'raw';
    const count = cell.execution_count;
    return {
      index,
      kind,
      source: sourceText(cell.source ?? '', where),
      ...(typeof count === 'number' && Number.isSafeInteger(count) ? { executionCount: count } : {}),
    };
  });
}
