/**
 * The static page of the comparison panel under a strict Content Security Policy: nothing by
 * default, the script only by a fresh nonce from the crypto RNG, styles only from the extension's
 * media folder. No data in the HTML: the page asks with `ready`. (The editor feature has the same
 * helper in src/extension/webviewHtml.ts; at merge time this can use it.)
 */
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';

export function panelOptions(extensionUri: vscode.Uri): vscode.WebviewPanelOptions & vscode.WebviewOptions {
  return {
    enableScripts: true,
    localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist', 'webview'), vscode.Uri.joinPath(extensionUri, 'media')],
  };
}

export function panelHtml(webview: vscode.Webview, extensionUri: vscode.Uri): string {
  const nonce = randomBytes(18).toString('base64');
  const csp = ["default-src 'none'", `style-src ${webview.cspSource}`, `script-src 'nonce-${nonce}'`].join('; ');
  const style = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'media', 'compare.css')).toString();
  const script = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', 'webview', 'compare.js')).toString();
  return `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="UTF-8">
    <meta http-equiv="Content-Security-Policy" content="${csp}">
    <meta name="viewport" content="width=device-width, initial-scale=1.0">
    <link rel="stylesheet" href="${style}">
    <title>VRAM Lens: Compare</title>
  </head>
  <body>
    <main id="root" aria-live="polite"><p class="muted">Loading the comparison…</p></main>
    <script nonce="${nonce}" src="${script}"></script>
  </body>
</html>`;
}
