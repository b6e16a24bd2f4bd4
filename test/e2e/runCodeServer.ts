/**
 * Runs the in-host integration suites (test/e2e/suite, the @vscode/test-electron model: mocha inside
 * the extension host, using the `vscode` API) in code-server: the real VS Code server and workbench,
 * with the extension loaded from this folder through the smoke-test driver payload. Exits with the
 * suites' exit code.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { copyFixtureWorkspace, corpusDir, launchChromium, missingPrerequisite, repoRoot, resultsDir, startCodeServer } from './codeServer';

const TIMEOUT_MS = 240_000;

async function main(): Promise<number> {
  const problem = missingPrerequisite();
  if (problem) {
    console.error(`e2e: cannot run the in-host suites: ${problem}`);
    return 1;
  }
  mkdirSync(resultsDir, { recursive: true });
  const reportFile = path.join(resultsDir, 'in-host-suites.txt');
  const server = await startCodeServer({ VRAM_LENS_CORPUS: corpusDir, VRAM_LENS_E2E_REPORT: reportFile });
  const workspace = copyFixtureWorkspace(server.tempDir);
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    let finish: (code: number) => void = () => undefined;
    const exitCode = new Promise<number>((resolve) => (finish = resolve));
    // The workbench forwards its and the extension host's log here: kept as an artefact, not printed.
    const workbenchLog: string[] = [];
    await page.exposeFunction('codeAutomationLog', (...args: unknown[]) => workbenchLog.push(JSON.stringify(args)));
    await page.exposeFunction('codeAutomationExit', (code: number) => finish(code));
    page.on('pageerror', (e) => console.error(`[page error] ${e.message}`));
    const started = Date.now();
    await page.goto(
      server.url(workspace, [
        ['extensionDevelopmentPath', server.remote(repoRoot)],
        ['extensionTestsPath', server.remote(path.join(repoRoot, 'out', 'test', 'e2e', 'suite', 'index.js'))],
      ]),
    );
    const timeout = new Promise<number>((resolve) =>
      setTimeout(() => {
        console.error(`e2e: the in-host suites did not finish within ${TIMEOUT_MS / 1000} s`);
        resolve(1);
      }, TIMEOUT_MS).unref(),
    );
    const code = await Promise.race([exitCode, timeout]);
    if (existsSync(reportFile)) console.log(readFileSync(reportFile, 'utf8'));
    console.log(`e2e: in-host suites finished with exit code ${code} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    writeFileSync(path.join(resultsDir, 'in-host-workbench.log'), workbenchLog.join('\n'));
    if (code !== 0) {
      await page.screenshot({ path: path.join(resultsDir, 'in-host-failure.png') });
      writeFileSync(path.join(resultsDir, 'in-host-code-server.log'), server.log.join(''));
    }
    return code;
  } finally {
    await browser.close();
    await server.stop();
  }
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
