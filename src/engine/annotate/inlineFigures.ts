/**
 * The quiet text after an annotated line, short and first things first: by default only what the line
 * holds at the peak and its share, `3.2 GiB at peak (14%)`. The figures a user may choose are the
 * per-line figures of the registry (`LINE_FIGURES`); each has a short inline form here, and a figure the
 * registry gains later shows with its registry label until it gets one. Text never exceeds its budget:
 * figures that do not fit are dropped whole (the hover has them all), never cut.
 */
import type { LineFigures } from '../analysis/lines';
import type { LineFigureKey, LineFigureSpec } from '../analysis/lineFigures';
import { LINE_FIGURES, LINE_FIGURE_KEYS } from '../analysis/lineFigures';
import { formatBytes, formatPercent } from '../text/format';

export const DEFAULT_INLINE_FIGURES: readonly LineFigureKey[] = ['liveAtPeakBytes'];

/** The default budget of the inline text, in characters. */
export const DEFAULT_INLINE_MAX_LENGTH = 30;

const SEPARATOR = ' · ';

type Short = (value: number, peakBytes: number) => string;

/** Short inline forms of the registry's figures (figures without one read `<value> <label>`). */
const SHORT: Partial<Record<LineFigureKey, Short>> = {
  liveAtPeakBytes: (v, peak) => `${formatBytes(v)} at peak (${formatPercent(v, peak)})`,
  inclusiveLiveAtPeakBytes: (v, peak) => `${formatBytes(v)} at peak in calls (${formatPercent(v, peak)})`,
  allocBytes: (v) => `+${formatBytes(v)}`,
  inclusiveAllocBytes: (v) => `+${formatBytes(v)} in calls`,
  allocCount: (v) => `x${v}`,
  peakBytes: (v) => `peak ${formatBytes(v)}`,
  inclusivePeakBytes: (v) => `peak ${formatBytes(v)} in calls`,
  freedBytes: (v) => `-${formatBytes(v)} freed`,
};

function generic(spec: LineFigureSpec): Short {
  return (v) => `${spec.unit === 'bytes' ? formatBytes(v) : String(v)} ${spec.label}`;
}

/** The registry's figures named in `chosen` (unknown names dropped), in the user's order, each once. */
export function inlineFigureChoice(chosen: unknown): LineFigureKey[] {
  if (!Array.isArray(chosen)) return [...DEFAULT_INLINE_FIGURES];
  const out: LineFigureKey[] = [];
  for (const c of chosen) if (typeof c === 'string' && (LINE_FIGURE_KEYS as readonly string[]).includes(c) && !out.includes(c as LineFigureKey)) out.push(c as LineFigureKey);
  return out;
}

export type InlineTextBuilder = (f: LineFigures, peakBytes: number, maxLength: number) => string;

/** The inline text function for one choice of figures (the choice is looked at once, not per line). */
export function inlineTextBuilder(figures: readonly LineFigureKey[]): InlineTextBuilder {
  const parts = figures.map((key) => {
    const spec = LINE_FIGURES.find((s) => s.key === key)!;
    return { key, short: SHORT[key] ?? generic(spec) };
  });
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
