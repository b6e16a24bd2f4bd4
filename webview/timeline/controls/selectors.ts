/** The snapshot, device and axis selectors above the chart, filled from the host's list. */
import type { AxisKind, SnapshotChoice, Target } from '../../../src/protocol/timeline';
import { deviceOptionLabel } from './statusText';

export interface SelectElement extends HTMLElement {
  value: string;
}

/** Replaces a select's options only when they changed (keeps focus and scroll), then selects `value`. */
function setOptions(select: HTMLElement, items: { value: string; label: string }[], value: string): void {
  const current = Array.from(select.querySelectorAll('vscode-option')).map((o) => `${o.getAttribute('value')}=${o.textContent}`);
  const wanted = items.map((i) => `${i.value}=${i.label}`);
  if (current.join('\n') !== wanted.join('\n')) {
    select.replaceChildren(
      ...items.map((i) => {
        const o = document.createElement('vscode-option');
        o.setAttribute('value', i.value);
        o.textContent = i.label;
        return o;
      }),
    );
  }
  (select as SelectElement).value = value;
}

export function fillSelectors(
  el: { readonly snapshot: SelectElement; readonly device: SelectElement; readonly axis: SelectElement },
  snapshots: readonly SnapshotChoice[],
  target: Target | undefined,
  axis: AxisKind,
): void {
  setOptions(
    el.snapshot,
    snapshots.map((s) => ({ value: s.id, label: s.label })),
    target?.snapshotId ?? '',
  );
  const choice = snapshots.find((s) => s.id === target?.snapshotId);
  const devices = choice?.devices ?? [];
  setOptions(
    el.device,
    devices.map((d) => ({ value: String(d.device), label: deviceOptionLabel(d) })),
    String(target?.device ?? ''),
  );
  el.device.hidden = devices.length <= 1;
  el.axis.value = axis;
  el.axis.toggleAttribute('disabled', !choice?.hasTimes);
  el.axis.title = choice?.hasTimes ? 'X axis' : 'This snapshot has no event times (PyTorch 2.0): events only';
}
