// Runs the unit tests (node --test, spec reporter) and ends with a line saying how many corpus tests
// did not run and why: the corpus of real snapshots is named by VRAM_LENS_CORPUS (default
// ../shared/snapshots beside the repository), and a run without it must not look like a full pass.
//
// A folder named on the command line stands for every `*.test.js` below it, at any depth (test/unit
// mirrors the source tree), listed here so that every Node version runs the same files.
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const MARK = 'corpus not found at ';

/** `*.test.js` files under `folder`, sorted, at any depth. */
function testFiles(folder) {
  return readdirSync(folder, { recursive: true })
    .map(String)
    .filter((name) => name.endsWith('.test.js'))
    .sort()
    .map((name) => join(folder, name));
}

const args = process.argv.slice(2).flatMap((arg) => (!arg.startsWith('-') && statSync(arg, { throwIfNoEntry: false })?.isDirectory() ? testFiles(arg) : [arg]));
const child = spawn(process.execPath, ['--test', '--test-reporter=spec', ...args], { stdio: ['inherit', 'pipe', 'inherit'] });
let skipped = 0;
let reason = '';
let pending = '';
child.stdout.on('data', (chunk) => {
  process.stdout.write(chunk);
  pending += chunk.toString('utf8');
  const lines = pending.split('\n');
  pending = lines.pop() ?? '';
  for (const line of lines) {
    const at = line.indexOf(`# ${MARK}`);
    if (at >= 0) {
      skipped++;
      reason = line.slice(at + 2).trim();
    }
  }
});
child.on('close', (code, signal) => {
  if (skipped > 0) {
    process.stdout.write(`\n${skipped} corpus test${skipped === 1 ? '' : 's'} (tests and suites) did not run: ${reason}\n`);
  } else {
    process.stdout.write('\nAll corpus tests ran (VRAM_LENS_CORPUS or ../shared/snapshots).\n');
  }
  process.exitCode = code ?? (signal ? 1 : 0);
});
