/**
 * The figure columns of the timeline's lines table, drawn from the per-line figure registry
 * (src/engine/analysis/lineFigures.ts): which figures, their short headers for a narrow side bar, and
 * their explanations (the registry's). No DOM: tested in Node.
 */
import type { LineFigureKey, LineFigureSpec } from '../../../src/engine/analysis/lineFigures';
import { lineFigure } from '../../../src/engine/analysis/lineFigures';
import type { LineRow } from '../../../src/protocol/timeline';

/** The registry's figures the table shows, in column order (each one a field of LineRow). */
export const TABLE_FIGURES = ['liveAtPeakBytes', 'inclusiveLiveAtPeakBytes', 'allocBytes'] as const satisfies readonly (LineFigureKey & keyof LineRow)[];

export type TableFigure = (typeof TABLE_FIGURES)[number];

/** Headers short enough to read whole in a 300 px side bar (the registry's label is the tooltip's). */
const HEADERS: Readonly<Record<TableFigure, string>> = {
  liveAtPeakBytes: 'At peak',
  inclusiveLiveAtPeakBytes: 'Incl.',
  allocBytes: 'Alloc.',
};

export interface TableColumn {
  readonly key: TableFigure;
  readonly header: string;
  /** The header's tooltip: the registry's label and description. */
  readonly title: string;
  readonly unit: LineFigureSpec['unit'];
}

export const TABLE_COLUMNS: readonly TableColumn[] = TABLE_FIGURES.map((key) => {
  const spec = lineFigure(key);
  return { key, header: HEADERS[key], title: `${spec.label}: ${spec.description}`, unit: spec.unit };
});
