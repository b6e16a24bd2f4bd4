/**
 * Words for what the pointer is on: the tooltip text and the pinned block's panel (size, line,
 * lifetime, the innermost Python frames with the user's own frames marked).
 */
import { formatBytes } from '../../src/core/format';
import type { BlockDetail, TimelineOverview, TimelineWindow } from '../../src/core/timeline/types';
import type { Hit } from './chart';
import { baseName, el } from '../shared/dom';
import { formatDuration } from './ticks';

const count = (n: number) => n.toLocaleString('en-US');

/** "event 1,234" or "the start" for a state (state s follows event s - 1). */
export function stateLabel(state: number): string {
  return state === 0 ? 'before the first event' : `after event ${count(state - 1)}`;
}

export function lifetime(d: BlockDetail, overview: TimelineOverview): string {
  const origin = overview.axis.kind === 'time' ? overview.axis.start : undefined;
  const at = (event: number, time: number | undefined) =>
    `event ${count(event)}${time !== undefined && origin !== undefined ? ` (+${formatDuration(time - origin)})` : ''}`;
  const born = d.allocEvent >= 0 ? `allocated at ${at(d.allocEvent, d.allocTimeUs)}` : 'allocated before recording began';
  const died = d.freeEvent >= 0 ? `freed at ${at(d.freeEvent, d.freeTimeUs)}` : 'still allocated at the end';
  const span = d.allocTimeUs !== undefined && d.freeTimeUs !== undefined ? `, alive ${formatDuration(d.freeTimeUs - d.allocTimeUs)}` : '';
  return `${born}; ${died}${span}`;
}

/** Tooltip lines for a hit; `detail` adds the stack once the host has sent it. */
export function tooltipLines(hit: Hit, w: TimelineWindow | undefined, overview: TimelineOverview, detail: BlockDetail | undefined): string[] {
  switch (hit.kind) {
    case 'block': {
      if (!w) return [];
      const line = w.lines.find((l) => l.id === w.blockLine[hit.index]);
      const head = `${formatBytes(w.blockSize[hit.index])}  ${line ? `${baseName(line.file)}:${line.line}` : 'no Python line recorded'}`;
      const out = [head];
      if (detail && detail.record === hit.record) {
        out.push(lifetime(detail, overview));
        for (const f of detail.frames.slice(0, 4)) out.push(`${f.user ? '▸' : ' '} ${f.name}  ${baseName(f.file)}:${f.line}`);
      }
      out.push('Click to pin, double-click to open the line');
      return out;
    }
    case 'rest':
      return w
        ? [
            `${formatBytes(w.rest[hit.step])} in smaller blocks, merged`,
            `of ${formatBytes(w.envelope[hit.step])} allocated ${stateLabel(w.stepState[hit.step])}`,
            'Zoom in to see them one by one',
          ]
        : [];
    case 'reserved':
      return w
        ? [
            `${formatBytes(w.reserved[hit.step] - w.envelope[hit.step])} reserved but not allocated (cached by PyTorch)`,
            `${formatBytes(w.reserved[hit.step])} reserved, ${formatBytes(w.envelope[hit.step])} allocated`,
          ]
        : [];
    case 'peak': {
      const p = overview.peak;
      return [`Peak: ${formatBytes(p.bytes)} ${stateLabel(p.state)}`, p.line ? `reached by ${baseName(p.line.file)}:${p.line.line}` : ''];
    }
    case 'finding':
      return [hit.marker.title, hit.marker.message];
    case 'oom': {
      const o = overview.ooms[hit.index];
      return [
        `Out of memory ${stateLabel(o.state)}`,
        `requested ${formatBytes(o.requestedBytes)}${o.deviceFreeBytes !== undefined ? `, ${formatBytes(o.deviceFreeBytes)} free on the device` : ''}`,
        o.line ? `at ${baseName(o.line.file)}:${o.line.line}` : '',
      ];
    }
    case 'release':
      return w
        ? [`Segment release: ${formatBytes(w.releaseBytes[hit.index])} returned to the device (${w.releaseCount[hit.index]} segment(s))`, 'e.g. torch.cuda.empty_cache()']
        : [];
    case 'annotation': {
      const a = overview.annotations[hit.index];
      return [a.name];
    }
  }
}

/** Fills the pinned-block panel. Frame rows carry `data-file`/`data-line` for opening them. */
export function renderDetail(title: HTMLElement, body: HTMLElement, d: BlockDetail, overview: TimelineOverview): void {
  title.textContent = `${formatBytes(d.size)} · ${d.line ? `${baseName(d.line.file)}:${d.line.line}` : 'no Python line recorded'}`;
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
    item.append(el('span', 'frame-name', f.name), el('span', 'frame-where', `${baseName(f.file)}:${f.line}`));
    list.append(item);
  }
  if (d.frames.length > 0) rows.push(list);
  if (d.totalFrames > d.frames.length) rows.push(el('div', 'muted', `${d.totalFrames - d.frames.length} more frames`));
  body.replaceChildren(...rows);
}
