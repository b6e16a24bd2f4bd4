/** The shared webview page: every page gets the same strict policy, and only what it asks for on top. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { webviewDocument } from '../../../../src/extension/shared/webviewDocument';

describe('webview document', () => {
  const resources = { cspSource: 'https://src', nonce: 'n0nce', scriptUri: 'https://src/dist/webview/summary.js', styleUris: ['https://src/media/a.css', 'https://src/media/b.css'] };
  const page = webviewDocument({ title: 'VRAM <Lens>', script: 'summary.js', styles: ['a.css', 'b.css'] }, resources);

  it('allows nothing by default, no data: images, and scripts only with the nonce', () => {
    const csp = /http-equiv="Content-Security-Policy" content="([^"]*)"/.exec(page)?.[1];
    assert.equal(csp, "default-src 'none'; img-src https://src; style-src https://src; font-src https://src; script-src 'nonce-n0nce'");
    assert.deepEqual(page.match(/<script[^>]*>/g), ['<script nonce="n0nce" src="https://src/dist/webview/summary.js">']);
  });
  it('links the page styles in order, no codicons unless asked, and an empty live region to render into', () => {
    assert.deepEqual(page.match(/<link[^>]*>/g), ['<link rel="stylesheet" href="https://src/media/a.css">', '<link rel="stylesheet" href="https://src/media/b.css">']);
    assert.ok(page.includes('<main id="root" aria-live="polite"></main>'));
    assert.ok(page.includes('<title>VRAM &lt;Lens&gt;</title>'));
  });
  it('links the codicon stylesheet under the id the web components look for', () => {
    const withIcons = webviewDocument({ title: 't', script: 's.js', styles: [], codicons: true }, { ...resources, styleUris: [], codiconUri: 'https://src/dist/codicons/codicon.css' });
    assert.ok(withIcons.includes('<link rel="stylesheet" href="https://src/dist/codicons/codicon.css" id="vscode-codicon-stylesheet">'));
  });
});
