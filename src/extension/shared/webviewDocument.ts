/**
 * The HTML of every webview page, free of `vscode` so the browser tests load the very same
 * document: a strict Content Security Policy (nothing by default; scripts only with this load's
 * nonce; styles, fonts and images only from the webview's own source), no inline code or styles,
 * and no data: pages ask for it with a `ready` message and get it by postMessage.
 */

/** What a page is made of; the host (src/extension/shared/webviewHtml.ts or a test server) supplies where it lives. */
export interface PageContent {
  readonly title: string;
  /** Bundle under dist/webview, e.g. `summary.js`. */
  readonly script: string;
  /** Stylesheets under media, e.g. `summary.css`. */
  readonly styles: readonly string[];
  /** Link dist/codicons/codicon.css (under the id @vscode-elements looks it up by). */
  readonly codicons?: boolean;
  /** Also allow `data:` images (the @vscode-elements components draw some of theirs so). */
  readonly dataImages?: boolean;
  /** The static markup of the body before the script; by default an empty live region `#root`. */
  readonly body?: string;
}

/** Where one load of a page finds its resources. */
export interface PageResources {
  /** `webview.cspSource`. */
  readonly cspSource: string;
  /** A fresh random nonce per page load (base64). */
  readonly nonce: string;
  readonly scriptUri: string;
  /** One per `PageContent.styles`, in order. */
  readonly styleUris: readonly string[];
  /** Required when `PageContent.codicons`. */
  readonly codiconUri?: string;
}

const escape = (value: string): string => value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function contentSecurityPolicy(cspSource: string, nonce: string, dataImages = false): string {
  return [
    "default-src 'none'",
    `img-src ${cspSource}${dataImages ? ' data:' : ''}`,
    `style-src ${cspSource}`,
    `font-src ${cspSource}`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
}

/** The static HTML of a page; its script renders everything it is sent. */
export function webviewDocument(page: PageContent, r: PageResources): string {
  const links = [
    ...(page.codicons && r.codiconUri !== undefined ? [`<link rel="stylesheet" href="${escape(r.codiconUri)}" id="vscode-codicon-stylesheet">`] : []),
    ...r.styleUris.map((uri) => `<link rel="stylesheet" href="${escape(uri)}">`),
  ];
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${escape(contentSecurityPolicy(r.cspSource, r.nonce, page.dataImages))}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
${links.join('\n')}
<title>${escape(page.title)}</title>
</head>
<body>
${page.body ?? '<main id="root" aria-live="polite"></main>'}
<script nonce="${escape(r.nonce)}" src="${escape(r.scriptUri)}"></script>
</body>
</html>
`;
}
