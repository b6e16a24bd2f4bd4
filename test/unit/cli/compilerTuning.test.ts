/** The command line's compiler tuning: no inlining for small plain pickles, V8's defaults otherwise. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { SMALL_INPUT_BYTES, compilesBetterWithoutInlining, inputFiles, tuneCompiler } from '../../../src/cli/compilerTuning';
import { main } from '../../../src/cli/main';
import { corpusDir, corpusMissing, repoRoot } from '../../helpers/corpus';

const dir = mkdtempSync(path.join(tmpdir(), 'vram-lens-tuning-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A file of `bytes` bytes starting with `head` (the rest a hole: no disk used). */
function file(name: string, bytes: number, head: readonly number[] = [0x80, 0x04]): string {
  const at = path.join(dir, name);
  writeFileSync(at, Uint8Array.from(head));
  truncateSync(at, bytes);
  return at;
}

describe('compilesBetterWithoutInlining', () => {
  it('holds for plain pickles up to the bound in all, not past it', () => {
    assert.equal(compilesBetterWithoutInlining([{ bytes: SMALL_INPUT_BYTES, gzip: false }]), true);
    assert.equal(compilesBetterWithoutInlining([{ bytes: SMALL_INPUT_BYTES + 1, gzip: false }]), false);
    // `diff A B` reads both: their sum counts.
    const half = SMALL_INPUT_BYTES / 2;
    assert.equal(compilesBetterWithoutInlining([{ bytes: half, gzip: false }, { bytes: half, gzip: false }]), true);
    assert.equal(compilesBetterWithoutInlining([{ bytes: half, gzip: false }, { bytes: half + 1, gzip: false }]), false);
  });

  it('does not hold for a gzip file (its pickle may be many times its length) or for no file', () => {
    assert.equal(compilesBetterWithoutInlining([{ bytes: 1000, gzip: true }]), false);
    assert.equal(compilesBetterWithoutInlining([{ bytes: 1000, gzip: false }, { bytes: 1000, gzip: true }]), false);
    assert.equal(compilesBetterWithoutInlining([]), false);
  });
});

describe('inputFiles', () => {
  it("reads each file's length and whether it starts with gzip's magic", () => {
    const plain = file('plain.pickle', 5000);
    const gz = file('snap.pickle.gz', 300, [0x1f, 0x8b, 0x08]);
    assert.deepEqual(inputFiles([plain, gz]), [
      { bytes: 5000, gzip: false },
      { bytes: 300, gzip: true },
    ]);
    // One byte of 0x1f is not gzip's magic.
    assert.deepEqual(inputFiles([file('one.pickle', 1, [0x1f])]), [{ bytes: 1, gzip: false }]);
  });

  it('is undefined when a path is missing or not a file, or its first bytes say it is no snapshot', () => {
    const folder = path.join(dir, 'folder');
    mkdirSync(folder, { recursive: true });
    assert.equal(inputFiles([path.join(dir, 'missing.pickle')]), undefined);
    assert.equal(inputFiles([file('ok.pickle', 10), folder]), undefined);
    // As the reader tells them (`formatOf`): an empty file, a torch.save archive (a zip).
    assert.equal(inputFiles([file('empty.pickle', 0, [])]), undefined);
    assert.equal(inputFiles([file('model.pt', 100, [0x50, 0x4b, 0x03, 0x04])]), undefined);
  });
});

describe('tuneCompiler', () => {
  it('tunes nothing for a large file, a command that runs a program, a missing file, or when turned off', () => {
    const large = file('large.pickle', SMALL_INPUT_BYTES + 1);
    const small = file('small.pickle', 1000);
    assert.equal(tuneCompiler('analyze', [large], {}), undefined);
    assert.equal(tuneCompiler('run', [small], {}), undefined);
    assert.equal(tuneCompiler('predict', [small], {}), undefined);
    assert.equal(tuneCompiler('analyze', [path.join(dir, 'missing.pickle')], {}), undefined);
    assert.equal(tuneCompiler('analyze', [small], { VRAM_LENS_V8_TUNING: '0' }), undefined);
  });

  it('is asked for by main with the command and its positionals, and undone once the command is done', async () => {
    const sample = path.join(repoRoot, 'media', 'samples', 'similarity-eager.pickle');
    const calls: string[] = [];
    let out = '';
    const code = await main(['analyze', '--top', '3', sample, '--json'], {
      out: (t) => {
        calls.push('out');
        out += t;
      },
      err: () => undefined,
      tuneCompiler: (command, paths) => {
        calls.push(`tune ${command} ${paths.join(' ')}`);
        return () => calls.push('restore');
      },
    });
    assert.equal(code, 0);
    assert.ok(out.length > 0);
    // The option's value (3) is not a path; the report is written while tuned, then it is undone.
    assert.deepEqual(calls, [`tune analyze ${sample}`, 'out', 'restore']);
  });

  const corpusFile = path.join(corpusDir, 'wedsonlin-cs336-medium-512-training.pickle');
  it('turns inlining off in a real run of a small snapshot, and only there', { skip: corpusMissing }, () => {
    // V8 reports each function it inlines under --trace-turbo-inlining: the CLI's run of a 3.9 MB file
    // optimises its loops with no inlining once tuned (only a compile job started before the tuning, if
    // any, could inline), with many (over a thousand) under V8's defaults.
    const inlined = (env: NodeJS.ProcessEnv) => {
      const run = spawnSync(process.execPath, ['--trace-turbo-inlining', path.join(repoRoot, 'bin', 'vram-lens.js'), 'analyze', corpusFile, '--json'], {
        env: { ...process.env, ...env },
        encoding: 'utf8',
        maxBuffer: 256 * 1024 * 1024,
      });
      assert.equal(run.status, 0, run.stderr);
      return run.stdout.split('\n').filter((l) => l.startsWith('Inlining ')).length;
    };
    const tuned = inlined({});
    const defaults = inlined({ VRAM_LENS_V8_TUNING: '0' });
    assert.ok(defaults > 100, `${defaults} functions inlined under V8's defaults`);
    assert.ok(tuned * 20 < defaults, `${tuned} functions inlined once tuned, ${defaults} under V8's defaults`);
  });
});
