#!/usr/bin/env node
// npm run test:torch: the bootstrap's suites against every real PyTorch that scripts/setup-torch.sh installed
// (bookworm's 1.13.1 natively, trixie's 2.6.0 and sid's 2.14.1 in chroots) and against the stand-in.
// Per real torch: test/torch (python unittest: signatures, import order, unrecorded paths, module ranges) and,
// where torchrun works, test/unit/core/profile/torchrunCancel (the runner cancelling 2 gloo ranks). The chroots see this
// clone and /tmp at the same paths (bind mounts, removed at the end), so every path means the same inside.
// Needs root (chroot, mount). Arguments pass as argv arrays; nothing goes through a shell.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cache = process.env.VRAM_LENS_TORCH_CACHE ?? '/var/cache/vram-lens/torch';
const only = process.argv.slice(2);

const targets = [
  { name: 'bookworm', root: '', python: '/usr/bin/python3', torchrun: false }, // Debian's 1.13 torchrun fails on Python 3.11 (Std enum)
  { name: 'trixie', root: path.join(cache, 'trixie'), python: 'python3', torchrun: true },
  { name: 'sid', root: path.join(cache, 'sid'), python: 'python3', torchrun: true },
].filter((t) => only.length === 0 || only.includes(t.name));

const mounted = [];
function mount(args, target) {
  execFileSync('mount', [...args, target], { stdio: 'inherit' });
  mounted.push(target);
}
function isMountPoint(target) {
  return spawnSync('mountpoint', ['-q', target]).status === 0;
}
function prepare(root) {
  for (const [source, target, args] of [
    ['proc', path.join(root, 'proc'), ['-t', 'proc', 'proc']],
    ['/tmp', path.join(root, 'tmp'), ['--bind', '/tmp']],
    [repo, path.join(root, repo), ['--bind', repo]],
    ['/etc/hosts', path.join(root, 'etc', 'hosts'), ['--bind', '/etc/hosts']], // torchrun resolves this host's name
  ]) {
    if (source.startsWith('/etc/')) {
      if (!existsSync(target)) writeFileSync(target, '');
    } else mkdirSync(target, { recursive: true });
    if (!isMountPoint(target)) mount(args, target);
  }
}
function cleanup() {
  for (const target of mounted.reverse()) spawnSync('umount', ['-l', target], { stdio: 'inherit' });
  mounted.length = 0;
}
process.on('SIGINT', () => {
  cleanup();
  process.exit(130);
});

const failures = [];
function step(label, command, args, env = {}) {
  console.log(`\n=== ${label}`);
  const r = spawnSync(command, args, { cwd: repo, stdio: 'inherit', env: { ...process.env, ...env } });
  if (r.status !== 0) failures.push(label);
}

try {
  step('stand-in torch: bootstrap suite', process.execPath, ['--test', 'out/test/unit/core/profile/profileBootstrap.test.js']);
  for (const t of targets) {
    if (t.root && !existsSync(path.join(t.root, '.vram-lens-ready'))) {
      failures.push(`${t.name}: not set up (run scripts/setup-torch.sh)`);
      continue;
    }
    if (t.root) prepare(t.root);
    const version = t.root ? readFileSync(path.join(t.root, '.vram-lens-ready'), 'utf8').trim().split('\n').pop() : execFileSync(t.python, ['-c', 'import torch; print(torch.__version__)'], { encoding: 'utf8' }).trim();
    const python = t.root ? ['chroot', t.root, '/usr/bin/env', '-C', repo, t.python] : [t.python];
    step(`${t.name} (PyTorch ${version}): test/torch`, python[0], [...python.slice(1), '-m', 'unittest', 'discover', '-s', 'test/torch', '-p', 'test_*.py', '-v']);
    if (t.torchrun) {
      step(`${t.name} (PyTorch ${version}): torchrun Cancel`, process.execPath, ['--test', 'out/test/unit/core/profile/torchrunCancel.test.js'], {
        VRAM_LENS_TORCH_PYTHON: t.python,
        VRAM_LENS_TORCH_ROOT: t.root,
      });
    }
  }
} finally {
  cleanup();
}
if (failures.length > 0) {
  console.error(`\ntest:torch failed: ${failures.join('; ')}`);
  process.exit(1);
}
console.log('\ntest:torch: all passed');
