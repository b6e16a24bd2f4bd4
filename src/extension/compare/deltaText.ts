/** The words compare mode puts next to a line and in its hover (pure, no vscode). */
import type { LineDelta } from '../../engine/compare/diff';
import { formatBytes, formatDelta } from '../../engine/text/format';

/** The inline text after a changed line, e.g. `-6.1 GiB at peak vs baseline`; undefined when nothing changed. */
export function inlineDeltaText(l: LineDelta): string | undefined {
  const d = l.delta;
  if (!l.baseline) return d.liveAtPeakBytes > 0 ? `+${formatBytes(d.liveAtPeakBytes)} at peak (new vs baseline)` : d.allocBytes > 0 ? `+${formatBytes(d.allocBytes)} allocated (new vs baseline)` : undefined;
  const moved = l.match === 'text' ? ` (was line ${String(l.baseline.line)})` : '';
  if (d.liveAtPeakBytes !== 0) return `${formatDelta(d.liveAtPeakBytes)} at peak vs baseline${moved}`;
  if (d.allocBytes !== 0) return `${formatDelta(d.allocBytes)} allocated vs baseline${moved}`;
  if (d.inclusiveLiveAtPeakBytes !== 0) return `${formatDelta(d.inclusiveLiveAtPeakBytes)} at peak in calls vs baseline${moved}`;
  return undefined;
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
