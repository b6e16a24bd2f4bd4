/**
 * The what-if panel (dist/webview/whatIf.js): the self-check of the device shown, a form (GPU memory,
 * PYTORCH_CUDA_ALLOC_CONF, memory fraction; checked here by form.ts and again by the host), the
 * prediction it asks for, and the table over GPU sizes x settings. It holds no data of its own: the
 * host sends it. Snapshot text (paths) goes into the page through textContent only; a recorded line
 * opens with the one `openLine` message.
 */
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-label/index.js';
import '@vscode-elements/elements/dist/vscode-option/index.js';
import '@vscode-elements/elements/dist/vscode-single-select/index.js';
import '@vscode-elements/elements/dist/vscode-textfield/index.js';
import { formatBytes } from '../../src/engine/text/format';
import { openLine } from '../shared/openLine';
import type { HostToWhatIf, SelfCheckDetails, WhatIfQuestion, WhatIfResult, WhatIfState, WhatIfTable, WhatIfTarget, WhatIfToHost } from '../../src/protocol/whatIf';
import { isHostToWhatIf } from '../../src/guards/whatIf';
import { byId, el } from '../shared/dom';
import { connectHost, onHostMessage } from '../shared/host';
import { selfCheckLines, settingsText } from '../shared/selfCheckText';
import type { FormField } from './form';
import { checkForm, restoreForm } from './form';
import type { LineText } from './whatIfText';
import { BLIND_SPOTS, capacityText, cellText, columnPeakText, gpuSizeText, oomText, resultLines } from './whatIfText';

interface TextField extends HTMLElement {
  value: string;
  invalid: boolean;
}

const host = connectHost<WhatIfToHost, WhatIfState>();
const fields: Record<FormField, TextField> = {
  capacity: byId<TextField>('capacity'),
  allocConf: byId<TextField>('alloc-conf'),
  memoryFraction: byId<TextField>('fraction'),
};
const ui = {
  subtitle: byId('subtitle'),
  device: byId<HTMLElement & { value: string }>('device'),
  check: byId('check'),
  error: byId('form-error'),
  predict: byId('predict'),
  result: byId('result'),
  table: byId('table-box'),
};

/** What the host sent for the device shown. */
let target: WhatIfTarget | undefined;
let check: SelfCheckDetails | undefined;
let nextRequest = 1;
let waitingFor = 0;

const form = restoreForm(host.getState());
for (const key of Object.keys(fields) as FormField[]) fields[key].value = form[key];
byId('blind-spots').textContent = BLIND_SPOTS;

function formState(): WhatIfState {
  return { capacity: fields.capacity.value, allocConf: fields.allocConf.value, memoryFraction: fields.memoryFraction.value };
}

/** A recorded line: a link when its file is on this machine, else plain text with the path in its title. */
function lineRef(line: NonNullable<LineText['line']>, mapped: ReadonlySet<string>): HTMLElement {
  if (!mapped.has(line.file)) return el('span', { className: 'unmapped', text: line.label, title: `${line.file}:${line.line} (not found on this machine)` });
  const link = el('a', { className: 'line-link', text: line.label, title: `${line.file}:${line.line}` });
  link.href = '#';
  link.addEventListener('click', (e) => {
    e.preventDefault();
    host.post(openLine({ file: line.file, line: line.line }));
  });
  return link;
}

function sentence(s: LineText, mapped: ReadonlySet<string>): HTMLElement {
  return el('p', undefined, s.before, s.line ? lineRef(s.line, mapped) : undefined, s.after);
}

function showTarget(t: WhatIfTarget): void {
  const changed = !target || target.snapshotId !== t.snapshotId || target.device !== t.device;
  target = t;
  ui.subtitle.textContent = t.devices.length > 1 ? `${t.label} · device ${t.device}` : t.label;
  ui.device.hidden = t.devices.length < 2;
  ui.device.replaceChildren(
    ...t.devices.map((d) => {
      const o = document.createElement('vscode-option');
      o.setAttribute('value', String(d.device));
      o.textContent = `Device ${d.device} · peak reserved ${d.reservedUnknown ? 'unknown' : formatBytes(d.peakReservedBytes)}`;
      return o;
    }),
  );
  ui.device.value = String(t.device);
  if (changed) {
    check = undefined;
    ui.check.replaceChildren(el('p', 'muted', 'Replaying the allocator with the recorded settings…'));
    ui.result.hidden = true;
    ui.table.replaceChildren(el('p', 'muted', 'Replaying…'));
  }
}

function showCheck(c: SelfCheckDetails): void {
  check = c;
  const verdict = selfCheckLines(c);
  ui.check.classList.toggle('warn', !verdict.ok);
  const recorded = c.capacityBytes !== null ? [el('p', 'muted', `The recording shows PyTorch could have ${formatBytes(c.capacityBytes, 2)} on this device (${c.capacitySource === 'oom' ? 'from its out-of-memory error' : 'where cudaMalloc failed'}); predictions use it unless you enter a GPU memory.`)] : [];
  ui.check.replaceChildren(...verdict.lines.map((text) => el('p', undefined, text)), ...recorded);
  // Where the replay does not apply (the check says why), neither do its predictions: no table, no Predict.
  const applies = c.notReplayable === undefined;
  ui.predict.toggleAttribute('disabled', !applies);
  if (!applies) ui.table.replaceChildren(el('p', 'muted', 'No table over GPU sizes: the replay does not apply to this snapshot (above).'));
}

