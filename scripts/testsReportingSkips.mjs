// Runs `node --test` (spec reporter) on `files`, passing its output through, and ends with one line
// saying whether the tests that need an outside resource (the corpus, the public models) ran: a test
// that skips for want of it prints `# <mark>...` (its skip reason), and a run without it must not look
// like a full pass.
import { spawn } from 'node:child_process';

/**
 * @param {string[]} files what `node --test` runs
 * @param {string} mark the start of the skip reason that names the missing resource
 * @param {{ skipped: (count: number, reason: string) => string, allRan: string }} say the closing line
 * @param {string[]} [options] more options for `node --test`
 */
export function runTestsReportingSkips(files, mark, say, options = []) {
  const child = spawn(process.execPath, ['--test', '--test-reporter=spec', ...options, ...files], { stdio: ['inherit', 'pipe', 'inherit'] });
  let skipped = 0;
  let reason = '';
  let pending = '';
  child.stdout.on('data', (chunk) => {
    process.stdout.write(chunk);
    pending += chunk.toString('utf8');
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      const at = line.indexOf(`# ${mark}`);
      if (at >= 0) {
        skipped++;
        reason = line.slice(at + 2).trim();
      }
    }
  });
  child.on('close', (code, signal) => {
    process.stdout.write(`\n${skipped > 0 ? say.skipped(skipped, reason) : say.allRan}\n`);
    process.exitCode = code ?? (signal ? 1 : 0);
  });
}
