/**
 * The one place webview pages are loaded: the folders a webview may read (dist/webview, media and,
 * for pages with icons, dist/codicons) and the page's HTML (src/extension/shared/webviewDocument.ts) with
 * a nonce from the crypto RNG and resource URIs for this webview.
 */
import { randomBytes } from 'node:crypto';
import * as vscode from 'vscode';
import type { PageContent } from './webviewDocument';
import { webviewDocument } from './webviewDocument';

/** The folders a webview showing `page` may load from. */
export function webviewOptions(extensionUri: vscode.Uri, page: Pick<PageContent, 'codicons'> = {}): vscode.WebviewOptions {
  const roots = [vscode.Uri.joinPath(extensionUri, 'dist', 'webview'), vscode.Uri.joinPath(extensionUri, 'media')];
  if (page.codicons) roots.push(vscode.Uri.joinPath(extensionUri, 'dist', 'codicons'));
  return { enableScripts: true, localResourceRoots: roots };
}

/** The HTML of `page` for `webview`, with a fresh nonce. */
export function webviewPage(webview: vscode.Webview, extensionUri: vscode.Uri, page: PageContent): string {
  const uri = (...segments: string[]): string => webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, ...segments)).toString();
  return webviewDocument(page, {
    cspSource: webview.cspSource,
    nonce: randomBytes(18).toString('base64'),
    scriptUri: uri('dist', 'webview', page.script),
    styleUris: page.styles.map((s) => uri('media', s)),
    codiconUri: page.codicons ? uri('dist', 'codicons', 'codicon.css') : undefined,
  });
}
