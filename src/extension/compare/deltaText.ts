/** The words compare mode puts next to a line and in its hover (pure, no vscode): the registry's figures and words. */
import type { FigureRegistry, LineFigureKey, LineFigureSpec } from '../../engine/analysis/lineFigures';
import { LINE_FIGURES, LINE_RANKING, figureText, figuresOn, lineFigure } from '../../engine/analysis/lineFigures';
import type { LineDelta } from '../../engine/compare/diff';
import { formatDelta } from '../../engine/text/format';

function signed(spec: LineFigureSpec, v: number): string {
  if (spec.unit === 'bytes') return formatDelta(v);
  return v > 0 ? `+${v}` : String(v);
}

/** The first figure of `LINE_RANKING` whose change passes `test`. */
function headline(l: LineDelta, test: (change: number) => boolean): LineFigureKey | undefined {
  return LINE_RANKING.find((key) => test(l.delta[key]));
}

/**
 * The inline text after a changed line, e.g. `-6.1 GiB at peak vs baseline`, within `maxLength`
 * characters (`vramLens.inline.maxLength`): the longest wording of the change that fits, words left out
 * before the figure, and the figure never cut (nothing at all when even it does not fit: the hover has
 * it). Undefined when nothing changed.
 */
export function inlineDeltaText(l: LineDelta, maxLength = Number.POSITIVE_INFINITY): string | undefined {
  const wordings = deltaWordings(l);
  if (wordings.length === 0) return undefined;
  return wordings.find((w) => w.length <= maxLength) ?? '';
}

/**
 * Every wording of the line's change, longest first, each a shortening of the one before: the figure
 * (the first of `LINE_RANKING` that changed) in the registry's words, then `vs baseline` and where it
 * moved from (or `(new vs baseline)`, `(new)`) left out, then a figure of the code it called keeping
 * only `in calls`, then the figure alone.
 */
function deltaWordings(l: LineDelta): string[] {
  const fresh = !l.baseline;
  const key = headline(l, fresh ? (d) => d > 0 : (d) => d !== 0);
  if (key === undefined) return [];
  const spec = lineFigure(key);
  const figure = signed(spec, l.delta[key]);
  const words = `${figure} ${spec.words ?? spec.label}`;
  const moved = l.match === 'text' && l.baseline ? ` (was line ${String(l.baseline.line)})` : '';
  const tails = fresh ? [' (new vs baseline)', ' (new)'] : [` vs baseline${moved}`, ' vs baseline'];
  const out = [...tails.map((tail) => `${words}${tail}`), words];
  if (words.endsWith(' in calls')) out.push(`${figure} in calls`);
  out.push(figure);
  return [...new Set(out)];
}

/** Whether the line got heavier (for the colour): by the first figure of `LINE_RANKING` that changed. */
export function grew(l: LineDelta): boolean {
  const key = headline(l, (d) => d !== 0);
  return key !== undefined && l.delta[key] > 0;
}

/** A Markdown table of the line's figures in both runs (the registry's `compare` figures, by its labels). */
export function hoverMarkdown(l: LineDelta, baselineLabel: string, currentLabel: string, figures: FigureRegistry = LINE_FIGURES): string {
  const cell = (spec: LineFigureSpec, v: number | undefined) => (v === undefined ? '—' : figureText(spec, v));
  const out = [
    `**VRAM Lens compare**: baseline \`${baselineLabel}\`, current \`${currentLabel}\``,
    '',
    '| | baseline | current | change |',
    '|---|--:|--:|--:|',
    ...figuresOn('compare', figures).map(
      (spec) => `| ${spec.label} | ${cell(spec, l.baseline?.figures[spec.key])} | ${cell(spec, l.current?.figures[spec.key])} | ${signed(spec, l.delta[spec.key])} |`,
    ),
  ];
  if (l.match === 'text' && l.baseline) out.push('', `Moved: this statement was line ${String(l.baseline.line)} in the baseline.`);
  if (!l.baseline) out.push('', 'This line has no figures in the baseline run.');
  return out.join('\n');
}
