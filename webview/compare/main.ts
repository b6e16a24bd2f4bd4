/**
 * The comparison results page: totals of both runs, an overlay of their memory curves on a canvas,
 * and the changed lines ranked by change in live-at-peak bytes (links open the source). Everything
 * it shows arrives by postMessage after `ready`; it builds DOM nodes, never HTML strings.
 */
import { FIGURE, lineFigure } from '../../src/engine/analysis/lineFigures';
import { formatBytes, formatCount, formatDelta, formatSignedCount } from '../../src/engine/text/format';
import type { CompareCommand, CompareState, CompareToHost, ComparisonView, FigureValues, HostToCompare, Overlay, OverlayAxis, RowView } from '../../src/protocol/compare';
import { isHostToCompare } from '../../src/guards/compare';
import type { LineAt } from '../../src/protocol/openLine';
import { openLine } from '../shared/openLine';
import { el } from '../shared/dom';
import { connectHost, onHostMessage } from '../shared/host';

const vscode = connectHost<CompareToHost, CompareState>();
const root = document.getElementById('root')!;
let view: ComparisonView | undefined;
let overlay: Overlay | undefined;
let axis: OverlayAxis = vscode.getState()?.axis ?? 'normalized';
let canvas: HTMLCanvasElement | undefined;

function changeCell(value: number, text: string): HTMLTableCellElement {
  return el('td', { className: `num ${value > 0 ? 'up' : value < 0 ? 'down' : 'same'}`, text });
}

function commandButton(label: string, command: CompareCommand): HTMLButtonElement {
  const b = el('button', { text: label });
  b.addEventListener('click', () => vscode.post({ type: 'runCommand', command }));
  return b;
}

function renderTotals(v: ComparisonView): HTMLElement {
  const rows: [string, number | null, number | null, boolean][] = [
    ['Peak allocated', v.baseline.totals.peakBytes, v.current.totals.peakBytes, true],
    ['Peak reserved', v.baseline.totals.peakReservedBytes, v.current.totals.peakReservedBytes, true],
    ['Events', v.baseline.totals.events, v.current.totals.events, false],
    ['Allocations', v.baseline.totals.allocations, v.current.totals.allocations, false],
    ['Out of memory', v.baseline.totals.oomCount, v.current.totals.oomCount, false],
  ];
  const body = el('tbody');
  for (const [label, b, c, bytes] of rows) {
    // A figure a side does not know (the snapshot records no reserved memory) reads "unknown", and so does its change.
    const f = (n: number | null) => (n === null ? 'unknown' : bytes ? formatBytes(n) : formatCount(n));
    // Bytes and OOMs: more is worse (coloured); event and allocation counts are neutral.
    const change =
      b === null || c === null
        ? el('td', { className: 'num', text: 'unknown' })
        : bytes || label === 'Out of memory'
          ? changeCell(c - b, bytes ? formatDelta(c - b) : formatSignedCount(c - b))
          : el('td', { className: 'num', text: formatSignedCount(c - b) });
    body.appendChild(el('tr', {}, el('th', { className: 'lead', text: label }), el('td', { className: 'num', text: f(b) }), el('td', { className: 'num', text: f(c) }), change));
  }
  const head = el('thead', {}, el('tr', {}, el('th', 'lead'), el('th', { className: 'num', text: 'Baseline' }), el('th', { className: 'num', text: 'Current' }), el('th', { className: 'num', text: 'Change' })));
  return el('table', { className: 'totals' }, head, body);
}

function renderOverlaySection(v: ComparisonView): HTMLElement {
  const select = el('select', { title: 'Horizontal axis' });
  const options: [OverlayAxis, string][] = [
    ['normalized', 'Progress (0-100% of each run)'],
    ['event', 'Event index'],
    ['time', 'Time since the first event'],
  ];
  for (const [value, label] of options) {
    const o = el('option', { text: label });
    o.value = value;
    o.disabled = value === 'time' && !v.hasTimes;
    o.selected = value === axis;
    select.appendChild(o);
  }
  select.addEventListener('change', () => {
    axis = select.value as OverlayAxis;
    vscode.setState({ axis });
    vscode.post({ type: 'setAxis', axis });
  });
  canvas = el('canvas', { className: 'overlay' });
  canvas.setAttribute('role', 'img');
  canvas.setAttribute('aria-label', 'Memory allocated over the run: baseline and current');
  // Each entry keeps its swatch and word; a long run label ends in an ellipsis (the full label on hover), and
  // entries go onto lines of their own when the panel is narrow.
  const entry = (side: 'baseline' | 'current', label: string) =>
    el('span', { className: 'entry', title: `${side}: ${label}` }, el('span', { className: `swatch ${side}` }), el('span', { className: 'side', text: side }), el('span', { className: 'label', text: label }));
  const legend = el('div', { className: 'legend' }, entry('baseline', v.baseline.label), entry('current', v.current.label));
  return el('section', {}, el('div', { className: 'bar' }, el('h2', { text: 'Memory allocated over the run' }), select), canvas, legend);
}

