/**
 * The snapshot summary's page: its script, its styles and the codicons its findings' severity icons
 * use, built into a document with the shared strict CSP by src/extension/shared/webviewDocument.ts.
 * Free of `vscode`, so the browser tests could load the very same page.
 */
import type { PageContent } from '../shared/webviewDocument';

export const SUMMARY_PAGE: PageContent = {
  title: 'VRAM Lens Snapshot',
  script: 'summary.js',
  styles: ['summary.css'],
  codicons: true,
  // Shown until the first message: a page made anew after it was hidden is never empty.
  body: '<main id="root" aria-live="polite"><p class="muted">Reading the snapshot…</p></main>',
};
