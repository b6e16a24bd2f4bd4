/**
 * The snapshot summary page. It holds no data of its own: it says `ready`, renders each summary the
 * extension posts, and sends back what the user clicks. Snapshot text (paths, names) is untrusted:
 * it only ever goes into the page through `textContent`.
 */
import { FIGURE, type LineFigureSpec } from '../../src/engine/analysis/lineFigures';
import { describeBucket } from '../../src/engine/analysis/peakBreakdown';
import { formatBytes, formatCount, formatPercent } from '../../src/engine/text/format';
import type { CellPlaces, HostToSummary, SummaryAdvice, SummaryAllocator, SummaryDevice, SummaryFinding, SummaryLine, SummaryModel, SummaryToHost } from '../../src/protocol/summary';
import { isHostToSummary } from '../../src/guards/summary';
import { summaryFigures } from './figures';
import { openLine } from '../shared/openLine';
import { lineLabel, placeOf } from '../../src/engine/paths/places';
import { isCellName } from '../../src/engine/notebook/cellNames';
import { WINDOW_NOTE, windowText } from '../../src/engine/analysis/summary';
import { el } from '../shared/dom';
import { connectHost, onHostMessage } from '../shared/host';
import { selfCheckLines } from '../shared/selfCheckText';

const vscode = connectHost<SummaryToHost>();
const root = document.getElementById('root')!;
/** The registry's figures the table shows, in order. */
const SUMMARY_FIGURES = summaryFigures();
/** The allocator replayed for the device shown, once the host sent it (kept across re-renders of the summary). */
let allocator: SummaryAllocator | undefined;
/** The summary shown. */
let model: SummaryModel | undefined;
/** The notebook cells of the summary shown (its lines are named by cell). */
let places: CellPlaces = {};

/** A `file:line` reference (a notebook cell's: `train.ipynb, cell 7, line 3`): a link when it is on this machine. */
function lineRef(file: string, line: string, mapped: boolean): HTMLElement {
  const label = lineLabel(file, line, places);
  const cell = placeOf(file, places);
  const title = cell ? `${cell.notebook}, cell ${cell.cell + 1} (ran as ${file}:${line})${cell.changed ? '; the cell changed since it ran' : ''}` : `${file}:${line}`;
  if (!mapped) {
    const span = el('span', 'unmapped', label);
    span.title = `${title} (not found on this machine)`;
    return span;
  }
  const link = el('a', 'line-link', label);
  link.href = '#';
  link.title = title;
  link.addEventListener('click', (e) => {
    e.preventDefault();
    vscode.post(openLine({ file, line: Number(line) }));
  });
  return link;
}

function stat(grid: HTMLElement, name: string, value: string | HTMLElement, extra?: HTMLElement, warn = false): void {
  const term = el('dt', undefined, name);
  const detail = el('dd', warn ? 'warn' : undefined);
  if (typeof value === 'string') detail.textContent = value;
  else detail.append(value);
  if (extra) detail.append(' ', extra);
  grid.append(term, detail);
}

