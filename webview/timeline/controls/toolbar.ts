/**
 * The page's controls around the chart: zoom buttons, the pinned block's panel (frames, "N more
 * frames"), the snapshot, device, axis and view (blocks or allocator) selectors, the table filters, the buttons that ask the
 * host to run a command, and the status line. The page's actions (pageActions.ts) do what they ask;
 * this module reads events and shows what it is told.
 */
import type { AxisKind, SnapshotChoice, Target, TimelineCommand } from '../../../src/protocol/timeline';
import { byId } from '../../shared/dom';
import type { ViewState } from '../state/state';
import type { SelectElement } from './selectors';
import { fillSelectors } from './selectors';
import type { ControlActions } from './actions';
import { ZOOM_STEP } from './actions';

export interface ControlElements {
  readonly snapshot: SelectElement;
  readonly device: SelectElement;
  readonly axis: SelectElement;
  /** Blocks or allocator. */
  readonly mode: SelectElement;
  readonly goToSource: HTMLElement;
  readonly detailBody: HTMLElement;
  readonly filterFile: SelectElement;
  readonly filterStack: SelectElement;
  readonly filterSize: SelectElement;
  readonly status: HTMLElement;
  /** The chart's canvas, whose accessible name says the status too. */
  readonly chart: HTMLElement;
}


export class Toolbar {
  private statusText = '';

  constructor(private readonly el: ControlElements) {}

  /** Hands the controls' events to `actions`. */
  wire(actions: ControlActions): void {
    wireControls(this.el, actions);
  }

  get status(): string {
    return this.statusText;
  }

  setStatus(text: string): void {
    this.statusText = text;
    this.el.status.textContent = text;
    this.el.chart.setAttribute('aria-label', `Memory over time: ${text}. Arrow keys pan, plus and minus zoom, Enter opens the selected block's line.`);
  }

  fillSelectors(snapshots: readonly SnapshotChoice[], target: Target | undefined, axis: AxisKind): void {
    fillSelectors(this.el, snapshots, target, axis);
  }

  /** Shows the saved filters and axis in their controls (the page was shown again). */
  restore(state: ViewState): void {
    this.el.filterFile.value = state.filterFile;
    this.el.filterStack.value = state.filterStack;
    this.el.filterSize.value = String(state.minBytes);
    this.el.axis.value = state.axis;
    this.el.mode.value = state.mode;
  }
}

function wireControls(el: ControlElements, actions: ControlActions): void {
  byId('zoom-in').addEventListener('click', () => actions.zoomBy(ZOOM_STEP));
  byId('zoom-out').addEventListener('click', () => actions.zoomBy(1 / ZOOM_STEP));
  byId('zoom-reset').addEventListener('click', () => actions.resetZoom());
  el.goToSource.addEventListener('click', () => actions.goToSource());
  el.detailBody.addEventListener('click', (e) => {
    const more = (e.target as HTMLElement).closest<HTMLElement>('.more-frames');
    if (more) return actions.expandFrames(Number(more.dataset.record));
    const frame = (e.target as HTMLElement).closest<HTMLElement>('.frame');
    if (frame?.dataset.file) actions.openLine(frame.dataset.file, Number(frame.dataset.line));
  });
  el.detailBody.addEventListener('keydown', (e) => {
    const more = (e.target as HTMLElement).closest<HTMLElement>('.more-frames');
    if (more && (e.key === 'Enter' || e.key === ' ')) {
      e.preventDefault();
      return actions.expandFrames(Number(more.dataset.record));
    }
    const frame = (e.target as HTMLElement).closest<HTMLElement>('.frame');
    if (e.key === 'Enter' && frame?.dataset.file) actions.openLine(frame.dataset.file, Number(frame.dataset.line));
  });

  el.snapshot.addEventListener('change', () => actions.chooseSnapshot(el.snapshot.value));
  el.device.addEventListener('change', () => {
    const device = Number(el.device.value);
    if (Number.isInteger(device)) actions.chooseDevice(device);
  });
  el.axis.addEventListener('change', () => actions.switchAxis(el.axis.value === 'time' ? 'time' : 'event'));
  el.mode.addEventListener('change', () => actions.switchMode(el.mode.value === 'allocator' ? 'allocator' : 'blocks'));

  let stackTimer: ReturnType<typeof setTimeout> | undefined;
  el.filterFile.addEventListener('input', () => actions.filterFile(el.filterFile.value));
  el.filterStack.addEventListener('input', () => {
    actions.filterStack(el.filterStack.value);
    clearTimeout(stackTimer);
    stackTimer = setTimeout(() => actions.filterStackSettled(), 250);
  });
  el.filterSize.addEventListener('change', () => actions.filterSize(Number(el.filterSize.value) || 0));
  for (const button of Array.from(document.querySelectorAll<HTMLElement>('[data-command]'))) {
    button.addEventListener('click', () => {
      // The host runs only the commands on its allowlist.
      const command = button.dataset.command as TimelineCommand | undefined;
      if (command) actions.runCommand(command);
    });
  }
}
