/** The hover card over the chart: its lines (tooltipText) as text, placed beside the pointer inside the chart. */
import { el } from '../../shared/dom';

/** Shows `lines` beside the point (x, y) of `box`, or hides the card when there are none. */
export function showTooltip(tip: HTMLElement, box: HTMLElement, lines: readonly string[], x: number, y: number, wrap: boolean): void {
  if (lines.length === 0) {
    tip.hidden = true;
    return;
  }
  tip.replaceChildren(...lines.map((text, i) => el('div', i === 0 ? 'tip-head' : 'tip-line', text)));
  // A finding's message is prose: wrap it rather than cut it.
  tip.classList.toggle('wrap', wrap);
  tip.hidden = false;
  const rect = box.getBoundingClientRect();
  const width = tip.offsetWidth;
  // Beside the pointer, on the side with room, and never past the chart's edges.
  const preferred = x + 14 + width > rect.width ? x - 14 - width : x + 14;
  const left = Math.max(0, Math.min(preferred, rect.width - width));
  tip.style.left = `${left}px`;
  tip.style.top = `${Math.min(Math.max(0, rect.height - tip.offsetHeight), y + 12)}px`;
}
