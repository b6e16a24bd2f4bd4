/** Which rows of the lines table show, and in what order (pure, unit-tested). */
import type { CellPlaces, LineRow } from '../../../src/protocol/timeline';
import { lineLabel, placeOf } from '../../../src/engine/paths/places';
import type { SortKey } from './state';
import { FIGURE } from '../../../src/engine/analysis/lineFigures';

export interface TableFilter {
  /**
   * Text the row's name must contain (any case): its recorded file, or the name the table shows
   * (`model.py:39`, `train.ipynb, cell 3, line 2`), or a notebook cell's notebook path.
   */
  readonly file: string;
  /** The notebook cells of recorded cell files (their rows are named by cell). */
  readonly places?: CellPlaces;
  /** Ids of the lines whose stacks contain the stack text; undefined: no stack filter. */
  readonly stackIds: ReadonlySet<number> | undefined;
  /** Rows whose self or inclusive live-at-peak bytes reach this. */
  readonly minBytes: number;
}

export function rowPasses(row: LineRow, filter: TableFilter): boolean {
  if (filter.file && !nameMatches(row, filter.file.toLowerCase(), filter.places)) return false;
  if (filter.stackIds && !filter.stackIds.has(row.id)) return false;
  return Math.max(row[FIGURE.heldAtPeak], row[FIGURE.heldAtPeakWithCalls]) >= filter.minBytes;
}

/** Whether the row's recorded file, shown name or notebook contains `query` (lower case). */
function nameMatches(row: LineRow, query: string, places: CellPlaces | undefined): boolean {
  if (row.file.toLowerCase().includes(query)) return true;
  if (lineLabel(row.file, row.line, places).toLowerCase().includes(query)) return true;
  const place = placeOf(row.file, places);
  return place !== undefined && place.notebook.toLowerCase().includes(query);
}

export function compareRows(key: SortKey, descending: boolean): (a: LineRow, b: LineRow) => number {
  const sign = descending ? -1 : 1;
  if (key === 'line') return (a, b) => sign * (a.file < b.file ? -1 : a.file > b.file ? 1 : a.line - b.line);
  return (a, b) => sign * (a[key] - b[key]) || b[FIGURE.allocated] - a[FIGURE.allocated] || a.id - b.id;
}

/**
 * The lines the chart draws at full strength: the focused line alone, else those passing the file
 * and stack filters; undefined when nothing filters (every line).
 */
export function highlightedLines(
  rows: readonly LineRow[],
  file: string,
  stackIds: ReadonlySet<number> | undefined,
  focusLine: number | undefined,
  places?: CellPlaces,
): ReadonlySet<number> | undefined {
  const filterFile = file.trim().toLowerCase();
  if (!filterFile && !stackIds && focusLine === undefined) return undefined;
  if (focusLine !== undefined) return new Set([focusLine]);
  const ids = new Set<number>();
  const filter = { file: filterFile, stackIds, minBytes: 0, places };
  for (const r of rows) if (rowPasses(r, filter)) ids.add(r.id);
  return ids;
}
