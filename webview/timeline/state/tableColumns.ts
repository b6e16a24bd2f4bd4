/**
 * The figure columns of the timeline's lines table, drawn from the per-line figure registry
 * (src/engine/analysis/lineFigures.ts): the figures with a `table` header, in display order, their
 * short headers for a narrow side bar, and their explanations (the registry's). No DOM: tested in Node.
 */
import { LINE_FIGURES, figuresOn, type FigureRegistry, type LineFigureKey, type LineFigureSpec } from '../../../src/engine/analysis/lineFigures';

/** A figure the table can show (and sort by). */
export type TableFigure = LineFigureKey;

export interface TableColumn {
  readonly key: TableFigure;
  readonly header: string;
  /** The header's tooltip: the registry's label and description. */
  readonly title: string;
  readonly unit: LineFigureSpec['unit'];
}

/** The columns of a registry's `table` figures (tests plant one more). */
export function tableColumns(figures: FigureRegistry = LINE_FIGURES): TableColumn[] {
  return figuresOn('table', figures).map((spec) => ({ key: spec.key, header: spec.table ?? spec.label, title: `${spec.label}: ${spec.description}`, unit: spec.unit }));
}

export const TABLE_COLUMNS: readonly TableColumn[] = tableColumns();

/** The figures the table shows, in column order. */
export const TABLE_FIGURES: readonly TableFigure[] = TABLE_COLUMNS.map((c) => c.key);