/** A button that opens the recorded line `at`; plain text when it cannot be opened. */
function lineLink(at: LineAt | null, content: string | HTMLElement): HTMLElement {
  if (!at) return el('span', {}, content);
  const b = el('button', { className: typeof content === 'string' ? 'link' : 'link place-link' }, content);
  b.addEventListener('click', () => vscode.post(openLine(at)));
  return b;
}

/**
 * `folder/file.py:12` in a cell of any width: the folder gives way first (an ellipsis in the middle of
 * the path), then the file name (an ellipsis at its end); `:12` always shows. Never broken over lines.
 */
function placeText(place: string): HTMLElement {
  const colon = place.lastIndexOf(':');
  const path = colon > 0 ? place.slice(0, colon) : place;
  const line = colon > 0 ? place.slice(colon) : '';
  const slash = path.lastIndexOf('/');
  return el(
    'span',
    'path',
    el('span', { className: 'dir', text: slash >= 0 ? path.slice(0, slash + 1) : '' }),
    el('span', { className: 'name', text: path.slice(slash + 1) }),
    el('span', { className: 'line', text: line }),
  );
}

function note(r: RowView): string {
  switch (r.match) {
    case 'baseline':
      return 'only in baseline';
    case 'current':
      return 'new';
    case 'text':
      return `moved from line ${r.baselineLine ?? '?'}`;
    default:
      return '';
  }
}

function figure(values: FigureValues | null, key: keyof FigureValues): string {
  return values ? formatBytes(values[key]) : '—';
}

/** A cell the narrow layout hides (see compare.css). */
function wide<T extends HTMLElement>(cell: T): T {
  cell.classList.add('wide');
  return cell;
}

function renderLines(v: ComparisonView): HTMLElement {
  const body = el('tbody');
  v.rows.forEach((r) => {
    // Line first: beside the editor the table is narrow, and the line is what a row is about.
    const line = r.currentLine ?? r.baselineLine;
    const place = el('td', { className: 'lead place', title: line === null ? r.file : `${r.file}:${line}` }, lineLink(r.currentAt ?? r.baselineAt, placeText(r.place)));
    const remark = note(r);
    if (remark || (r.match === 'text' && r.baselineAt !== null)) {
      const extra = el('span', 'muted note', remark);
      if (r.match === 'text' && r.baselineAt !== null) extra.append(' ', lineLink(r.baselineAt, 'open baseline'));
      place.append(extra);
    }
    body.appendChild(
      el(
        'tr',
        {},
        place,
        changeCell(r.delta[FIGURE.heldAtPeak], formatDelta(r.delta[FIGURE.heldAtPeak])),
        el('td', { className: 'num', text: figure(r.baseline, FIGURE.heldAtPeak) }),
        el('td', { className: 'num', text: figure(r.current, FIGURE.heldAtPeak) }),
        wide(changeCell(r.delta[FIGURE.allocated], formatDelta(r.delta[FIGURE.allocated]))),
        wide(changeCell(r.delta[FIGURE.heldAtPeakWithCalls], formatDelta(r.delta[FIGURE.heldAtPeakWithCalls]))),
      ),
    );
  });
  const head = el(
    'thead',
    {},
    el(
      'tr',
      {},
      el('th', { className: 'lead place', text: 'Line' }),
      el('th', { className: 'num', text: `Δ ${lineFigure(FIGURE.heldAtPeak).label}` }),
      el('th', { className: 'num', text: 'Baseline' }),
      el('th', { className: 'num', text: 'Current' }),
      wide(el('th', { className: 'num', text: `Δ ${lineFigure(FIGURE.allocated).label}` })),
      wide(el('th', { className: 'num', text: `Δ ${lineFigure(FIGURE.heldAtPeakWithCalls).label}`, title: lineFigure(FIGURE.heldAtPeakWithCalls).description })),
    ),
  );
  const caption = v.rows.length === 0 ? 'No line of your code changed its figures.' : `${v.rows.length} of ${v.changedLineCount} changed lines, largest change in memory live at the peak first`;
  return el('section', {}, el('h2', { text: 'Lines' }), el('p', { className: 'muted', text: caption }), el('table', { className: 'lines' }, head, body));
}