function renderDevice(d: SummaryDevice): HTMLElement {
  const section = el('section', 'device');
  const grid = el('dl', 'stats');
  // In a window, events are named by their index in the recording.
  const first = d.window?.firstEvent ?? 0;
  if (d.window !== undefined) stat(grid, 'Window', `${windowText(d.window)}: ${WINDOW_NOTE}`);
  const when = d.peakEventIndex < 0 ? (d.window ? 'when the window opens' : 'before the first recorded event') : `after event ${formatCount(first + d.peakEventIndex)}`;
  const where = d.peakLine ? lineRef(d.peakLine.file, d.peakLine.line, d.peakLine.mapped) : undefined;
  stat(grid, 'Peak allocated', `${formatBytes(d.peakBytes)} ${when}${where ? ' at' : ''}`, where);
  stat(grid, 'Reserved', d.reservedUnknown ?? `peak ${formatBytes(d.peakReservedBytes)}, at the end ${formatBytes(d.finalReservedBytes)}`);
  stat(grid, 'Allocated at start / end', `${formatBytes(d.initialActiveBytes)} / ${formatBytes(d.finalActiveBytes)}`);
  stat(grid, 'Trace', `${formatCount(d.events)} events, ${formatCount(d.allocations)} allocations, ${formatCount(d.linesWithFigures)} source lines`);
  stat(grid, 'Out of memory', d.oomCount === 0 ? 'none' : `${d.oomCount} OOM event${d.oomCount === 1 ? '' : 's'}`, undefined, d.oomCount > 0);
  section.append(grid);
  section.append(renderAllocator(d));

  const heading = el('h2', undefined, 'Top lines');
  section.append(heading);
  if (d.topLines.length === 0) {
    section.append(el('p', 'muted', 'No allocation in this snapshot came from a line of your code (only library or C++ frames, or no stacks were recorded).'));
    return section;
  }
  const table = el('table', 'lines');
  const head = el('tr');
  head.append(el('th', undefined, 'Line'));
  for (const spec of SUMMARY_FIGURES) {
    head.append(el('th', { className: 'num', text: capitalised(spec.label), title: spec.description }));
    if (spec.key === FIGURE.heldAtPeak) head.append(el('th', { className: 'num', text: 'Share', title: 'Share of the device peak' }));
  }
  table.append(el('thead'));
  table.tHead!.append(head);
  const body = el('tbody');
  for (const l of d.topLines) body.append(lineRow(l, d.peakBytes));
  table.append(body);
  // A narrow summary (What If... opens beside it) scrolls the table, not the page.
  section.append(el('div', 'table-box', table));
  if (d.peakBreakdown && d.peakBreakdown.length > 0) section.append(renderBreakdown(d));
  return section;
}

/**
 * The caching allocator replayed for this device: whether the replay can be trusted (the self-check),
 * each recorded OOM explained, and the button that opens the what-if panel. Filled in when the host
 * sends it (`allocator`); until then it says it is replaying.
 */
function renderAllocator(d: SummaryDevice): HTMLElement {
  const section = el('section', 'allocator');
  section.id = 'allocator';
  section.append(el('h2', undefined, 'The caching allocator'));
  const mine = allocator && allocator.device === d.device ? allocator : undefined;
  if (!mine) {
    section.append(el('p', 'muted', 'Replaying the allocator…'));
  } else if ('unavailable' in mine) {
    // No replay (a window of the recording was loaded): the section says why, and offers no prediction.
    section.append(el('p', 'muted', mine.unavailable));
    return section;
  } else {
    const verdict = selfCheckLines(mine.check);
    const check = el('div', verdict.ok ? 'check' : 'check warn');
    for (const text of verdict.lines) check.append(el('p', undefined, text));
    section.append(check);
    const mapped = new Set(mine.mapped);
    for (const o of mine.ooms) {
      const p = el('p', 'oom');
      p.append(`Out of memory at event ${formatCount(o.event)}`);
      if (o.file !== null && o.line !== null) p.append(' (', lineRef(o.file, String(o.line), mapped.has(o.file)), ')');
      p.append(`: ${o.summary}.`);
      section.append(p);
    }
  }
  // Where the replay does not apply, neither do its predictions: no What If... to offer.
  if (mine?.check.notReplayable !== undefined) return section;
  const actions = el('div', 'actions');
  const whatIf = el('button', { text: 'What If...', title: 'Predict peak reserved memory and OOMs with other allocator settings or on another GPU size' });
  whatIf.id = 'what-if';
  whatIf.addEventListener('click', () => vscode.post({ type: 'whatIf', device: d.device }));
  actions.append(whatIf);
  section.append(actions);
  return section;
}

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

function share(bytes: number, peak: number): string {
  return bytes <= 0 ? '' : bytes < peak / 1000 ? '<0.1%' : formatPercent(bytes, peak);
}

