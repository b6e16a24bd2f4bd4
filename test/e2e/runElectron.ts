/**
 * Runs the in-host integration suites (test/e2e/suite) in a desktop VS Code with @vscode/test-electron,
 * where one can be had: VSCODE_EXECUTABLE names a local VS Code, or one is downloaded (needs the VS
 * Code update server). Where neither works it says so and skips (exit 0): on offline machines the
 * same suites run in code-server (runCodeServer.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { downloadAndUnzipVSCode, runTests } from '@vscode/test-electron';
import { copyFixtureWorkspace, corpusDir, repoRoot } from './codeServer';

async function vscodeExecutable(): Promise<string | undefined> {
  if (process.env.VSCODE_EXECUTABLE) return process.env.VSCODE_EXECUTABLE;
  try {
    return await downloadAndUnzipVSCode({ version: 'stable', timeout: 30_000 });
  } catch (e) {
    console.log(`e2e (electron): skipped: no VS Code could be downloaded (${e instanceof Error ? e.message : String(e)}).`);
    console.log('  Set VSCODE_EXECUTABLE to a local VS Code, or run the same suites in code-server: npm run test:e2e');
    return undefined;
  }
}

async function main(): Promise<number> {
  const executable = await vscodeExecutable();
  if (!executable) return 0;
  const temp = mkdtempSync(path.join(os.tmpdir(), 'vram-lens-electron-'));
  try {
    const workspace = copyFixtureWorkspace(temp);
    await runTests({
      vscodeExecutablePath: executable,
      extensionDevelopmentPath: repoRoot,
      extensionTestsPath: path.join(repoRoot, 'out', 'test', 'e2e', 'suite', 'index.js'),
      launchArgs: [workspace, '--disable-extensions', '--disable-workspace-trust', `--user-data-dir=${path.join(temp, 'user-data')}`],
      extensionTestsEnv: { VRAM_LENS_CORPUS: corpusDir },
    });
    return 0;
  } catch (e) {
    console.error(`e2e (electron): the in-host suites failed: ${e instanceof Error ? e.message : String(e)}`);
    return 1;
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
