/** What the timeline's two canvases (chart and minimap) do alike: sizing to the screen and clearing. */
import type { Theme } from './theme';

/** Matches the canvas's backing store to its CSS size at the current devicePixelRatio; true when that changed it. */
export function fitToDisplay(canvas: HTMLCanvasElement): boolean {
  const dpr = window.devicePixelRatio || 1;
  const rect = canvas.getBoundingClientRect();
  const w = Math.max(1, Math.round(rect.width * dpr));
  const h = Math.max(1, Math.round(rect.height * dpr));
  if (canvas.width === w && canvas.height === h) return false;
  canvas.width = w;
  canvas.height = h;
  return true;
}

/** Paints the whole canvas in the theme's background (nothing to show yet). */
export function paintBackground(ctx: CanvasRenderingContext2D, theme: Theme): void {
  ctx.fillStyle = theme.background;
  ctx.fillRect(0, 0, ctx.canvas.width, ctx.canvas.height);
}