function figureText(l: SummaryLine, spec: LineFigureSpec): string {
  const value = l.figures[spec.key];
  if (!(value > 0)) return '—';
  if (spec.unit === 'count') return formatCount(value);
  // Allocated bytes read with their count: "1.5 GiB (x24)".
  return spec.key === FIGURE.allocated ? `${formatBytes(value)} (x${l.figures[FIGURE.allocations]})` : formatBytes(value);
}

function lineRow(l: SummaryLine, peak: number): HTMLTableRowElement {
  const row = el('tr');
  const name = el('td');
  name.append(lineRef(l.file, l.line, l.mapped));
  row.append(name);
  for (const spec of SUMMARY_FIGURES) {
    row.append(el('td', 'num', figureText(l, spec)));
    if (spec.key === FIGURE.heldAtPeak) row.append(el('td', 'num', share(l.figures[spec.key], peak)));
  }
  return row;
}

/** The rest of the peak, named: "backward: BmmBackward0 · 1.2 GiB · 10%" (describeBucket's words). */
function renderBreakdown(d: SummaryDevice): HTMLElement {
  const section = el('section', 'breakdown');
  section.append(el('h2', undefined, 'The rest of the peak'));
  const table = el('table', 'lines');
  const body = el('tbody');
  for (const b of d.peakBreakdown ?? []) {
    body.append(el('tr', {}, el('td', 'bucket', describeBucket(b.kind, b.label)), el('td', 'num', formatBytes(b.bytes)), el('td', 'num', share(b.bytes, d.peakBytes))));
  }
  table.append(body);
  section.append(table);
  return section;
}

const SEVERITY_ICON: Record<SummaryFinding['severity'], string> = { error: 'codicon-error', warning: 'codicon-warning', information: 'codicon-info' };

/** One finding: its title (and line), and its message. Snapshot-level ones show the message; the others fold it away. */
function renderFinding(f: SummaryFinding): HTMLElement {
  const icon = el('span', `codicon ${SEVERITY_ICON[f.severity]}`);
  icon.setAttribute('aria-label', f.severity);
  const head = el('span', 'finding-title', f.title);
  const message = el('p', 'finding-message', f.message);
  const onLine = f.at !== undefined && f.at.mapped;
  if (!onLine) {
    const where = f.at ? el('span', 'muted', ` (${lineLabel(f.at.file, f.at.line, places)}, not found on this machine)`) : undefined;
    return el('div', `finding ${f.severity}`, el('p', 'finding-head', icon, ' ', head, where), message);
  }
  const details = el('details', `finding ${f.severity}`);
  details.append(el('summary', 'finding-head', icon, ' ', head, ' · ', lineRef(f.at.file, f.at.line, true)), message);
  return details;
}

/** The advisor's findings about the device shown: first those about the snapshot as a whole. */
function renderAdvice(advice: SummaryAdvice, device: number): HTMLElement | undefined {
  if (advice.state === 'off') return undefined;
  const section = el('section', 'advice');
  section.id = 'advice';
  section.append(el('h2', undefined, 'Advice'));
  if (advice.state === 'pending') {
    section.append(el('p', 'muted', 'The advisor is reading the snapshot…'));
    return section;
  }
  const mine = advice.findings.filter((f) => f.device === device);
  if (mine.length === 0) {
    section.append(el('p', 'muted', 'No findings: none of the advisor\'s patterns shows on this device.'));
    return section;
  }
  const whole = mine.filter((f) => !f.at?.mapped);
  const onLines = mine.filter((f) => f.at?.mapped);
  for (const f of [...whole, ...onLines]) section.append(renderFinding(f));
  if (onLines.length > 0) section.append(el('p', 'muted', 'Findings about lines of your code are in the Problems panel too, with quick fixes where one is safe.'));
  return section;
}

