/**
 * Runs the built timeline webview in Debian's Chromium (playwright-core): the same page the
 * extension serves (same HTML builder, CSP, bundle and stylesheet, over a local HTTP server), a
 * test double of `acquireVsCodeApi`, and a host double that answers the page's requests with real
 * summaries computed by the core from snapshot sessions, as the worker would.
 */
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { Server } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { chromiumPath, launchHeadlessChromium } from '../helpers/chromium';
import { dispatch } from '../../src/runtime/worker/methods';
import type { SnapshotSession } from '../../src/engine/session/session';
import { TIMELINE_PAGE } from '../../src/extension/timeline/html';
import { WHAT_IF_PAGE } from '../../src/extension/whatIf/html';
import type { PageContent } from '../../src/extension/shared/webviewDocument';
import { snapshotChoice } from '../../src/extension/timeline/rows';
import type { TimelineBackend } from '../../src/extension/timeline/timelineRequests';
import { answerTimelineRequest, requestIdOf, TIMELINE_COMMANDS } from '../../src/extension/timeline/timelineRequests';
import { isTimelineRequest } from '../../src/guards/timeline';
import { errorMessage } from '../../src/engine/base/errors';
import { webviewDocument } from '../../src/extension/shared/webviewDocument';
import type { HostToTimeline, TimelineToHost } from '../../src/protocol/timeline';
import { repoRoot } from '../helpers/corpus';

export const CHROMIUM = chromiumPath;
export const browserMissing = existsSync(CHROMIUM) ? false : `no Chromium at ${CHROMIUM} (run scripts/setup-browser.sh)`;
export const bundleMissing = existsSync(path.join(repoRoot, 'dist', 'webview', 'timeline.js')) ? false : 'dist/webview/timeline.js is missing (npm run build)';

/** What plays the extension host for a page: it receives what the page posts, and knows the page to post to. */
export interface PageHost {
  page: Page | undefined;
  onMessage(message: never): Promise<void>;
}

export type ThemeName = 'dark' | 'light';

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript',
  '.css': 'text/css',
  '.ttf': 'font/ttf',
  '.map': 'application/json',
};

