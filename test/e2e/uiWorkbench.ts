/**
 * The setup every code-server UI test shares: a fresh code-server with a copy of the fixture
 * workspace, the extension installed from the VSIX under test or loaded from this folder, Chromium
 * on the workbench page, and on close the artefacts in test-results/ (the last screenshot, the
 * workbench's log, the extension host's logs) before everything is stopped.
 */
import { cpSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { CodeServer } from './codeServer';
import { copyFixtureWorkspace, corpusDir, launchChromium, repoRoot, resultsDir, startCodeServer, vsixUnderTest } from './codeServer';

export interface UiWorkbenchOptions {
  /** The prefix of this test's artefacts: `<name>-last.png`, `<name>-workbench.log`, `<name>-logs/`. */
  readonly name: string;
  /** Added to the extension host's environment (the corpus folder is always there as VRAM_LENS_CORPUS). */
  readonly env?: Readonly<Record<string, string>>;
  /** Load the extension from this folder even when a VSIX is under test. */
  readonly fromFolder?: boolean;
  /** Install the timeline page's test hooks (webview/timeline/testHooks.ts) in every frame. */
  readonly timelineHooks?: boolean;
  /** The folder the workbench opens, made in the server's own folder (default: a copy of test/fixtures/workspace). */
  readonly makeWorkspace?: (tempDir: string) => string;
  /** Runs before the workbench opens: put files in the workspace or in the server's own folder. */
  readonly prepare?: (paths: { readonly workspace: string; readonly tempDir: string }) => void;
}

export interface UiWorkbench {
  readonly server: CodeServer;
  readonly browser: Browser;
  readonly page: Page;
  /** The folder the workbench opened (a copy of test/fixtures/workspace unless `makeWorkspace` made another). */
  readonly workspace: string;
  /** Saves the artefacts, closes Chromium and stops code-server. */
  close(): Promise<void>;
}

/** Starts code-server and Chromium and waits for the workbench with `options.name`'s setup. */
export async function openUiWorkbench(options: UiWorkbenchOptions): Promise<UiWorkbench> {
  mkdirSync(resultsDir, { recursive: true });
  const vsix = options.fromFolder ? undefined : vsixUnderTest;
  const server = await startCodeServer({ VRAM_LENS_CORPUS: corpusDir, ...options.env }, vsix);
  const workbenchLog: string[] = [];
  let browser: Browser | undefined;
  let page: Page | undefined;
  const close = async (): Promise<void> => {
    if (page) await page.screenshot({ path: path.join(resultsDir, `${options.name}-last.png`) }).catch(() => undefined);
    writeFileSync(path.join(resultsDir, `${options.name}-workbench.log`), workbenchLog.join('\n'));
    const logs = path.join(server.tempDir, 'user-data', 'logs');
    if (existsSync(logs)) cpSync(logs, path.join(resultsDir, `${options.name}-logs`), { recursive: true });
    await browser?.close();
    await server.stop();
  };
  try {
    const workspace = (options.makeWorkspace ?? copyFixtureWorkspace)(server.tempDir);
    options.prepare?.({ workspace, tempDir: server.tempDir });
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1500, height: 950 } });
    await page.exposeFunction('codeAutomationLog', (...args: unknown[]) => workbenchLog.push(JSON.stringify(args)));
    if (options.timelineHooks) {
      await page.addInitScript(() => {
        (globalThis as { __VRAM_LENS_TEST_HOOKS__?: boolean }).__VRAM_LENS_TEST_HOOKS__ = true;
      });
    }
    // Installed from the VSIX, or loaded from this folder as in development.
    await page.goto(server.url(workspace, vsix ? [] : [['extensionDevelopmentPath', server.remote(repoRoot)]]));
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    await page.locator('.statusbar').waitFor();
    return { server, browser, page, workspace, close };
  } catch (e) {
    await close();
    throw e;
  }
}

/** Quick Open (Ctrl+P) `file` (a workspace-relative path), and with `line`, Go to Line (Ctrl+G) there. */
export async function openWorkspaceFile(page: Page, file: string, line?: number): Promise<void> {
  const name = path.basename(file);
  const input = page.locator('.quick-input-widget input.input');
  await page.keyboard.press('Control+P');
  await input.waitFor({ state: 'visible' });
  await input.fill(file);
  await page.locator('.quick-input-list .monaco-list-row', { hasText: name }).first().waitFor();
  await page.keyboard.press('Enter');
  await page.locator('.tab.active', { hasText: name }).waitFor();
  if (line !== undefined) await goToLine(page, line);
}

/** Go to Line (Ctrl+G) in the active editor: the line comes to the middle of the editor. */
export async function goToLine(page: Page, line: number): Promise<void> {
  const widget = page.locator('.quick-input-widget');
  await page.keyboard.press('Control+G');
  await page.locator('.quick-input-widget input.input').waitFor({ state: 'visible' });
  await page.keyboard.type(String(line));
  // Enter counts once the widget has read the line (its message names it); pressed before, it can be lost
  // and the widget stays open over the workbench: press it again until the widget closes.
  await widget.filter({ hasText: `go to line ${line}` }).waitFor();
  for (let attempt = 0; ; attempt++) {
    await page.keyboard.press('Enter');
    try {
      await widget.waitFor({ state: 'hidden', timeout: 3_000 });
      return;
    } catch (e) {
      if (attempt >= 3) throw e;
    }
  }
}

/** The file of `workspace` that a recorded path maps to: the one whose path is the longest tail of it. */
export function workspaceFileOf(workspace: string, recorded: string): string | undefined {
  const parts = recorded.split('/');
  for (let i = 1; i < parts.length; i++) {
    const candidate = path.join(workspace, ...parts.slice(i));
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}