function render(model: SummaryModel): void {
  places = model.places ?? {};
  const header = el('header');
  header.append(el('h1', undefined, model.label));
  const meta = [model.layout, formatBytes(model.byteLength), model.hasTimes ? 'with timestamps' : 'no timestamps'];
  if (model.path) header.append(el('p', 'path', model.path));
  header.append(el('p', 'muted', meta.join(' · ')));
  const actions = el('div', 'actions');
  // Done once it annotates: the button says so (and does nothing more) rather than sounding busy.
  const annotate = el('button', undefined, model.active ? 'Sources Annotated' : 'Annotate Sources');
  annotate.id = 'annotate';
  annotate.disabled = model.active;
  annotate.title = model.active ? 'This snapshot\'s figures are on your source files now' : 'Show this snapshot\'s figures on your source files';
  annotate.addEventListener('click', () => vscode.post({ type: 'annotate' }));
  actions.append(annotate);
  header.append(actions);

  const parts: HTMLElement[] = [header];
  if (model.devices.length === 0) {
    parts.push(el('p', 'muted', 'This snapshot holds no segments and no trace events: nothing was recorded.'));
  } else {
    if (model.devices.length > 1) {
      const tabs = el('div', 'devices');
      tabs.setAttribute('role', 'tablist');
      for (const d of model.devices) {
        const tab = el('button', d.device === model.selectedDevice ? 'tab selected' : 'tab', `Device ${d.device} · ${formatBytes(d.peakBytes)}`);
        tab.setAttribute('role', 'tab');
        tab.setAttribute('aria-selected', String(d.device === model.selectedDevice));
        tab.addEventListener('click', () => vscode.post({ type: 'selectDevice', device: d.device }));
        tabs.append(tab);
      }
      parts.push(tabs);
    }
    const device = model.devices.find((d) => d.device === model.selectedDevice) ?? model.devices[0];
    parts.push(renderDevice(device));
    const advice = renderAdvice(model.advice, device.device);
    if (advice) parts.push(advice);
  }
  const cells = model.unmappedFiles.filter(isCellName);
  const files = model.unmappedFiles.filter((f) => !isCellName(f));
  if (model.findingFiles !== undefined) {
    const finding = el('p', 'muted finding', `Finding the ${formatCount(model.findingFiles)} recorded files on this machine…`);
    finding.setAttribute('role', 'status');
    parts.push(finding);
  } else if (files.length > 0) {
    const note = el('section', 'unmapped-files');
    note.append(el('h2', undefined, 'Not found on this machine'));
    const list = el('ul');
    const shown = files.slice(0, 10);
    for (const f of shown) list.append(el('li', 'path', f));
    const more = Math.max(model.unmappedCount, files.length) - shown.length;
    if (more > 0) list.append(el('li', 'muted', `… and ${formatCount(more)} more`));
    note.append(list);
    parts.push(note);
  }
  if (cells.length > 0) {
    const note = el('section', 'unmapped-files');
    note.append(el('h2', undefined, 'Notebook cells not found'));
    note.append(
      el(
        'p',
        'muted',
        `${cells.length === 1 ? 'One notebook cell' : `${cells.length} notebook cells`} of this snapshot matched no cell of the notebooks in this workspace: ` +
          'the cell changed since it ran (open its notebook and run it again, or record with %%vram, which keeps the text), or its notebook is not here.',
      ),
    );
    parts.push(note);
  }
  root.replaceChildren(...parts);
}

onHostMessage('summary', isHostToSummary, (message: HostToSummary) => {
  switch (message.type) {
    case 'loading':
      root.replaceChildren(el('p', 'muted', `Reading ${message.label}…`));
      break;
    case 'summary':
      model = message.model;
      render(message.model);
      break;
    case 'allocator':
      allocator = message.allocator;
      if (model) render(model);
      break;
    case 'error': {
      const parts: HTMLElement[] = [el('p', 'error', message.message)];
      if (message.reopen) {
        const reopen = el('button', undefined, 'Reopen in Text Editor');
        reopen.id = 'reopen';
        reopen.addEventListener('click', () => vscode.post({ type: 'reopenAsText' }));
        parts.push(el('div', 'actions', reopen));
      }
      root.replaceChildren(...parts);
      break;
    }
    default:
      break;
  }
});

vscode.post({ type: 'ready' });
