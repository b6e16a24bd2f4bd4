/**
 * Runs the real VS Code server and workbench (code-server, installed by scripts/setup-e2e.sh under
 * .e2e/) on 127.0.0.1 with throw-away user data, and drives it with Debian's Chromium through
 * playwright-core. Shared by the in-host suite runner and the UI tests.
 */
import type { ChildProcess } from 'node:child_process';
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Browser } from 'playwright-core';
import { chromiumPath, launchHeadlessChromium } from '../helpers/chromium';

/** The repository root (this file runs from out/test/e2e/). */
export const repoRoot = path.resolve(__dirname, '..', '..', '..');
export const node24 = path.join(repoRoot, '.e2e', 'node24', 'bin', 'node');
export const codeServerEntry = path.join(repoRoot, '.e2e', 'code-server', 'node_modules', 'code-server', 'out', 'node', 'entry.js');
export { chromiumPath };
export const resultsDir = path.join(repoRoot, 'test-results');
/**
 * Whether UI tests overwrite the images committed under media/ (`VRAM_LENS_UPDATE_SCREENSHOTS=1`, set by
 * hand to retake them); otherwise they write them under test-results/media/ only, so a run (CI's
 * included) never changes the tree.
 */
export const updateScreenshots = process.env.VRAM_LENS_UPDATE_SCREENSHOTS === '1';
/** Where a UI test writes the image committed as `media/<rel>` (see `updateScreenshots`); its folder is made. */
export function mediaImage(rel: string): string {
  const file = path.join(updateScreenshots ? repoRoot : resultsDir, 'media', rel);
  mkdirSync(path.dirname(file), { recursive: true });
  return file;
}
export const corpusDir = process.env.VRAM_LENS_CORPUS ?? path.resolve(repoRoot, '..', 'shared', 'snapshots');
/** The corpus snapshot whose user files the fixture workspace holds. */
export const fixtureSnapshot = path.join(corpusDir, 'wedsonlin-cs336-medium-512-training.pickle');

/** Why the end-to-end tests cannot run here, or undefined when they can. */
export function missingPrerequisite(): string | undefined {
  if (!existsSync(node24) || !existsSync(codeServerEntry)) return 'code-server is not installed: run `bash scripts/setup-e2e.sh`';
  if (!existsSync(chromiumPath)) return `no Chromium at ${chromiumPath}: run \`bash scripts/setup-e2e.sh\``;
  if (!existsSync(path.join(repoRoot, 'dist', 'extension.js'))) return 'the extension is not built: run `npm run build`';
  if (!existsSync(fixtureSnapshot)) return `the corpus snapshot ${fixtureSnapshot} is missing (set VRAM_LENS_CORPUS)`;
  return undefined;
}

