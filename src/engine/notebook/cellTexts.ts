/**
 * The texts of the cells that ran while a snapshot was recorded, written beside it by our kernel
 * extension (`<snapshot>.cells.json`): a cell edited since still finds its place (`cellIndex.ts`),
 * and its recorded lines are read against the code that ran. Pure: the caller reads the file.
 */

/** The file beside a snapshot that holds its cell texts. */
export const CELL_TEXTS_SUFFIX = '.cells.json';

export const CELL_TEXTS_FORMAT = 'vram-lens-cells';

/** One cell that ran: the name its code ran under, its text, its execution count when the kernel had one. */
export interface RanCell {
  readonly file: string;
  readonly source: string;
  readonly executionCount?: number;
}

/** The cells of a `.cells.json` file; malformed entries are skipped, a file of another format gives none. */
export function parseCellTexts(json: string): RanCell[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return [];
  }
  if (typeof parsed !== 'object' || parsed === null) return [];
  const { format, cells } = parsed as { format?: unknown; cells?: unknown };
  if (format !== CELL_TEXTS_FORMAT || !Array.isArray(cells)) return [];
  const out: RanCell[] = [];
  for (const cell of cells as unknown[]) {
    if (typeof cell !== 'object' || cell === null) continue;
    const { file, source, executionCount } = cell as Record<string, unknown>;
    if (typeof file !== 'string' || typeof source !== 'string') continue;
    out.push({ file, source, ...(typeof executionCount === 'number' && Number.isSafeInteger(executionCount) ? { executionCount } : {}) });
  }
  return out;
}
