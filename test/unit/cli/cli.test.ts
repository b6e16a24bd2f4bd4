/** The `vram-lens` command line as a user runs it: output, exit codes and error messages. */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { main } from '../../../src/cli/main';
import type { PeakBucket } from '../../../src/engine/analysis/peakBreakdown';
import { describeBucket } from '../../../src/engine/analysis/peakBreakdown';
import { formatBytes, formatPercent } from '../../../src/engine/text/format';
import type { PlainValue } from '../../../src/engine/pickle/encoder';
import { encodePickle } from '../../../src/engine/pickle/encoder';
import { corpusDir, corpusFiles, corpusMissing, parseExactJson, referenceAnalysis, repoRoot, withSpecNames } from '../../helpers/corpus';

// A small real snapshot from the shared corpus (the tests that read it skip without the corpus).
const fixture = path.join(corpusDir, 'silmont2000-cs336-small.pickle');

const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(args, { out: (t) => (out += t), err: (t) => (err += t) });
  return { code, out, err };
}

describe('vram-lens analyze', () => {
  it('prints the summary and the top lines of the shipped example', { skip: corpusMissing }, async () => {
    const r = await run(['analyze', fixture]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /device 0: 97 events/);
    assert.match(r.out, /peak allocated {2}\d/);
    assert.match(r.out, /live@peak/);
    assert.match(r.out, /\.py:\d+\n/);
  });

  it('--json prints exactly the oracle figures of the shipped example', { skip: corpusMissing }, async () => {
    const r = await run(['analyze', fixture, '--json']);
    assert.equal(r.code, 0, r.err);
    const ours = parseExactJson(r.out) as { devices: Record<string, unknown>[] };
    const ref = (referenceAnalysis([fixture])[fixture] as { devices: Record<string, unknown>[] }).devices;
    const strip = ({ oomCount: _o, liveBlocksAtEnd: _l, activeTimelineChecksum: _a, reservedTimelineChecksum: _r, ...rest }: Record<string, unknown>) => rest;
    assert.deepEqual(ours.devices.map(withSpecNames).map(strip), ref.map(strip));
  });

  it('names every bucket of the peak no line of your own code holds, with bytes and share', { skip: corpusMissing }, async () => {
    // From the oracle: the peak minus every line's self bytes live at the peak, and its buckets.
    type Ref = { peakBytes: number; lines: { liveAtPeakBytes: number }[]; peakBreakdown: PeakBucket[] };
    const ref = (referenceAnalysis([fixture])[fixture] as { devices: Ref[] }).devices[0];
    const unattributed = ref.peakBytes - ref.lines.reduce((sum, l) => sum + l.liveAtPeakBytes, 0);
    assert.ok(unattributed > 0);
    assert.ok(ref.peakBreakdown.length > 0);
    const r = await run(['analyze', fixture]);
    assert.ok(r.out.includes(`not held by a line of your code: ${formatBytes(unattributed)} of the peak`), r.out);
    assert.ok(!r.out.includes('not your lines'), r.out);
    for (const b of ref.peakBreakdown) {
      const row = new RegExp(`${escape(formatBytes(b.bytes))} +${escape(formatPercent(b.bytes, ref.peakBytes))}  ${escape(describeBucket(b.kind, b.label))}\n`);
      assert.match(r.out, row);
    }
  });

  it('--device selects one device and rejects an unknown one', async () => {
    const files = corpusFiles();
    if (corpusMissing) return;
    const multi = files.find((f) => f.endsWith('constructor-sun-expandable-oom-4dev.pickle'))!;
    const one = await run(['analyze', multi, '--json', '--device', '1']);
    assert.equal(one.code, 0, one.err);
    assert.deepEqual(
      (JSON.parse(one.out) as { devices: { device: number }[] }).devices.map((d) => d.device),
      [1],
    );
    const none = await run(['analyze', multi, '--device', '3']);
    assert.equal(none.code, 1);
    assert.match(none.err, /no device 3 in this snapshot \(devices: 0, 1, 2\)/);
  });

  it('shows the OOM with the requested size and the free device memory', async () => {
    if (corpusMissing) return;
    const multi = corpusFiles().find((f) => f.endsWith('constructor-sun-expandable-oom-4dev.pickle'))!;
    const r = await run(['analyze', multi, '--device', '1']);
    assert.match(r.out, /OUT OF MEMORY {3}event \d+: [\d.]+ GiB requested, [\d.]+ (MiB|GiB) free on the device/);
  });

  /** Two allocations under the bootstrap's frames: one from the user's train.py:5, one from library code only. */
  async function bootstrapIsNeverALine(bootstrapFrames: PlainValue[]): Promise<void> {
    const train = { filename: '/home/me/proj/train.py', line: 5, name: '<module>' };
    const lib: PlainValue = { filename: '/usr/lib/python3/dist-packages/torch/nn/modules/module.py', line: 10, name: 'forward' };
    const alloc = (addr: number, size: number, frames: PlainValue[]): PlainValue => ({ action: 'alloc', addr, size, stream: 0, time_us: addr, frames });
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'vram-cli-')), 'profiled.pickle');
    writeFileSync(file, encodePickle({ segments: [], device_traces: [[alloc(1, 4096, [train, ...bootstrapFrames]), alloc(2, 1024, [lib, ...bootstrapFrames])]] }));
    const r = await run(['analyze', file, '--json']);
    assert.equal(r.code, 0, r.err);
    const device = (parseExactJson(r.out) as { devices: { peakBytes: number; lines: { file: string; line: number; liveAtPeakBytes: number }[] }[] }).devices[0];
    assert.equal(device.peakBytes, 4096 + 1024);
    assert.deepEqual(device.lines.map((l) => [l.file, l.line, l.liveAtPeakBytes]), [[train.filename, 5, 4096]]);
  }

  it('the Profile VRAM bootstrap is never a line of the user (as in the extension)', async () => {
    // The one-file bootstrap that snapshots recorded before the package name.
    await bootstrapIsNeverALine([{ filename: '/home/me/.vscode-server/extensions/vram-lens/src/python/vram_lens_bootstrap.py', line: 210, name: '_run_program' }]);
  });

  it('the frames of the bootstrap package (src/python/vram_lens/) are never lines of the user either', async () => {
    // As a run's stacks hold them: the entry, run and exit, then runpy (standard library) above the program.
    const extension = 'C:\\Users\\me\\.vscode\\extensions\\vram-lens\\src\\python\\vram_lens';
    await bootstrapIsNeverALine([
      { filename: '/home/me/.vscode-server/extensions/vram-lens/src/python/vram_lens/run.py', line: 97, name: '_run_target' },
      { filename: '/home/me/.vscode-server/extensions/vram-lens/src/python/vram_lens/run.py', line: 66, name: 'main' },
      { filename: `${extension}\\__main__.py`, line: 35, name: '_launch' },
    ]);
  });

  it('errors go to stderr with a non-zero exit and no stack trace', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'vram-cli-'));
    const words = path.join(dir, 'words.pickle');
    // python3: pickle.dumps({'apple': 1}, protocol=4)
    writeFileSync(words, Buffer.from('8004950e000000000000007d948c056170706c65944b01732e', 'hex'));
    const corrupt = path.join(dir, 'corrupt.pickle');
    writeFileSync(corrupt, Buffer.from('8004950e000000000000007d948c05617070', 'hex'));
    const cases: [string[], number, RegExp][] = [
      [['analyze', path.join(dir, 'missing.pickle')], 1, /missing\.pickle: no such file/],
      [['analyze', dir], 1, /is a directory/],
      [['analyze', words], 1, /not a memory snapshot: the dict has no 'segments' or 'device_traces' \(keys: apple\)/],
      [['analyze', corrupt], 1, /corrupt\.pickle: .*(byte|offset) \d+/i],
      [['analyze'], 2, /analyze takes one snapshot file/],
      [['analyze', fixture, '--top', 'x'], 2, /--top takes a whole number/],
      [['analyze', fixture, '--bogus'], 2, /unknown option --bogus/],
      [['frobnicate'], 2, /unknown command 'frobnicate'/],
    ];
    for (const [args, code, message] of cases) {
      const r = await run(args);
      assert.equal(r.code, code, `${args.join(' ')}: ${r.err}`);
      assert.match(r.err, message);
      assert.doesNotMatch(r.err, /\n\s+at /, 'no stack trace');
    }
  });

  it('the installed bin runs the bundled CLI', { skip: corpusMissing }, () => {
    const bin = path.join(repoRoot, 'bin', 'vram-lens.js');
    const out = execFileSync(process.execPath, [bin, 'analyze', fixture, '--top', '3'], { encoding: 'utf8' });
    assert.match(out, /device 0: 97 events/);
    const bad = spawnSync(process.execPath, [bin, 'analyze', '/nonexistent.pickle'], { encoding: 'utf8' });
    assert.equal(bad.status, 1);
    assert.match(bad.stderr, /no such file/);
  });
});
