/**
 * The comparison panel's page: its script and styles (no data: everything arrives by postMessage),
 * built into a document with the shared strict CSP by src/extension/shared/webviewDocument.ts. Free
 * of `vscode`, so the browser tests could load the very same page.
 */
import type { PageContent } from '../shared/webviewDocument';

export const COMPARE_PAGE: PageContent = {
  title: 'VRAM Lens: Compare',
  script: 'compare.js',
  styles: ['compare.css'],
  body: '<main id="root" aria-live="polite"><p class="muted">Loading the comparison…</p></main>',
};
