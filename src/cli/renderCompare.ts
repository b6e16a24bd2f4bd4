/** Plain-text rendering of a comparison: device totals side by side, then the lines that changed most. */
import type { Comparison, LineDelta } from '../engine/compare/diff';
import { formatBytes, formatCount, formatDelta, formatSignedCount } from '../engine/text/format';
import { commonDirectory, placeText, shortPath } from './render';
import type { CellPlaces } from '../engine/paths/places';
import { fileLabel, lineLabel, placeOf } from '../engine/paths/places';
import { FIGURE } from '../engine/analysis/lineFigures';

const W = 12;

function cell(text: string, width = W): string {
  return text.padStart(width);
}

/** A figure a side does not know (null) reads "unknown", and so does its change. */
function totalsRow(label: string, b: number | null, c: number | null, bytes: boolean): string {
  const f = (n: number | null) => (n === null ? 'unknown' : bytes ? formatBytes(n) : formatCount(n));
  const d = b === null || c === null ? 'unknown' : bytes ? formatDelta(c - b) : formatSignedCount(c - b);
  return `  ${label.padEnd(16)}${cell(f(b))}${cell(f(c))}${cell(d)}`;
}

function where(l: LineDelta, base: string, places: CellPlaces | undefined): string {
  const place = placeText(l.file, l.line, places, base);
  if (!l.baseline) return `${place}  (new)`;
  if (!l.current) return `${place}  (gone)`;
  if (l.match === 'text') return `${place}  (was ${placeOf(l.baseline.file, places) ? lineLabel(l.baseline.file, l.baseline.line, places) : `line ${String(l.baseline.line)}`})`;
  return place;
}

/** `places`: the notebook cells of both runs' recorded cell files. */
export function renderComparison(c: Comparison, changed: readonly LineDelta[], top: number, places?: CellPlaces): string {
  const out: string[] = [];
  const b = c.baseline.totals;
  const n = c.current.totals;
  out.push(`baseline  ${c.baseline.label} (device ${c.baseline.device})`);
  out.push(`current   ${c.current.label} (device ${c.current.device})`);
  out.push('');
  out.push(`  ${''.padEnd(16)}${cell('baseline')}${cell('current')}${cell('change')}`);
  out.push(totalsRow('peak allocated', b.peakBytes, n.peakBytes, true));
  out.push(totalsRow('peak reserved', b.peakReservedBytes, n.peakReservedBytes, true));
  out.push(totalsRow('events', b.events, n.events, false));
  out.push(totalsRow('allocations', b.allocations, n.allocations, false));
  if (b.oomCount > 0 || n.oomCount > 0) out.push(totalsRow('out of memory', b.oomCount, n.oomCount, false));
  out.push('');
  if (changed.length === 0) {
    out.push('  No line of your code changed its figures.');
    return out.join('\n') + '\n';
  }
  const rows = changed.slice(0, top);
  const base = commonDirectory(rows.filter((l) => !placeOf(l.file, places)).map((l) => l.file));
  out.push(`  Lines ranked by change in memory live at the peak (${rows.length} of ${changed.length} changed):`);
  if (base.length > 1) out.push(`  files under ${base}`);
  out.push(`  ${cell('Δ live@peak')}${cell('baseline')}${cell('current')}${cell('Δ allocated')}  line`);
  for (const l of rows) {
    out.push(
      `  ${cell(formatDelta(l.delta[FIGURE.heldAtPeak]))}${cell(formatBytes(l.baseline?.figures[FIGURE.heldAtPeak] ?? 0))}${cell(
        formatBytes(l.current?.figures[FIGURE.heldAtPeak] ?? 0),
      )}${cell(formatDelta(l.delta[FIGURE.allocated]))}  ${where(l, base, places)}`,
    );
  }
  const files = [...c.files];
  if (files.length > 0) {
    out.push('');
    out.push(`  ${files.length} file(s) paired across the runs${files.some(([x, y]) => x !== y) ? ' (by path tail):' : '.'}`);
    for (const [x, y] of files) {
      if (x === y) continue;
      const cellOf = placeOf(y, places) && fileLabel(y, places);
      out.push(`    ${shortPath(x)}  ->  ${shortPath(y)}${cellOf ? ` (${cellOf})` : ''}`);
    }
  }
  return out.join('\n') + '\n';
}
