/**
 * The chart's pointer and keyboard input: wheel zoom and pan (Ctrl/Cmd+wheel zooms memory),
 * dragging to pan, click to pin (or, in the allocator view, to choose a moment), double-click to open a block's line, and the keys of the plot.
 * The page gives the actions (controls/actions.ts, pageActions.ts); this module only reads events.
 */
import type { Chart } from '../drawing/chart';
import type { ChartActions } from './actions';
import { keyAction } from './actions';
import type { Viewport } from '../state/viewport';

export function wireChartInput(chart: Chart, actions: ChartActions): void {
  const canvas = chart.canvas;
  canvas.addEventListener(
    'wheel',
    (e) => {
      if (!actions.currentViewport()) return;
      e.preventDefault();
      const box = chart.plotBox();
      const rows = chart.plotRows();
      if ((e.ctrlKey || e.metaKey) && rows) {
        const anchor = Math.min(1, Math.max(0, 1 - (e.offsetY - rows.top) / rows.height));
        actions.zoomY(Math.exp(-e.deltaY * (e.deltaMode === 1 ? 0.05 : 0.002)), anchor);
        return;
      }
      if (e.shiftKey || Math.abs(e.deltaX) > Math.abs(e.deltaY)) {
        const d = e.shiftKey && e.deltaX === 0 ? e.deltaY : e.deltaX;
        actions.panBy(d / box.width);
      } else {
        const anchor = Math.min(1, Math.max(0, (e.offsetX - box.left) / box.width));
        actions.zoomBy(Math.exp(-e.deltaY * (e.deltaMode === 1 ? 0.05 : 0.002)), anchor);
      }
    },
    { passive: false },
  );
  let drag: { x: number; start: Viewport; moved: boolean } | undefined;
  canvas.addEventListener('pointerdown', (e) => {
    const viewport = actions.currentViewport();
    if (e.button !== 0 || !viewport) return;
    canvas.setPointerCapture(e.pointerId);
    drag = { x: e.offsetX, start: viewport, moved: false };
  });
  canvas.addEventListener('pointermove', (e) => {
    if (drag && (drag.moved || Math.abs(e.offsetX - drag.x) > 3)) {
      drag.moved = true;
      canvas.classList.add('dragging');
      const box = chart.plotBox();
      const dx = ((drag.x - e.offsetX) / box.width) * (drag.start.x1 - drag.start.x0);
      actions.setViewport({ x0: drag.start.x0 + dx, x1: drag.start.x1 + dx });
      return;
    }
    actions.hover(e.offsetX, e.offsetY);
  });
  canvas.addEventListener('pointerup', (e) => {
    const d = drag;
    drag = undefined;
    canvas.classList.remove('dragging');
    if (!d || d.moved) return;
    actions.click(chart.hit(e.offsetX, e.offsetY));
  });
  canvas.addEventListener('pointerleave', () => actions.leave());
  canvas.addEventListener('dblclick', (e) => {
    const hit = chart.hit(e.offsetX, e.offsetY);
    if (hit?.kind === 'block') actions.openBlock(hit);
  });
  canvas.addEventListener('keydown', (e) => {
    const action = keyAction(e.key, e.shiftKey);
    if (!action) return;
    action(actions);
    e.preventDefault();
  });
}
