// Runs the unit tests (node --test, spec reporter) and ends with a line saying how many corpus tests
// did not run and why: the corpus of real snapshots is named by VRAM_LENS_CORPUS (default
// ../shared/snapshots beside the repository), and a run without it must not look like a full pass.
//
// A folder named on the command line stands for every `*.test.js` below it, at any depth (test/unit
// mirrors the source tree), listed here so that every Node version runs the same files.
import { readdirSync, statSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { runTestsReportingSkips } from './testsReportingSkips.mjs';

/** `*.test.js` files under `folder`, sorted, at any depth. */
function testFiles(folder) {
  return readdirSync(folder, { recursive: true })
    .map(String)
    .filter((name) => name.endsWith('.test.js'))
    .sort()
    .map((name) => join(folder, name));
}

const args = process.argv.slice(2).flatMap((arg) => (!arg.startsWith('-') && statSync(arg, { throwIfNoEntry: false })?.isDirectory() ? testFiles(arg) : [arg]));
// One test file per core (node's default leaves one core out: on two cores, one file at a time).
runTestsReportingSkips(
  args,
  'corpus not found at ',
  {
    skipped: (count, reason) => `${count} corpus test${count === 1 ? '' : 's'} (tests and suites) did not run: ${reason}`,
    allRan: 'All corpus tests ran (VRAM_LENS_CORPUS or ../shared/snapshots).',
  },
  [`--test-concurrency=${availableParallelism()}`],
);
