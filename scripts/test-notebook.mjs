#!/usr/bin/env node
// npm run test:notebook: the notebook suites (test/notebook) against every Jupyter kernel scripts/setup-notebook.sh
// installed: bookworm's ipykernel 6.17 natively, trixie's 6.29 and sid's 7.2 in the PyTorch chroots of
// scripts/setup-torch.sh (they see this clone and /tmp at the same paths: bind mounts, removed at the end).
// The chroots need root (chroot, mount). Arguments pass as argv arrays; nothing goes through a shell.
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { spawnSync } from 'node:child_process';
import { NATIVE_CACHE, cleanup, isReady, prepare, repo, torchTargets } from './torch-chroots.mjs';

const only = process.argv.slice(2);
const targets = torchTargets.filter((t) => only.length === 0 || only.includes(t.name));

for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]]) {
  process.on(signal, () => {
    cleanup();
    process.exit(code);
  });
}

const failures = [];
try {
  for (const t of targets) {
    if (t.root && (!isReady(t) || !existsSync(path.join(t.root, '.vram-lens-notebook-ready')))) {
      failures.push(`${t.name}: no kernel (run scripts/setup-torch.sh, then scripts/setup-notebook.sh)`);
      continue;
    }
    prepare(t);
    console.log(`\n=== ${t.name}: test/notebook`);
    // Predict VRAM on a notebook builds its native library once per PyTorch: in the cache test:torch fills.
    const env = { ...process.env, VRAM_LENS_NOTEBOOK_PYTHON: t.python, VRAM_LENS_TEST_NATIVE_CACHE: NATIVE_CACHE, ...(t.root ? { VRAM_LENS_NOTEBOOK_ROOT: t.root } : {}) };
    const r = spawnSync(process.execPath, ['--test', '--test-reporter=spec', '--test-concurrency=1', 'out/test/notebook/'], { cwd: repo, stdio: 'inherit', env });
    if (r.status !== 0) failures.push(t.name);
  }
} finally {
  cleanup();
}
if (failures.length > 0) {
  console.error(`\ntest:notebook failed: ${failures.join('; ')}`);
  process.exit(1);
}
console.log('\ntest:notebook: all passed');
