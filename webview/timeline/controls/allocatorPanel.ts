/**
 * The allocator view's panel under the chart: whether the replay can be trusted (the self-check),
 * the recorded OOMs (each a button that chooses its moment), and the segment map at the chosen moment
 * with its figures and, at an OOM, what was asked, what the cache held and the cause. Words come from
 * allocatorText.ts; the map is drawn by drawing/segmentMap.ts. Text from the snapshot goes in as text.
 */
import type { AllocatorFacts, SegmentMapView } from '../../../src/protocol/timeline';
import { baseName } from '../../../src/engine/paths/recordedPath';
import { el } from '../../shared/dom';
import type { SegmentMapCanvas } from '../drawing/segmentMap';
import type { Theme } from '../drawing/theme';
import { showTooltip } from './tooltip';
import { selfCheckLines } from '../../shared/selfCheckText';
import { mapBlockLines, mapFigures, mapHeading, omittedBlocks, oomAt, oomLines } from './allocatorText';
import { formatCount } from '../../../src/engine/text/format';

export interface AllocatorPanelElements {
  readonly panel: HTMLElement;
  readonly check: HTMLElement;
  readonly ooms: HTMLElement;
  readonly title: HTMLElement;
  readonly figures: HTMLElement;
  readonly oom: HTMLElement;
  readonly box: HTMLElement;
  readonly tooltip: HTMLElement;
}

export interface AllocatorPanelActions {
  /** Chooses the moment of a state (an OOM's). */
  chooseMoment(state: number): void;
  openLine(file: string, line: number): void;
}

export class AllocatorPanel {
  private shownKey = '';

  constructor(
    private readonly el: AllocatorPanelElements,
    private readonly map: SegmentMapCanvas,
  ) {}

  wire(actions: AllocatorPanelActions): void {
    const canvas = this.map.canvas;
    canvas.addEventListener('pointermove', (e) => this.hover(e.offsetX, e.offsetY));
    canvas.addEventListener('pointerleave', () => {
      this.el.tooltip.hidden = true;
    });
    canvas.addEventListener('click', (e) => {
      const line = this.lineAt(e.offsetX, e.offsetY);
      if (line) actions.openLine(line.file, line.line);
    });
    this.el.ooms.addEventListener('click', (e) => {
      const button = (e.target as HTMLElement).closest<HTMLElement>('[data-state]');
      if (button) actions.chooseMoment(Number(button.dataset.state));
    });
    this.el.oom.addEventListener('click', (e) => {
      const link = (e.target as HTMLElement).closest<HTMLElement>('[data-file]');
      if (!link) return;
      e.preventDefault();
      actions.openLine(link.dataset.file ?? '', Number(link.dataset.line));
    });
  }

  /** Shows the panel (or hides it outside the allocator view) from what the store holds. */
  show(visible: boolean, facts: AllocatorFacts | undefined, map: SegmentMapView | undefined, moment: number | undefined, theme: Theme, lineColors: ReadonlyMap<number, number>): void {
    this.el.panel.hidden = !visible;
    if (!visible) return;
    // Text parts are rebuilt only when what they say changed.
    const key = JSON.stringify([facts?.check.device, facts?.check.check, facts?.ooms.length, map?.event, map?.device, moment]);
    if (key !== this.shownKey) {
      this.shownKey = key;
      this.showFacts(facts);
      this.showMoment(facts, map, moment);
    }
    this.map.draw(map && moment !== undefined && map.event === moment - 1 ? map : undefined, theme, lineColors);
  }

  private showFacts(facts: AllocatorFacts | undefined): void {
    const { check, ooms } = this.el;
    if (!facts) {
      check.replaceChildren(el('span', 'muted', 'Replaying the allocator…'));
      ooms.replaceChildren();
      return;
    }
    const verdict = selfCheckLines(facts.check);
    check.classList.toggle('warn', !verdict.ok);
    check.replaceChildren(...verdict.lines.map((text) => el('div', undefined, text)));
    ooms.replaceChildren(
      ...facts.ooms.map((o) => {
        const where = o.file !== null && o.line !== null ? ` · ${baseName(o.file)}:${o.line}` : '';
        const button = document.createElement('vscode-button');
        button.className = 'oom-button';
        button.textContent = `OOM at event ${formatCount(o.event)}${where}`;
        button.title = o.summary;
        button.setAttribute('secondary', '');
        button.dataset.state = String(o.event + 1);
        return button;
      }),
    );
  }

  private showMoment(facts: AllocatorFacts | undefined, map: SegmentMapView | undefined, moment: number | undefined): void {
    const { title, figures, oom } = this.el;
    if (moment === undefined) {
      title.textContent = 'Segment map';
      figures.replaceChildren(el('div', 'muted', 'Click the chart to see the segments and their blocks at that moment.'));
      oom.hidden = true;
      return;
    }
    if (!map || map.event !== moment - 1) {
      title.textContent = 'Segment map';
      figures.replaceChildren(el('div', 'muted', 'Replaying up to that moment…'));
      oom.hidden = true;
      return;
    }
    title.textContent = mapHeading(map);
    const omitted = omittedBlocks(map);
    figures.replaceChildren(
      ...mapFigures(map).map((text) => el('div', undefined, text)),
      ...(omitted > 0 ? [el('div', 'muted', `${formatCount(omitted)} smaller blocks are not listed (hatched grey).`)] : []),
    );
    const explained = oomAt(facts?.ooms, map.event);
    oom.hidden = !explained;
    if (explained) {
      const lines = oomLines(explained);
      const head = el('div', 'oom-head', lines[0]);
      if (explained.file !== null && explained.line !== null) {
        const link = el('a', { className: 'line-link', text: 'Open the line', title: `${explained.file}:${explained.line}` });
        link.href = '#';
        link.dataset.file = explained.file;
        link.dataset.line = String(explained.line);
        head.append(' ', link);
      }
      oom.replaceChildren(head, ...lines.slice(1).map((text) => el('div', undefined, text)));
    }
  }

  private blockAt(x: number, y: number) {
    const map = this.map.shown;
    const hit = this.map.hit(x, y);
    if (!map || !hit) return undefined;
    const segment = map.segments[hit.segment];
    const block = hit.block >= 0 ? segment.blocks[hit.block] : undefined;
    return { map, segment, block, line: block ? map.lines.find((l) => l.id === block.line) : undefined };
  }

  private lineAt(x: number, y: number): { file: string; line: number } | undefined {
    return this.blockAt(x, y)?.line;
  }

  private hover(x: number, y: number): void {
    const found = this.blockAt(x, y);
    const lines = !found
      ? []
      : found.block
        ? mapBlockLines(found.segment, found.block, found.line)
        : [`${formatCount(found.segment.blocksOmitted)} blocks of this segment not listed`, 'A map lists its first blocks by address, up to a bound'];
    showTooltip(this.el.tooltip, this.el.box, lines, x, y, false);
  }
}