/** Serves the page and the files it loads: dist/, media/ and the test themes, nothing else. */
export async function startServer(): Promise<{ server: Server; origin: string }> {
  const allowed = ['dist/', 'media/', 'test/browser/themes/'];
  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const served: PageContent | undefined = url.pathname === '/' ? TIMELINE_PAGE : url.pathname === '/whatif' ? WHAT_IF_PAGE : undefined;
      if (served) {
        const origin = `http://${req.headers.host ?? ''}`;
        const theme: ThemeName = url.searchParams.get('theme') === 'light' ? 'light' : 'dark';
        let html = webviewDocument(served, {
          cspSource: origin,
          nonce: randomBytes(16).toString('base64'),
          scriptUri: `${origin}/dist/webview/${served.script}`,
          styleUris: served.styles.map((style) => `${origin}/media/${style}`),
          codiconUri: `${origin}/dist/codicons/codicon.css`,
        });
        // What VS Code adds: the theme's variables and the body class naming the theme kind.
        html = html
          .replace('</head>', `<link rel="stylesheet" id="test-theme" href="${origin}/test/browser/themes/${theme}.css">\n</head>`)
          .replace('<body>', `<body class="vscode-${theme}">`);
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end(html);
        return;
      }
      const relative = decodeURIComponent(url.pathname.slice(1));
      if (!allowed.some((a) => relative.startsWith(a)) || relative.includes('..')) {
        res.writeHead(404).end();
        return;
      }
      try {
        const body = await readFile(path.join(repoRoot, relative));
        res.writeHead(200, { 'content-type': CONTENT_TYPES[path.extname(relative)] ?? 'application/octet-stream' });
        res.end(body);
      } catch {
        res.writeHead(404).end();
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { server, origin: `http://127.0.0.1:${port}` };
}

export function launchBrowser(): Promise<Browser> {
  return launchHeadlessChromium();
}

export interface LoadedForTest {
  readonly id: string;
  readonly label: string;
  readonly session: SnapshotSession;
  readonly device: number;
}

/** Plays the extension host: answers the page like TimelineView does, from in-process sessions. */
export class HostDouble {
  /** Every message the page posted, in order. */
  readonly received: TimelineToHost[] = [];
  page: Page | undefined;
  /** Milliseconds the core took for each span request, and Playwright took to hand it to the page. */
  readonly spanTimes: number[] = [];
  readonly transportTimes: number[] = [];

  constructor(
    public snapshots: LoadedForTest[],
    public activeId: string | undefined,
  ) {}

  /** The host's own routing, over the core run in-process as the worker runs it. */
  private readonly backend: TimelineBackend = {
    worker: (snapshotId) => {
      const loaded = this.snapshots.find((x) => x.id === snapshotId);
      if (!loaded) return undefined;
      return (method, params) => {
        const started = performance.now();
        if (method === 'load' || method === 'warmUp') return Promise.reject(new Error('a test snapshot is loaded already'));
        const result = dispatch(method, params, { session: loaded.session, progress: () => undefined });
        if (method === 'timelineSpan') this.spanTimes.push(performance.now() - started);
        return Promise.resolve(result);
      };
    },
    adviceEnabled: () => true,
  };

  /** Commands the page asked for that the host's allowlist lets run (nothing runs here). */
  readonly commands: string[] = [];

  async send(message: HostToTimeline | Record<string, unknown>): Promise<void> {
    await this.page?.evaluate((m) => window.postMessage(m, '*'), message as unknown as Record<string, unknown>);
  }

  async sendSnapshots(): Promise<void> {
    await this.send({
      type: 'snapshots',
      snapshots: this.snapshots.map((s) => snapshotChoice({ id: s.id, label: s.label, device: s.device, info: s.session.info() })),
      activeId: this.activeId,
    });
  }

  async onMessage(message: TimelineToHost): Promise<void> {
    this.received.push(message);
    const requestId = isTimelineRequest(message) ? requestIdOf(message) : -1;
    try {
      if (message.type === 'ready') {
        await this.sendSnapshots();
      } else if (message.type === 'runCommand') {
        const command = TIMELINE_COMMANDS.commandFor(message.command);
        if (!command) throw new Error(`not allowed: ${String(message.command)}`);
        this.commands.push(command);
      } else if (isTimelineRequest(message)) {
        const answer = await answerTimelineRequest(message, this.backend);
        if (!answer) throw new Error(`malformed ${message.type}`);
        const sent = performance.now();
        await this.send(answer);
        if (answer.type === 'span') this.transportTimes.push(performance.now() - sent);
      }
    } catch (e) {
      if (requestId >= 0) await this.send({ type: 'error', requestId, message: errorMessage(e) });
    }
  }

  ofType<T extends TimelineToHost['type']>(type: T): Extract<TimelineToHost, { type: T }>[] {
    return this.received.filter((m): m is Extract<TimelineToHost, { type: T }> => m.type === type);
  }
}

interface PageGlobals {
  __VRAM_LENS_TEST_HOOKS__: boolean;
  __cspViolations: string[];
  __vramLensPost(message: unknown): Promise<void>;
  __vramLensState: unknown;
  acquireVsCodeApi(): unknown;
}

/** Opens the page with the double of `acquireVsCodeApi` wired to `host`; `state` is what getState returns. */
export async function openPage(
  browser: Browser,
  origin: string,
  host: PageHost,
  options: { theme?: ThemeName; state?: unknown; width?: number; height?: number; path?: string } = {},
): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: options.width ?? 440, height: options.height ?? 900 }, deviceScaleFactor: 2 });
  host.page = page;
  await page.exposeFunction('__vramLensPost', (m: never) => host.onMessage(m));
  await page.addInitScript((saved: unknown) => {
    const g = globalThis as unknown as PageGlobals;
    g.__VRAM_LENS_TEST_HOOKS__ = true;
    g.__cspViolations = [];
    document.addEventListener('securitypolicyviolation', (e) => g.__cspViolations.push(`${e.violatedDirective} ${e.blockedURI}`));
    let state = saved;
    let acquired = false;
    g.acquireVsCodeApi = () => {
      if (acquired) throw new Error('acquireVsCodeApi called twice');
      acquired = true;
      return {
        postMessage: (m: unknown) => void g.__vramLensPost(m),
        getState: () => state,
        setState: (s: unknown) => {
          state = s;
          g.__vramLensState = s;
        },
      };
    };
  }, options.state);
  await page.goto(`${origin}${options.path ?? '/'}?theme=${options.theme ?? 'dark'}`);
  return page;
}

/** Swaps the theme as VS Code does: new variables, then the body class. */
export async function switchTheme(page: Page, origin: string, theme: ThemeName): Promise<void> {
  await page.evaluate(
    async ({ href, theme }) => {
      const link = document.getElementById('test-theme') as HTMLLinkElement;
      await new Promise<void>((resolve) => {
        link.addEventListener('load', () => resolve(), { once: true });
        link.href = href;
      });
      document.body.classList.remove('vscode-dark', 'vscode-light');
      document.body.classList.add(`vscode-${theme}`);
    },
    { href: `${origin}/test/browser/themes/${theme}.css`, theme },
  );
}
