#!/usr/bin/env node
// The Python checks of `npm test`: flake8, then mypy --strict (settings in setup.cfg), over every Python file
// the project owns: the bootstrap package (src/python/vram_lens, checked against Python 3.7, the oldest it
// runs on), the spec oracle (test/reference), the Python test helpers, the benchmark scripts (bench/*.py),
// the real-PyTorch suites (test/torch, with torch untyped) and the stand-in torch (test/fixtures/fake-torch,
// checked on its own since it is the package `torch`). The tools are Debian's, installed by
// scripts/setup-python-checks.sh; without them this fails and says so. Arguments pass as argv arrays.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SETUP = 'bash scripts/setup-python-checks.sh';

/** The `.py` files directly in a folder of the repository, sorted. */
const pyFiles = (folder) =>
  existsSync(path.join(repo, folder))
    ? readdirSync(path.join(repo, folder))
        .filter((f) => f.endsWith('.py'))
        .sort()
        .map((f) => path.join(folder, f))
    : [];

const PACKAGE = 'src/python/vram_lens';
const FAKE_TORCH = 'test/fixtures/fake-torch/torch';
const scripts = [...pyFiles('test/reference'), ...pyFiles('test/helpers'), ...pyFiles('test/notebook'), ...pyFiles('bench'), ...pyFiles('test/torch'), ...pyFiles('scripts')];

/** [label, command, args]: every check runs, and the run fails if any did. */
const checks = [
  ['flake8', 'flake8', [PACKAGE, 'test/fixtures/fake-torch', ...scripts]],
  ['mypy --strict: the bootstrap package (Python 3.7)', 'mypy', ['--python-version', '3.7', '--cache-dir', '.mypy_cache/package', PACKAGE]],
  ['mypy --strict: oracle, helpers, benchmarks, real-PyTorch suites', 'mypy', ['--cache-dir', '.mypy_cache/scripts', ...scripts]],
  ['mypy --strict: the stand-in torch', 'mypy', ['--cache-dir', '.mypy_cache/fake-torch', FAKE_TORCH]],
];

for (const tool of new Set(checks.map(([, command]) => command))) {
  const probe = spawnSync(tool, ['--version'], { cwd: repo, encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    console.error(`check-python: ${tool} is not installed (${probe.error?.message ?? probe.stderr.trim()}); run \`${SETUP}\` (Debian's mypy and flake8)`);
    process.exit(1);
  }
}

const failed = [];
for (const [label, command, args] of checks) {
  const started = Date.now();
  const r = spawnSync(command, args, { cwd: repo, stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  const output = `${r.stdout}${r.stderr}`.trim();
  if (r.status !== 0) {
    failed.push(label);
    console.error(`check-python: ${label}: failed\n${output}`);
  } else console.log(`check-python: ${label}: clean (${((Date.now() - started) / 1000).toFixed(1)} s)`);
}
if (failed.length > 0) {
  console.error(`check-python: ${failed.length} check(s) failed: ${failed.join('; ')}`);
  process.exit(1);
}