/** A fresh copy of test/fixtures/workspace in a temporary folder (tests may edit it freely). */
export function copyFixtureWorkspace(into: string): string {
  const target = path.join(into, 'workspace');
  cpSync(path.join(repoRoot, 'test', 'fixtures', 'workspace'), target, { recursive: true });
  return target;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

async function waitForHealth(url: string, server: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (server.exitCode !== null) throw new Error(`code-server exited with code ${server.exitCode}`);
    try {
      const response = await fetch(url);
      if (response.ok) return;
    } catch {
      // Not listening yet.
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`code-server did not answer ${url} within ${timeoutMs} ms`);
}

/** User settings of the test profile: a quiet, predictable workbench. */
const USER_SETTINGS = {
  'workbench.startupEditor': 'none',
  'workbench.tips.enabled': false,
  'workbench.secondarySideBar.defaultVisibility': 'hidden',
  'workbench.colorTheme': 'Default Dark Modern',
  'security.workspace.trust.enabled': false,
  'telemetry.telemetryLevel': 'off',
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'update.mode': 'none',
  'editor.minimap.enabled': false,
  'editor.codeLens': true,
  'editor.hover.delay': 200,
  'files.simpleDialog.enable': true,
  'chat.disableAIFeatures': true,
  'window.restoreWindows': 'none',
};

export interface CodeServer {
  readonly port: number;
  /** The temporary folder holding the profile (and anything a test puts there). */
  readonly tempDir: string;
  readonly log: string[];
  /** The workbench URL opening `folder`, with `payload` entries for the smoke-test driver. */
  url(folder: string, payload: readonly (readonly [string, string])[]): string;
  /** A `vscode-remote://` URI of a path on this machine, as the payload wants it. */
  remote(fsPath: string): string;
  stop(): Promise<void>;
}

/** The VSIX to install instead of loading the extension from this folder (`VRAM_LENS_VSIX`, e.g. from `npm run package`). */
export const vsixUnderTest = process.env.VRAM_LENS_VSIX ? path.resolve(process.env.VRAM_LENS_VSIX) : undefined;

/**
 * Starts code-server with `env` added to its (and so the extension host's) environment; with `vsix`,
 * that package is installed into the fresh profile first, as a user would install it.
 */
export async function startCodeServer(env: Record<string, string> = {}, vsix?: string): Promise<CodeServer> {
  const problem = missingPrerequisite();
  if (problem) throw new Error(problem);
  const tempDir = mkdtempSync(path.join(os.tmpdir(), 'vram-lens-e2e-'));
  const userData = path.join(tempDir, 'user-data');
  mkdirSync(path.join(userData, 'User'), { recursive: true });
  writeFileSync(path.join(userData, 'User', 'settings.json'), JSON.stringify(USER_SETTINGS, null, 2));
  for (const dir of ['extensions', 'xdg-config', 'xdg-data', 'xdg-cache']) mkdirSync(path.join(tempDir, dir));
  const config = path.join(tempDir, 'config.yaml');
  writeFileSync(config, '');
  const port = await freePort();
  const args = [
    codeServerEntry,
    '--config',
    config,
    '--user-data-dir',
    userData,
    '--extensions-dir',
    path.join(tempDir, 'extensions'),
    '--bind-addr',
    `127.0.0.1:${port}`,
    '--auth',
    'none',
    '--disable-telemetry',
    '--disable-update-check',
    '--disable-workspace-trust',
    '--ignore-last-opened',
    '--vscode-option',
    'enable-smoke-test-driver',
  ];
  const serverEnv: NodeJS.ProcessEnv = {
    ...process.env,
    XDG_CONFIG_HOME: path.join(tempDir, 'xdg-config'),
    XDG_DATA_HOME: path.join(tempDir, 'xdg-data'),
    XDG_CACHE_HOME: path.join(tempDir, 'xdg-cache'),
    // Python run by the tests (profiling fixtures) must not leave bytecode caches in the repository.
    PYTHONDONTWRITEBYTECODE: '1',
    ...env,
  };
  if (vsix) {
    const profile = ['--user-data-dir', userData, '--extensions-dir', path.join(tempDir, 'extensions')];
    execFileSync(node24, [codeServerEntry, ...profile, '--install-extension', vsix], { env: serverEnv, stdio: 'pipe', timeout: 120_000 });
  }
  const server = spawn(node24, args, { env: serverEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  const log: string[] = [];
  server.stdout?.on('data', (d: Buffer) => log.push(d.toString()));
  server.stderr?.on('data', (d: Buffer) => log.push(d.toString()));
  await waitForHealth(`http://127.0.0.1:${port}/healthz`, server, 30_000);
  const authority = `127.0.0.1:${port}`;
  return {
    port,
    tempDir,
    log,
    remote: (fsPath) => `vscode-remote://${authority}${fsPath}`,
    url: (folder, payload) =>
      `http://${authority}/?folder=${encodeURIComponent(folder)}&payload=${encodeURIComponent(JSON.stringify(payload))}`,
    stop: async () => {
      if (server.exitCode === null) {
        const exited = new Promise((r) => server.once('exit', r));
        server.kill('SIGTERM');
        await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))]);
        if (server.exitCode === null) server.kill('SIGKILL');
      }
      rmSync(tempDir, { recursive: true, force: true });
    },
  };
}

/** Headless Chromium with the flags that work offline (see docs/editor.md). */
export function launchChromium(): Promise<Browser> {
  return launchHeadlessChromium();
}
