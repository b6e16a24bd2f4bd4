/** `vram-lens diff` and `vram-lens advise` as a user runs them: figures, ranking, exit codes. */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { main } from '../../../src/cli/main';
import { diskLineText, resolveUnderRoot } from '../../../src/cli/sourceFiles';
import type { ComparisonReport } from '../../../src/engine/compare/report';
import type { Finding } from '../../../src/engine/advice/finding';
import { corpusDir, corpusMissing, referenceAnalysis, repoRoot } from '../../helpers/corpus';
import { corpusPath } from '../../helpers/adviceCorpus';

// A small real snapshot from the shared corpus (the tests that read it skip without the corpus).
const fixture = path.join(corpusDir, 'silmont2000-cs336-small.pickle');

async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(args, { out: (t) => (out += t), err: (t) => (err += t) });
  return { code, out, err };
}

interface RefLine {
  file: string;
  line: number;
  liveAtPeakBytes: number;
}
type RefDevice = { device: number; peakBytes: number; lines: RefLine[] };

/** file name's last two components + line: how the two cs336 checkouts name the same line. */
function key(file: string, line: number | bigint): string {
  return `${file.replace(/\\/g, '/').split('/').slice(-2).join('/')}:${String(line)}`;
}

describe('vram-lens diff', () => {
  it('finds no change between a run and itself', { skip: corpusMissing }, async () => {
    const r = await run(['diff', fixture, fixture]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /peak allocated +3\.0 GiB +3\.0 GiB +0 B/);
    assert.match(r.out, /No line of your code changed its figures/);
  });

  it('writes counts with thousands separators, as every view does (issue 29)', { skip: corpusMissing }, async () => {
    // 97 events in the small run, 8,507 in the forward pass (SOURCES.md of the corpus).
    const r = await run(['diff', fixture, path.join(corpusDir, 'kkaitlyn111-cs336-small-forward-uint64-line.pickle')]);
    assert.equal(r.code, 0, r.err);
    const events = r.out.split('\n').find((l) => l.trim().startsWith('events'));
    assert.match(events ?? '', /^\s*events\s+97\s+8,507\s+\+8,410\s*$/, events);
  });

  it('refuses a wrong number of files (exit 2) and an unknown device (exit 1)', { skip: corpusMissing }, async () => {
    assert.equal((await run(['diff', fixture])).code, 2);
    const r = await run(['diff', fixture, fixture, '--device', '4']);
    assert.equal(r.code, 1);
    assert.match(r.err, /no device 4/);
    assert.equal((await run(['diff', fixture, fixture, '--overlay', 'sideways'])).code, 2);
  });

  it('--json: totals and per-line deltas equal the oracle\'s figures of both runs, ranked by |change| live at peak', { skip: corpusMissing }, async () => {
    const a = corpusPath('magma27-cs336-user-metadata');
    const b = corpusPath('wedsonlin-cs336-medium-512-training');
    const r = await run(['diff', a, b, '--json']);
    assert.equal(r.code, 0, r.err);
    const report = JSON.parse(r.out) as ComparisonReport;
    const ref = referenceAnalysis([a, b]) as Record<string, { devices: RefDevice[] }>;
    const [ra, rb] = [ref[a].devices[0], ref[b].devices[0]];
    assert.equal(report.totalsDelta.peakBytes, rb.peakBytes - ra.peakBytes);

    // Independently: pair the oracle's lines by the last two path components and line number.
    const before = new Map(ra.lines.map((l) => [key(l.file, l.line), l.liveAtPeakBytes]));
    const after = new Map(rb.lines.map((l) => [key(l.file, l.line), l.liveAtPeakBytes]));
    for (const l of report.lines) {
      const k = key(l.current?.file ?? l.baseline!.file, l.current?.line ?? l.baseline!.line);
      assert.equal(l.delta.liveAtPeakBytes, (after.get(k) ?? 0) - (l.baseline ? before.get(key(l.baseline.file, l.baseline.line))! : 0), k);
    }
    const changes = [...new Set([...before.keys(), ...after.keys()])].map((k) => Math.abs((after.get(k) ?? 0) - (before.get(k) ?? 0)));
    assert.equal(Math.abs(report.lines[0].delta.liveAtPeakBytes), Math.max(...changes));
    const ranked = report.lines.map((l) => Math.abs(l.delta.liveAtPeakBytes));
    assert.deepEqual(ranked, [...ranked].sort((x, y) => y - x));
    assert.equal(report.files.length, 2, 'model.py and nn_utils.py paired across Windows and Linux paths');
  });

  it('--device-b compares two devices of one snapshot; --overlay keeps each run\'s peak', { skip: corpusMissing }, async () => {
    const f = corpusPath('constructor-sun-expandable-oom-4dev');
    const r = await run(['diff', f, f, '--device', '0', '--device-b', '2', '--json', '--top', '3', '--overlay', 'normalized', '--points', '50']);
    assert.equal(r.code, 0, r.err);
    const report = JSON.parse(r.out) as ComparisonReport;
    const ref = (referenceAnalysis([f])[f] as { devices: RefDevice[] }).devices;
    assert.equal(report.baseline.device, 0);
    assert.equal(report.current.device, 2);
    assert.equal(report.lines.length, 3);
    assert.ok(report.changedLineCount > 3);
    assert.equal(report.overlay?.x.length, 50);
    assert.equal(Math.max(...report.overlay.baseline.map((v) => v ?? 0)), ref.find((d) => d.device === 0)!.peakBytes);
    assert.equal(Math.max(...report.overlay.current.map((v) => v ?? 0)), ref.find((d) => d.device === 2)!.peakBytes);
  });
});

