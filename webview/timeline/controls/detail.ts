/** The pinned block's panel: size, line (or bucket), lifetime, the innermost frames with the user's own marked. */
import { formatBytes } from '../../../src/engine/text/format';
import { lineLabel } from '../../../src/engine/paths/places';
import type { BlockDetail, TimelineOverview } from '../../../src/protocol/timeline';
import { el } from '../../shared/dom';
import { allocatorFramesSkipped, moreFrames } from './stackFrames';
import { lifetime, unattributedLabel } from './tooltipText';

/** Fills the pinned-block panel. Frame rows carry `data-file`/`data-line` for opening them. */
export function renderDetail(title: HTMLElement, body: HTMLElement, d: BlockDetail, overview: TimelineOverview): void {
  title.textContent = `${formatBytes(d.size)} · ${d.line ? lineLabel(d.line.file, d.line.line, overview.places) : unattributedLabel(d)}`;
  title.title = d.line ? `${d.line.file}:${d.line.line}` : '';
  const rows: HTMLElement[] = [el('div', 'detail-life', lifetime(d, overview))];
  if (d.frames.length === 0) rows.push(el('div', 'muted', 'No stack was recorded for this block.'));
  const list = el('ol', 'frames');
  for (const f of d.frames) {
    const item = el('li', f.user ? 'frame user' : 'frame');
    item.tabIndex = 0;
    item.dataset.file = f.file;
    item.dataset.line = String(f.line);
    item.title = `${f.file}:${f.line}`;
    item.append(el('span', 'frame-name', f.name), el('span', 'frame-where', lineLabel(f.file, f.line, overview.places)));
    list.append(item);
  }
  if (d.frames.length > 0) rows.push(list);
  const more = moreFrames(d);
  if (more > 0) {
    // Expands in place: the page asks for the whole stack (data-record says whose).
    const button = el('a', 'more-frames', `${more} more frames`);
    button.setAttribute('role', 'button');
    button.tabIndex = 0;
    button.dataset.record = String(d.record);
    button.title = 'Show every frame of this stack';
    rows.push(button);
  }
  const hidden = allocatorFramesSkipped(d);
  if (hidden > 0) rows.push(el('div', 'muted', `${hidden} allocator and unwinder frames not shown`));
  body.replaceChildren(...rows);
}
