/** The per-line figures the summary's table shows, in order: the registry's `summary` figures. */
import { LINE_FIGURES, figuresOn, type FigureRegistry, type LineFigureSpec } from '../../src/engine/analysis/lineFigures';

export function summaryFigures(figures: FigureRegistry = LINE_FIGURES): LineFigureSpec[] {
  return figuresOn('summary', figures);
}
