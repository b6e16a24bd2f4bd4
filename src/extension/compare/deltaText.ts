/** The words compare mode puts next to a line and in its hover (pure, no vscode). */
import type { LineDelta } from '../../engine/compare/diff';
import { formatBytes, formatDelta } from '../../engine/text/format';

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

/** Every wording of the line's change, longest first, each ending in a shorter one's words (all start with the figure). */
function deltaWordings(l: LineDelta): string[] {
  const d = l.delta;
  if (!l.baseline) {
    if (d.liveAtPeakBytes > 0) return wordings(`+${formatBytes(d.liveAtPeakBytes)}`, [' at peak', ' (new vs baseline)', ' (new)']);
    if (d.allocBytes > 0) return wordings(`+${formatBytes(d.allocBytes)}`, [' allocated', ' (new vs baseline)', ' (new)']);
    return [];
  }
  const moved = l.match === 'text' ? ` (was line ${String(l.baseline.line)})` : '';
  if (d.liveAtPeakBytes !== 0) return wordings(formatDelta(d.liveAtPeakBytes), [' at peak', ' vs baseline', moved]);
  if (d.allocBytes !== 0) return wordings(formatDelta(d.allocBytes), [' allocated', ' vs baseline', moved]);
  if (d.inclusiveLiveAtPeakBytes !== 0) return wordings(formatDelta(d.inclusiveLiveAtPeakBytes), [' at peak in calls', ' vs baseline', moved], ' in calls');
  return [];
}

/**
 * `figure` with the words of `parts` (the first says what the figure is, the others add to it), from
 * all of them down to the figure alone; `short` is a shorter form of the first part, tried before the
 * figure stands alone. A `(new ...)` part replaces the one before it rather than adding to it.
 */
function wordings(figure: string, parts: readonly string[], short?: string): string[] {
  const [what, ...more] = parts;
  const out: string[] = [];
  if (more[0]?.startsWith(' (new')) {
    for (const tail of more) out.push(`${figure}${what}${tail}`);
  } else {
    for (let n = more.length; n >= 1; n--) {
      const tail = more.slice(0, n).join('');
      if (tail !== '' && !out.includes(`${figure}${what}${tail}`)) out.push(`${figure}${what}${tail}`);
    }
  }
  out.push(`${figure}${what}`);
  if (short !== undefined) out.push(`${figure}${short}`);
  out.push(figure);
  return out;
}

/** Whether the line got heavier (for the colour): by live-at-peak bytes, else by bytes allocated. */
export function grew(l: LineDelta): boolean {
  const d = l.delta;
  return (d.liveAtPeakBytes || d.allocBytes || d.inclusiveLiveAtPeakBytes) > 0;
}

const ROWS: [label: string, key: keyof LineDelta['delta'], bytes: boolean][] = [
  ['live at peak', 'liveAtPeakBytes', true],
  ['live at peak, with calls', 'inclusiveLiveAtPeakBytes', true],
  ['allocated', 'allocBytes', true],
  ['allocated, with calls', 'inclusiveAllocBytes', true],
  ['allocations', 'allocCount', false],
  ['peak while allocating', 'peakBytes', true],
];

/** A Markdown table of the line's figures in both runs. */
export function hoverMarkdown(l: LineDelta, baselineLabel: string, currentLabel: string): string {
  const cell = (v: number | undefined, bytes: boolean) => (v === undefined ? '—' : bytes ? formatBytes(v) : String(v));
  const change = (v: number, bytes: boolean) => (bytes ? formatDelta(v) : v > 0 ? `+${v}` : String(v));
  const out = [
    `**VRAM Lens compare**: baseline \`${baselineLabel}\`, current \`${currentLabel}\``,
    '',
    '| | baseline | current | change |',
    '|---|--:|--:|--:|',
    ...ROWS.map(([label, key, bytes]) => `| ${label} | ${cell(l.baseline?.figures[key], bytes)} | ${cell(l.current?.figures[key], bytes)} | ${change(l.delta[key], bytes)} |`),
  ];
  if (l.match === 'text' && l.baseline) out.push('', `Moved: this statement was line ${String(l.baseline.line)} in the baseline.`);
  if (!l.baseline) out.push('', 'This line has no figures in the baseline run.');
  return out.join('\n');
}
