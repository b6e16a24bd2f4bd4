// The real PyTorch builds scripts/setup-torch.sh installs (bookworm's 1.13.1 natively, trixie's 2.6.0 and
// sid's 2.14.1 in debootstrap chroots, the wheel index's 2.13 CPU and 2.14.1 CUDA in virtual environments),
// and how to run a python inside one: the chroots see this clone, /tmp
// and /etc/hosts at the same paths (bind mounts, removed by cleanup()). Needs root. Used by test-torch.mjs and
// bench/backward-overhead.mjs. Arguments pass as argv arrays; nothing goes through a shell.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** Where the suites cache Predict VRAM's native library, one build per PyTorch (under /tmp: the chroots see it too). */
export const NATIVE_CACHE = '/tmp/vram-lens-predict-native';
const cache = process.env.VRAM_LENS_TORCH_CACHE ?? '/var/cache/vram-lens/torch';

// `predictOnly`: the wheels are there for Predict VRAM (a pip PyTorch, CPU-only and CUDA without a GPU); the other
// suites run on Debian's builds.
export const torchTargets = [
  { name: 'bookworm', root: '', python: '/usr/bin/python3', torchrun: false }, // Debian's 1.13 torchrun fails on Python 3.11 (Std enum)
  { name: 'trixie', root: path.join(cache, 'trixie'), python: 'python3', torchrun: true },
  { name: 'sid', root: path.join(cache, 'sid'), python: 'python3', torchrun: true },
  { name: 'wheel-2.13', root: '', python: path.join(cache, 'wheel-2.13', 'bin', 'python'), torchrun: false, predictOnly: true, venv: path.join(cache, 'wheel-2.13') },
  { name: 'wheel-2.14-cuda', root: '', python: path.join(cache, 'wheel-2.14-cuda', 'bin', 'python'), torchrun: false, predictOnly: true, venv: path.join(cache, 'wheel-2.14-cuda') },
];

const mounted = [];
function mount(args, target) {
  execFileSync('mount', [...args, target], { stdio: 'inherit' });
  mounted.push(target);
}
function isMountPoint(target) {
  return spawnSync('mountpoint', ['-q', target]).status === 0;
}

/**
 * Whether a bind mount at `target` shows `source` itself. One left by a run that was killed (SIGKILL skips
 * cleanup()) may show a clone since deleted and made again at the same path: the chroot's working folder is
 * then gone (Python's getcwd fails) and every suite in it fails.
 */
function showsSource(source, target) {
  try {
    const a = statSync(source);
    const b = statSync(target);
    return a.dev === b.dev && a.ino === b.ino;
  } catch {
    return false;
  }
}

/** Whether setup-torch.sh finished for this target. */
export function isReady(t) {
  if (t.venv) return existsSync(path.join(t.venv, '.vram-lens-ready'));
  return !t.root || existsSync(path.join(t.root, '.vram-lens-ready'));
}

/** Mounts what the chroot needs (a no-op for the native target). */
export function prepare(t) {
  if (!t.root) return;
  for (const [source, target, args] of [
    ['proc', path.join(t.root, 'proc'), ['-t', 'proc', 'proc']],
    ['/tmp', path.join(t.root, 'tmp'), ['--bind', '/tmp']],
    [repo, path.join(t.root, repo), ['--bind', repo]],
    ['/etc/hosts', path.join(t.root, 'etc', 'hosts'), ['--bind', '/etc/hosts']], // torchrun resolves this host's name
  ]) {
    if (source.startsWith('/etc/')) {
      if (!existsSync(target)) writeFileSync(target, '');
    } else mkdirSync(target, { recursive: true });
    if (isMountPoint(target)) {
      // Mounted already: by a run beside this one (kept), or left behind by a killed run (mounted again).
      if (source === 'proc' || showsSource(source, target)) continue;
      spawnSync('umount', ['-l', target], { stdio: 'inherit' });
    }
    mount(args, target);
  }
}

/** Unmounts what prepare() mounted, latest first. */
export function cleanup() {
  for (const target of mounted.reverse()) spawnSync('umount', ['-l', target], { stdio: 'inherit' });
  mounted.length = 0;
}

/** The PyTorch version the target has. */
export function torchVersion(t) {
  const marker = t.venv ?? t.root;
  return marker
    ? readFileSync(path.join(marker, '.vram-lens-ready'), 'utf8').trim().split('\n').pop()
    : execFileSync(t.python, ['-c', 'import torch; print(torch.__version__)'], { encoding: 'utf8' }).trim();
}

/** argv that runs the target's python (in the clone's folder), to which the script's arguments are appended. */
export function pythonCommand(t) {
  return t.root ? ['chroot', t.root, '/usr/bin/env', '-C', repo, t.python] : [t.python];
}
