/**
 * The lines table under the chart: the lines of the selected device with their live-at-peak
 * figures, sortable by column, filtered by file, by text in the stack and by minimum size.
 */
import { formatBytes } from '../../../src/engine/text/format';
import { fileLabel, lineLabel, placeOf } from '../../../src/engine/paths/places';
import { el } from '../../shared/dom';
import type { TableFilter } from '../state/lineFilter';
import { compareRows, rowPasses } from '../state/lineFilter';
import type { CellPlaces, LineRow } from '../../../src/protocol/timeline';
import type { SortKey, ViewState } from '../state/state';
import { TABLE_COLUMNS } from '../state/tableColumns';
import type { TableHandlers } from './actions';
import { FIGURE } from '../../../src/engine/analysis/lineFigures';


/** Most rows rendered at once (the filter narrows the rest). */
const MAX_ROWS = 200;

export class LinesTable {
  private rows: readonly LineRow[] = [];
  private shown: LineRow[] = [];
  private places: CellPlaces | undefined;

  constructor(
    private readonly table: HTMLTableElement,
    private readonly more: HTMLElement,
  ) {
    // The figure columns come from the per-line figure registry (tableColumns.ts).
    const headRow = table.tHead?.rows[0];
    for (const column of TABLE_COLUMNS) {
      const th = el('th', 'num', column.header);
      th.scope = 'col';
      th.dataset.sort = column.key;
      th.title = column.title;
      headRow?.append(th);
    }
  }

  /** Hands the table's clicks and keys to `handlers`. */
  wire(handlers: TableHandlers): void {
    const { table } = this;
    for (const th of Array.from(table.tHead?.querySelectorAll<HTMLTableCellElement>('th[data-sort]') ?? [])) {
      th.tabIndex = 0;
      const sort = () => handlers.sort(th.dataset.sort as SortKey);
      th.addEventListener('click', sort);
      th.addEventListener('keydown', (e) => {
        if (e.key === 'Enter' || e.key === ' ') {
          e.preventDefault();
          sort();
        }
      });
    }
    const body = table.tBodies[0];
    const rowOf = (target: EventTarget | null) => {
      const tr = (target as HTMLElement | null)?.closest('tr');
      const index = tr ? Number(tr.dataset.index) : -1;
      return this.shown[index];
    };
    body.addEventListener('click', (e) => {
      const row = rowOf(e.target);
      if (!row) return;
      if ((e.target as HTMLElement).closest('.zoom')) handlers.zoom(row);
      else handlers.select(row);
    });
    body.addEventListener('dblclick', (e) => {
      const row = rowOf(e.target);
      if (row) handlers.open(row);
    });
    body.addEventListener('keydown', (e) => {
      const row = rowOf(e.target);
      if (!row) return;
      if (e.key === 'Enter') handlers.open(row);
      else if (e.key === ' ') handlers.select(row);
      else return;
      e.preventDefault();
    });
  }

  /**
   * Shows the rows that pass the state's filters (with the stack filter's lines), sorted, the selected line
   * marked; `places`: the notebook cells of recorded cell files (their lines are named by cell).
   */
  render(rows: readonly LineRow[], state: ViewState, stackIds: ReadonlySet<number> | undefined, places?: CellPlaces): void {
    this.rows = rows;
    this.places = places;
    const filter: TableFilter = { file: state.filterFile.trim(), stackIds, minBytes: state.minBytes, places };
    const { sortKey: key, sortDescending: descending, focusLine: selectedLine } = state;
    const all = rows.filter((r) => rowPasses(r, filter)).sort(compareRows(key, descending));
    this.shown = all.slice(0, MAX_ROWS);
    for (const th of Array.from(this.table.tHead?.querySelectorAll<HTMLTableCellElement>('th[data-sort]') ?? [])) {
      const active = th.dataset.sort === key;
      th.setAttribute('aria-sort', active ? (descending ? 'descending' : 'ascending') : 'none');
      th.classList.toggle('sorted', active);
      th.classList.toggle('descending', active && descending);
    }
    const body = this.table.tBodies[0];
    const fragment = document.createDocumentFragment();
    this.shown.forEach((row, index) => {
      const tr = el('tr');
      tr.dataset.index = String(index);
      tr.dataset.line = String(row.id);
      tr.tabIndex = 0;
      if (row.id === selectedLine) tr.classList.add('selected');
      tr.title = `${placeOf(row.file, this.places) ? `${lineLabel(row.file, row.line, this.places)} (ran as ${row.file}:${row.line})` : `${row.file}:${row.line}`}\n${row[FIGURE.allocations]} allocations, ${formatBytes(row[FIGURE.allocated])} in all; peak while allocating ${formatBytes(row[FIGURE.peakWhileAllocating])}`;
      const name = el('td', 'col-line');
      const place = placeOf(row.file, this.places);
      name.append(
        el('span', `swatch c${row.color}`),
        el('span', 'file', fileLabel(row.file, this.places)),
        el('span', 'lineno', place ? `, line ${Number(row.line) + place.lineOffset}` : `:${row.line}`),
      );
      const zoom = el('span', 'zoom codicon codicon-target');
      zoom.title = 'Show in the timeline';
      zoom.setAttribute('role', 'button');
      name.append(zoom);
      tr.append(name, ...TABLE_COLUMNS.map((c) => el('td', 'num', c.unit === 'bytes' ? formatBytes(row[c.key]) : String(row[c.key]))));
      fragment.append(tr);
    });
    body.replaceChildren(fragment);
    this.more.textContent =
      all.length > this.shown.length
        ? `${all.length - this.shown.length} more lines: narrow the filter to see them.`
        : all.length === 0 && this.rows.length > 0
          ? 'No line matches the filter.'
          : '';
  }
}
