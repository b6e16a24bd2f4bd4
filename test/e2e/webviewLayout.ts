/**
 * Reading a webview's layout from the UI tests: the frame of the page that shows some text, and
 * whether anything in it is cut off (an element whose content is wider than its box, or that reaches
 * past the page's edge) other than by an intended ellipsis whose full text is on hover.
 */
import type { Frame, Page } from 'playwright-core';
import { eventually } from './workbench';

/** The innermost frame of the webview whose `selector` holds `text` (webviews nest two iframes). */
export async function webviewFrame(page: Page, selector: string, text: string, timeoutMs = 30_000): Promise<Frame> {
  return eventually(`a webview showing ${JSON.stringify(text)}`, async () => {
    for (const frame of page.frames()) {
      const shown = await frame.locator(selector, { hasText: text }).count().catch(() => 0);
      if (shown > 0) return frame;
    }
    return undefined;
  }, timeoutMs);
}

export interface LayoutReport {
  /** The page's width (the webview's inner width), in CSS pixels. */
  readonly width: number;
  /** Whether the page scrolls sideways. */
  readonly scrollsSideways: boolean;
  /** Elements whose content is cut: a tag, its classes and text, and the two widths. */
  readonly cut: readonly string[];
  /** Intended ellipses (text-overflow: ellipsis) that clip text no ancestor's title holds in full. */
  readonly ellipsisWithoutTitle: readonly string[];
  /** Elements that reach past the page's right edge. */
  readonly pastEdge: readonly string[];
}

/**
 * Measures every rendered element under `rootSelector`: an element cuts its content when its
 * `scrollWidth` exceeds its `clientWidth` (inline boxes have no client width and are measured through
 * their block ancestors). An element with `text-overflow: ellipsis` may clip, as long as an ancestor's
 * `title` holds its whole text.
 */
export function measureLayout(frame: Frame, rootSelector = 'body'): Promise<LayoutReport> {
  // A string of code run in the page (the Node-side compiler has no DOM types).
  return frame.evaluate<LayoutReport>(`(() => {
    const root = ${JSON.stringify(rootSelector)};
    const describe = (e) => e.tagName.toLowerCase() + (e.className ? '.' + String(e.className).trim().replace(/\\s+/g, '.') : '') + ' "' + (e.textContent || '').trim().slice(0, 60) + '"';
    const doc = document.documentElement;
    const cut = [], ellipsisWithoutTitle = [], pastEdge = [];
    const edge = doc.clientWidth;
    for (const e of document.querySelectorAll(root + ', ' + root + ' *')) {
      if (!(e instanceof HTMLElement) || e.getClientRects().length === 0) continue; // not rendered
      const style = getComputedStyle(e);
      const rect = e.getBoundingClientRect();
      if (rect.width > 0 && rect.right > edge + 1) pastEdge.push(describe(e) + ': right ' + Math.round(rect.right) + ' > ' + edge);
      if (style.display === 'inline' || e.clientWidth === 0) continue;
      if (e.scrollWidth <= e.clientWidth + 1) continue;
      if (style.textOverflow === 'ellipsis') {
        const text = (e.textContent || '').trim();
        let titled = false;
        for (let a = e; a && !titled; a = a.parentElement) titled = (a.title || '').includes(text);
        if (!titled) ellipsisWithoutTitle.push(describe(e));
        continue;
      }
      if (e.tagName === 'CANVAS') continue;
      cut.push(describe(e) + ': content ' + e.scrollWidth + ' px in ' + e.clientWidth + ' px');
    }
    return { width: window.innerWidth, scrollsSideways: doc.scrollWidth > doc.clientWidth + 1, cut, ellipsisWithoutTitle, pastEdge };
  })()`);
}
