/**
 * Entry point of the in-host integration suites (what `extensionTestsPath` names): runs every
 * `*.test.js` beside it with mocha inside the extension host, under code-server
 * (test/e2e/runCodeServer.ts) or a desktop VS Code (test/e2e/runElectron.ts). The report goes to the
 * console and, when VRAM_LENS_E2E_REPORT names a file, to that file too (a browser-driven run reads it there).
 */
import { appendFileSync, readdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { format } from 'node:util';
import Mocha from 'mocha';

export function run(): Promise<void> {
  const reportFile = process.env.VRAM_LENS_E2E_REPORT;
  if (reportFile) {
    writeFileSync(reportFile, '');
    const log = Mocha.reporters.Base.consoleLog;
    Mocha.reporters.Base.consoleLog = (...args: unknown[]) => {
      appendFileSync(reportFile, `${format(...args)}\n`);
      log(...args);
    };
  }
  const mocha = new Mocha({ ui: 'bdd', timeout: 60_000, color: false, reporter: 'spec' });
  for (const file of readdirSync(__dirname).filter((f) => f.endsWith('.test.js')).sort()) mocha.addFile(path.join(__dirname, file));
  return new Promise((resolve, reject) => {
    mocha.run((failures) => (failures > 0 ? reject(new Error(`${failures} in-host test(s) failed`)) : resolve()));
  });
}