describe('vram-lens diff source roots', () => {
  it('resolves a recorded path into another checkout by its longest existing tail', () => {
    const root = mkdtempSync(path.join(tmpdir(), 'vram-src-'));
    mkdirSync(path.join(root, 'cs336_basics'));
    writeFileSync(path.join(root, 'cs336_basics', 'model.py'), 'import torch\nx = a * b\n');
    writeFileSync(path.join(root, 'model.py'), 'other\n');
    assert.equal(resolveUnderRoot(root, 'D:\\Dev\\a2\\cs336_basics\\model.py'), path.join(root, 'cs336_basics', 'model.py'));
    assert.equal(resolveUnderRoot(root, '/elsewhere/missing.py'), undefined);
    const text = diskLineText(root);
    assert.equal(text('/home/u/a2/cs336_basics/model.py', 2), 'x = a * b');
    assert.equal(text('/home/u/a2/cs336_basics/model.txt', 1), undefined, 'only Python sources are read');
  });
});

describe('vram-lens advise', () => {
  it('reports the OOM of constructor-sun with its evidence, as JSON and as text', { skip: corpusMissing }, async () => {
    const f = corpusPath('constructor-sun-expandable-oom-4dev');
    const json = await run(['advise', f, '--json']);
    assert.equal(json.code, 0, json.err);
    const { findings } = JSON.parse(json.out) as { findings: Finding[] };
    const oom = findings.find((x) => x.rule === 'out-of-memory')!;
    assert.equal(oom.evidence.deviceFreeBytes, 95682560);
    assert.equal(findings[0].severity, 'error', 'the out-of-memory error first');
    assert.equal(oom.severity, 'error');
    const text = await run(['advise', f, '--device', '1']);
    assert.match(text.out, /error {4}\[out-of-memory\] Out of memory: 4\.9 GiB requested at event 421/);
    assert.match(text.out, /evidence: oomEvent=421, requestedBytes=5308694528/);
  });

  it('says so when nothing applies, and rejects a missing file', { skip: corpusMissing }, async () => {
    // A snapshot where no rule applies (the shipped example now gets an allocator-settings finding).
    const r = await run(['advise', path.join(corpusDir, 'jaspersolt-eor-nn.pickle')]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /No findings/);
    assert.equal((await run(['advise', path.join(repoRoot, 'no-such.pickle')])).code, 1);
  });
});