function render(): void {
  if (!view) return;
  root.replaceChildren(
    el(
      'header',
      {},
      el('h1', { text: 'Compare runs' }),
      el('p', { className: 'runs' }, el('span', { text: `Baseline: ${view.baseline.label}`, title: `Baseline: ${view.baseline.label}` }), el('span', { text: `Current: ${view.current.label}`, title: `Current: ${view.current.label}` })),
      el('div', { className: 'actions' }, commandButton('Compare Other Snapshots…', 'compareSnapshots'), commandButton('Leave Compare Mode', 'exitCompareMode')),
    ),
    renderTotals(view),
    renderOverlaySection(view),
    renderLines(view),
  );
  draw();
}

function cssColor(name: string, fallback: string): string {
  return getComputedStyle(document.body).getPropertyValue(name).trim() || fallback;
}

function draw(): void {
  if (!canvas || !overlay) return;
  const ratio = window.devicePixelRatio || 1;
  const width = canvas.clientWidth;
  const height = canvas.clientHeight;
  canvas.width = Math.round(width * ratio);
  canvas.height = Math.round(height * ratio);
  const g = canvas.getContext('2d');
  if (!g) return;
  g.setTransform(ratio, 0, 0, ratio, 0, 0);
  g.clearRect(0, 0, width, height);
  const values = [...overlay.baseline, ...overlay.current].filter((v): v is number => v !== null);
  const max = Math.max(1, ...values);
  const left = 70;
  const bottom = height - 20;
  const top = 8;
  const plotWidth = Math.max(1, width - left - 8);
  const n = overlay.x.length;
  const y = (v: number) => bottom - ((bottom - top) * v) / max;
  const foreground = cssColor('--vscode-descriptionForeground', '#888');
  g.font = `11px ${cssColor('--vscode-font-family', 'sans-serif')}`;
  g.fillStyle = foreground;
  g.strokeStyle = cssColor('--vscode-editorWidget-border', '#8884');
  g.lineWidth = 1;
  for (const f of [0, 0.5, 1]) {
    const yy = y(max * f);
    g.beginPath();
    g.moveTo(left, yy);
    g.lineTo(left + plotWidth, yy);
    g.stroke();
    g.fillText(formatBytes(max * f), 4, yy + 4);
  }
  const unit = overlay.axis === 'normalized' ? '100%' : overlay.axis === 'time' ? `${(overlay.extent / 1e6).toFixed(2)} s` : `${Math.round(overlay.extent)} events`;
  g.fillText(unit, left + plotWidth - g.measureText(unit).width, height - 4);
  g.fillText('0', left, height - 4);
  const series: [readonly (number | null)[], string, number[]][] = [
    [overlay.baseline, cssColor('--vscode-charts-blue', '#3794ff'), [5, 3]],
    [overlay.current, cssColor('--vscode-charts-orange', '#d18616'), []],
  ];
  for (const [points, color, dash] of series) {
    g.strokeStyle = color;
    g.lineWidth = 1.5;
    g.setLineDash(dash);
    g.beginPath();
    let pen = false;
    points.forEach((v, i) => {
      if (v === null) {
        pen = false;
        return;
      }
      const xx = left + (plotWidth * (i + 0.5)) / n;
      if (pen) g.lineTo(xx, y(v));
      else g.moveTo(xx, y(v));
      pen = true;
    });
    g.stroke();
  }
  g.setLineDash([]);
}

onHostMessage('compare', isHostToCompare, (message: HostToCompare) => {
  switch (message.type) {
    case 'comparison':
      view = message.view;
      if (axis === 'time' && !view.hasTimes) axis = 'normalized';
      render();
      return;
    case 'overlay':
      overlay = message.overlay;
      draw();
      return;
    case 'error':
      root.appendChild(el('p', { className: 'error', text: message.message }));
      return;
    default:
      return;
  }
});

new ResizeObserver(() => draw()).observe(document.body);
// Theme changes swap the body's classes: re-read the colours.
new MutationObserver(() => draw()).observe(document.body, { attributes: true, attributeFilter: ['class'] });
vscode.post({ type: 'ready' });
if (axis !== 'normalized') vscode.post({ type: 'setAxis', axis });
