/**
 * The launcher's V8 code cache (Node 20; Node 22+ keeps its own): a build's cache is reused by its next
 * run (the compiler tuning sets its flag back first), and two builds run in turn (two installs, or two
 * builds compared side by side) keep theirs.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import * as nodeModule from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { repoRoot } from '../../helpers/corpus';

const ownCache = typeof (nodeModule as { enableCompileCache?: unknown }).enableCompileCache === 'function' ? 'Node keeps its own compile cache' : false;
const dir = mkdtempSync(path.join(tmpdir(), 'vram-lens-code-cache-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const sample = path.join(repoRoot, 'media', 'samples', 'similarity-eager.pickle');
const cacheHome = path.join(dir, 'cache-home');

/** A copy of the launcher and the bundle: a build of its own (the cache is keyed by the bundle's size and time). */
function build(name: string, seconds: number, extraBytes: number): string {
  const root = path.join(dir, name);
  mkdirSync(path.join(root, 'bin'), { recursive: true });
  mkdirSync(path.join(root, 'dist'), { recursive: true });
  copyFileSync(path.join(repoRoot, 'bin', 'vram-lens.js'), path.join(root, 'bin', 'vram-lens.js'));
  const bundle = path.join(root, 'dist', 'cli.js');
  copyFileSync(path.join(repoRoot, 'dist', 'cli.js'), bundle);
  if (extraBytes > 0) writeFileSync(bundle, `${' '.repeat(extraBytes)}\n`, { flag: 'a' });
  utimesSync(bundle, seconds, seconds);
  return path.join(root, 'bin', 'vram-lens.js');
}

/** The folder of the launcher's caches under `cacheHome` (one per Node version). */
function cacheFolder(): string {
  return path.join(cacheHome, 'vram-lens', readdirSync(path.join(cacheHome, 'vram-lens'))[0]);
}

/** The cache files after a run of `launcher` (`analyze` of a small file: the compiler tuning's case), with their times. */
function run(launcher: string): Map<string, number> {
  const r = spawnSync(process.execPath, [launcher, 'analyze', sample, '--json'], {
    env: { ...process.env, XDG_CACHE_HOME: cacheHome, VRAM_LENS_COMPILE_CACHE: '' },
    encoding: 'utf8',
  });
  assert.equal(r.status, 0, r.stderr);
  const folder = cacheFolder();
  return new Map(readdirSync(folder).map((name) => [name, statSync(path.join(folder, name)).mtimeMs]));
}

describe("the launcher's code cache", { skip: ownCache }, () => {
  it("is usable by the next run: the compiler tuning's flag is set back before it is written", () => {
    // A cache made under another flag is rejected by V8 and written again by every run: the CLI
    // would compile from source each time. The second run must find the first one's cache and keep it.
    rmSync(cacheHome, { recursive: true, force: true });
    const launcher = path.join(repoRoot, 'bin', 'vram-lens.js');
    const first = run(launcher);
    const bytes = readFileSync(path.join(cacheFolder(), [...first.keys()][0]));
    const second = run(launcher);
    assert.equal(first.size, 1);
    assert.deepEqual([...second.keys()], [...first.keys()]);
    assert.deepEqual([...second.values()], [...first.values()], 'the cache was written again: V8 rejected it');
    assert.deepEqual(readFileSync(path.join(cacheFolder(), [...second.keys()][0])), bytes);
  });

  it('keeps the caches of two builds run in turn, each reused (not written again) by its next run', () => {
    rmSync(cacheHome, { recursive: true, force: true });
    const a = build('a', 1_700_000_000, 0);
    const b = build('b', 1_700_000_100, 1);
    const afterA = run(a);
    const afterB = run(b);
    assert.equal(afterB.size, 2, 'the second build deleted the first one\'s cache');
    const again = run(a);
    const againB = run(b);
    assert.deepEqual(again, afterB, "the first build's cache was written again");
    assert.deepEqual(againB, afterB);
    assert.equal(afterA.size, 1);
  });

  it('keeps the newest three of other builds', () => {
    rmSync(cacheHome, { recursive: true, force: true });
    const launchers = [0, 1, 2, 3, 4].map((k) => build(`k${k}`, 1_700_001_000 + 100 * k, 10 + k));
    for (const launcher of launchers) run(launcher);
    const names = [...run(launchers[4]).keys()].sort();
    // This build's cache and the three written before it; the oldest is gone.
    assert.equal(names.length, 4);
    const sizeOf = (k: number) => statSync(path.join(dir, `k${k}`, 'dist', 'cli.js')).size;
    for (const k of [1, 2, 3, 4]) assert.ok(names.some((n) => n.startsWith(`cli.js-${sizeOf(k)}-`)), `build k${k} lost its cache`);
    assert.ok(!names.some((n) => n.startsWith(`cli.js-${sizeOf(0)}-`)));
  });
});
