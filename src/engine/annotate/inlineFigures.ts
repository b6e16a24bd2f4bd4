/**
 * The quiet text after an annotated line, short and first things first: by default only what the line
 * holds at the peak and its share, `3.2 GiB at peak (14%)`. The figures a user may choose are the
 * per-line figures of the registry (`LINE_FIGURES`), each in its short inline form (`inlineForm`).
 * Text never exceeds its budget: figures that do not fit are dropped whole (the hover has them all),
 * never cut.
 */
import type { LineFigures } from '../analysis/lines';
import type { FigureRegistry, LineFigureKey } from '../analysis/lineFigures';
import { FIGURE, LINE_FIGURES, currentFigureKey, inlineForm, lineFigure } from '../analysis/lineFigures';

export const DEFAULT_INLINE_FIGURES: readonly LineFigureKey[] = [FIGURE.heldAtPeak];

/** The default budget of the inline text, in characters. */
export const DEFAULT_INLINE_MAX_LENGTH = 30;

const SEPARATOR = ' · ';

/** The registry's figures named in `chosen` (unknown names dropped), in the user's order, each once. */
export function inlineFigureChoice(chosen: unknown, figures: FigureRegistry = LINE_FIGURES): LineFigureKey[] {
  if (!Array.isArray(chosen)) return [...DEFAULT_INLINE_FIGURES];
  const known = new Set<string>(figures.map((f) => f.key));
  const out: LineFigureKey[] = [];
  for (const c of chosen) {
    if (typeof c !== 'string') continue;
    // A figure named by the key it had before it was renamed (a setting written then) is the same figure.
    const key = known.has(c) ? (c as LineFigureKey) : currentFigureKey(c, figures);
    if (key !== undefined && !out.includes(key)) out.push(key);
  }
  return out;
}

export type InlineTextBuilder = (f: LineFigures, peakBytes: number, maxLength: number) => string;

/** The inline text function for one choice of figures (the choice is looked at once, not per line). */
export function inlineTextBuilder(chosen: readonly LineFigureKey[], figures: FigureRegistry = LINE_FIGURES): InlineTextBuilder {
  const parts = chosen.map((key) => ({ key, short: inlineForm(lineFigure(key, figures)) }));
  return (f, peakBytes, maxLength) => {
    let text = '';
    for (const { key, short } of parts) {
      const value = f[key];
      if (!(value > 0)) continue;
      const part = short(value, peakBytes);
      const next = text === '' ? part : `${text}${SEPARATOR}${part}`;
      if (next.length <= maxLength) text = next;
    }
    return text;
  };
}

/** The inline text of one line, e.g. `3.2 GiB at peak (14%)`; empty when nothing applies or fits. */
export function inlineText(
  f: LineFigures,
  peakBytes: number,
  figures: readonly LineFigureKey[] = DEFAULT_INLINE_FIGURES,
  maxLength = DEFAULT_INLINE_MAX_LENGTH,
): string {
  return inlineTextBuilder(figures)(f, peakBytes, maxLength);
}