function showPrediction(question: WhatIfQuestion, r: WhatIfResult, mapped: ReadonlySet<string>): void {
  ui.result.hidden = false;
  const head = el('h2', undefined, 'Prediction');
  const on = el('p', 'muted', `${settingsText(r.settings)} on ${capacityText(r, question, check?.capacityBytes ?? null)}`);
  const list = el('ul', 'figures', ...resultLines(r).map((text) => el('li', undefined, text)));
  if (!r.replayed) {
    // The state recording began in does not fit this GPU: the verdict is the first line, no replay ran.
    list.firstElementChild?.classList.add(r.fits === null ? 'unknown' : 'oom');
    ui.result.replaceChildren(head, on, list);
    return;
  }
  const oom = sentence(oomText(r.oom), mapped);
  oom.classList.add(r.oom ? 'oom' : 'fits');
  ui.result.replaceChildren(head, on, list, oom);
}

function showTable(table: WhatIfTable, mapped: ReadonlySet<string>): void {
  const t = el('table', 'gpu-table');
  const head = el('tr', undefined, el('th', { text: 'GPU', title: 'The memory PyTorch may use' }));
  for (const row of table.rows) {
    const device = target?.devices.find((d) => d.device === target?.device);
    const peak = columnPeakText(row.unlimited.peakReservedBytes, row.kind, device && !device.reservedUnknown ? device.peakReservedBytes : undefined);
    head.append(el('th', { title: row.settings === '' ? 'PyTorch\'s defaults' : row.settings }, el('div', undefined, row.label), el('div', { className: 'muted peak', text: peak.text, title: peak.title })));
  }
  t.append(el('thead', undefined, head));
  const body = el('tbody');
  table.gpuSizesBytes.forEach((size, i) => {
    const tr = el('tr', undefined, el('th', { text: gpuSizeText(size), title: formatBytes(size, 2) }));
    for (const row of table.rows) {
      const cell = cellText(row.cells[i]);
      const td = el('td', { className: cell.fits === undefined ? 'unknown' : cell.fits ? 'fits' : 'oom', title: cell.title }, cell.text);
      if (cell.line) td.append(' ', lineRef(cell.line, mapped));
      tr.append(td);
    }
    body.append(tr);
  });
  t.append(body);
  ui.table.replaceChildren(t);
}

function showFieldError(field: FormField | undefined, message: string): void {
  for (const key of Object.keys(fields) as FormField[]) fields[key].invalid = key === field;
  ui.error.hidden = message === '';
  ui.error.textContent = message;
}

function predict(): void {
  const state = formState();
  host.setState(state);
  const checked = checkForm(state);
  if (!checked.ok) {
    showFieldError(checked.field, checked.message);
    fields[checked.field].focus();
    return;
  }
  showFieldError(undefined, '');
  if (!target) return;
  waitingFor = nextRequest++;
  ui.result.hidden = false;
  ui.result.replaceChildren(el('p', 'muted', 'Replaying…'));
  host.post({ type: 'predict', requestId: waitingFor, question: checked.question });
}

ui.predict.addEventListener('click', predict);
for (const field of Object.values(fields)) {
  field.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') predict();
  });
  field.addEventListener('input', () => host.setState(formState()));
}
ui.device.addEventListener('change', () => {
  const device = Number(ui.device.value);
  if (Number.isInteger(device) && device !== target?.device) host.post({ type: 'selectDevice', device });
});

onHostMessage('whatIf', isHostToWhatIf, (m: HostToWhatIf) => {
  switch (m.type) {
    case 'target':
      showTarget(m.target);
      break;
    case 'check':
      if (target && m.snapshotId === target.snapshotId && m.device === target.device) showCheck(m.check);
      break;
    case 'table':
      if (target && m.snapshotId === target.snapshotId && m.device === target.device) showTable(m.table, new Set(m.mapped));
      break;
    case 'prediction':
      if (m.requestId === waitingFor) showPrediction(m.question, m.result, new Set(m.mapped));
      break;
    case 'error':
      if (m.requestId === waitingFor || m.requestId < 0) {
        const box = m.requestId < 0 ? ui.table : ui.result;
        box.hidden = false;
        box.replaceChildren(el('p', 'error', m.message));
      }
      break;
    case 'empty':
      target = undefined;
      ui.subtitle.textContent = m.message;
      ui.check.replaceChildren();
      ui.result.hidden = true;
      ui.table.replaceChildren();
      break;
  }
});

// Test hooks: the browser tests read what the page shows.
if ((globalThis as { __VRAM_LENS_TEST_HOOKS__?: boolean }).__VRAM_LENS_TEST_HOOKS__) {
  (globalThis as { __vramLensWhatIf?: unknown }).__vramLensWhatIf = { predict, target: () => target };
}
host.post({ type: 'ready' });
