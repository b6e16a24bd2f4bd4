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

/** A change of one figure in words, e.g. `-6.1 GiB at peak`. */
function change(l: LineDelta, key: LineFigureKey): string {
  const spec = lineFigure(key);
  return `${signed(spec, l.delta[key])} ${spec.words ?? spec.label}`;
}

/** The inline text after a changed line, e.g. `-6.1 GiB at peak vs baseline`; undefined when nothing changed. */
export function inlineDeltaText(l: LineDelta): string | undefined {
  if (!l.baseline) {
    const key = headline(l, (d) => d > 0);
    return key === undefined ? undefined : `${change(l, key)} (new vs baseline)`;
  }
  const moved = l.match === 'text' ? ` (was line ${String(l.baseline.line)})` : '';
  const key = headline(l, (d) => d !== 0);
  return key === undefined ? undefined : `${change(l, key)} vs baseline${moved}`;
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
