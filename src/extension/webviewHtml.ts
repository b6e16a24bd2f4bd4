/**
 * The one place webview pages are built: a strict Content Security Policy (nothing by default;
 * scripts only by a fresh nonce from the crypto RNG; styles and fonts only from the extension's
 * own folders), resources limited to dist/webview and media. Data never goes into the HTML: pages
 * ask for it with a `ready` message and get it by postMessage.
 */
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';

/** The folders a webview may load from. */
export function webviewOptions(extensionUri: vscode.Uri): vscode.WebviewOptions {
  return {
    enableScripts: true,
    localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist', 'webview'), vscode.Uri.joinPath(extensionUri, 'media')],
  };
}

export function makeNonce(): string {
  return randomBytes(18).toString('base64');
}

export interface PageOptions {
  readonly title: string;
  /** Bundle under dist/webview, e.g. `summary.js`. */
  readonly script: string;
  /** Stylesheets under media, e.g. `summary.css`. */
  readonly styles: readonly string[];
}

/** The static HTML of a webview page; its script renders everything it is sent. */
export function webviewPage(webview: vscode.Webview, extensionUri: vscode.Uri, page: PageOptions): string {
  const nonce = makeNonce();
  const csp = [
    "default-src 'none'",
    `style-src ${webview.cspSource}`,
    `font-src ${webview.cspSource}`,
    `img-src ${webview.cspSource}`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
  const styles = page.styles
    .map((s) => `<link rel="stylesheet" href="${webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'media', s)).toString()}">`)
    .join('\n    ');
  const script = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', 'webview', page.script)).toString();
  return `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="UTF-8">
    <meta http-equiv="Content-Security-Policy" content="${csp}">
    <meta name="viewport" content="width=device-width, initial-scale=1.0">
    ${styles}
    <title>${page.title.replace(/[<>&"]/g, '')}</title>
  </head>
  <body>
    <main id="root" aria-live="polite"></main>
    <script nonce="${nonce}" src="${script}"></script>
  </body>
</html>`;
}
