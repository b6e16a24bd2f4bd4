/**
 * The page's controls around the chart: zoom buttons, the pinned block's panel (frames, "N more
 * frames"), the snapshot, device and axis selectors, the table filters, and the buttons that ask
 * the host to run a command. The app gives the actions; this module only reads events.
 */
import type { AxisKind } from '../../src/engine/timeline/types';
import type { TimelineCommand } from '../../src/protocol/timeline';
import { byId } from '../shared/dom';
import type { SelectElement } from './selectors';
import { ZOOM_STEP } from './chartActions';

export interface ControlElements {
  readonly snapshot: SelectElement;
  readonly device: SelectElement;
  readonly axis: SelectElement;
  readonly goToSource: HTMLElement;
  readonly detailBody: HTMLElement;
  readonly filterFile: SelectElement;
  readonly filterStack: SelectElement;
  readonly filterSize: SelectElement;
}

export interface ControlActions {
  zoomBy(factor: number): void;
  resetZoom(): void;
  goToSource(): void;
  expandFrames(record: number): void;
  openSource(file: string, line: number): void;
  chooseSnapshot(id: string): void;
  chooseDevice(device: number): void;
  switchAxis(axis: AxisKind): void;
  filterFile(text: string): void;
  /** The stack filter's text as typed; `settled` runs once typing paused. */
  filterStack(text: string): void;
  filterStackSettled(): void;
  filterSize(minBytes: number): void;
  runCommand(command: TimelineCommand): void;
}

export function wireControls(el: ControlElements, actions: ControlActions): void {
  byId('zoom-in').addEventListener('click', () => actions.zoomBy(ZOOM_STEP));
  byId('zoom-out').addEventListener('click', () => actions.zoomBy(1 / ZOOM_STEP));
  byId('zoom-reset').addEventListener('click', () => actions.resetZoom());
  el.goToSource.addEventListener('click', () => actions.goToSource());
  el.detailBody.addEventListener('click', (e) => {
    const more = (e.target as HTMLElement).closest<HTMLElement>('.more-frames');
    if (more) return actions.expandFrames(Number(more.dataset.record));
    const frame = (e.target as HTMLElement).closest<HTMLElement>('.frame');
    if (frame?.dataset.file) actions.openSource(frame.dataset.file, Number(frame.dataset.line));
  });
  el.detailBody.addEventListener('keydown', (e) => {
    const more = (e.target as HTMLElement).closest<HTMLElement>('.more-frames');
    if (more && (e.key === 'Enter' || e.key === ' ')) {
      e.preventDefault();
      return actions.expandFrames(Number(more.dataset.record));
    }
    const frame = (e.target as HTMLElement).closest<HTMLElement>('.frame');
    if (e.key === 'Enter' && frame?.dataset.file) actions.openSource(frame.dataset.file, Number(frame.dataset.line));
  });

  el.snapshot.addEventListener('change', () => actions.chooseSnapshot(el.snapshot.value));
  el.device.addEventListener('change', () => {
    const device = Number(el.device.value);
    if (Number.isInteger(device)) actions.chooseDevice(device);
  });
  el.axis.addEventListener('change', () => actions.switchAxis(el.axis.value === 'time' ? 'time' : 'event'));

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
