/** Comparing two runs: file pairing across machines, line pairing across edits, deltas and ranking. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LineFigures } from '../../../../src/engine/analysis/lines';
import type { ComparisonSide, DeviceTotals } from '../../../../src/engine/compare/diff';
import { changedLines, compareRuns } from '../../../../src/engine/compare/diff';
import { matchFiles } from '../../../../src/engine/compare/fileMatch';
import { matchLines } from '../../../../src/engine/compare/lineMatch';

const MiB = 1024 * 1024;

function line(file: string, lineNo: number, liveAtPeakBytes: number, allocBytes = liveAtPeakBytes, allocCount = 1): LineFigures {
  return {
    file,
    line: lineNo,
    lineId: 0,
    allocCount,
    allocBytes,
    freedBytes: 0,
    peakWhileAllocatingBytes: 0,
    liveAtPeakBytes,
    inclusiveAllocBytes: allocBytes,
    inclusivePeakWhileAllocatingBytes: 0,
    inclusiveLiveAtPeakBytes: liveAtPeakBytes,
    reservedGrowthBytes: 0,
    deviceCallCount: 0,
  };
}

const totals = (peakBytes: number, peakReservedBytes = peakBytes, events = 10): DeviceTotals => ({
  events,
  peakBytes,
  peakReservedBytes,
  allocations: events / 2,
  oomCount: 0,
});

function sideOf(label: string, lines: LineFigures[], text?: Record<string, string[]>, t = totals(0)): ComparisonSide {
  return {
    label,
    device: 0,
    totals: t,
    lines,
    lineText: text ? (file, n) => text[file]?.[n - 1] : undefined,
  };
}

describe('matchFiles', () => {
  it('pairs the same program recorded under different roots, by the longest common path tail', () => {
    const m = matchFiles(
      ['/home/brian/proj/cs336_basics/model.py', '/home/brian/proj/train.py'],
      ['/root/proj/cs336_basics/model.py', '/root/proj/train.py', '/root/proj/other/model.py'],
    );
    assert.equal(m.get('/home/brian/proj/cs336_basics/model.py'), '/root/proj/cs336_basics/model.py');
    assert.equal(m.get('/home/brian/proj/train.py'), '/root/proj/train.py');
    assert.equal(m.size, 2);
  });

  it('reads Windows paths like POSIX ones, case-insensitively', () => {
    const m = matchFiles(['D:\\Dev\\a2\\cs336_basics\\Model.py'], ['/home/lin/a2/cs336_basics/model.py']);
    assert.equal(m.get('D:\\Dev\\a2\\cs336_basics\\Model.py'), '/home/lin/a2/cs336_basics/model.py');
  });

  it('leaves a file unpaired when two counterparts are equally good, or none shares its name', () => {
    const m = matchFiles(['/a/model.py', '/a/x.py'], ['/b/one/model.py', '/b/two/model.py', '/b/y.py']);
    assert.equal(m.size, 0);
  });
});

describe('matchLines', () => {
  it('pairs by line number when the text is unknown', () => {
    const r = matchLines([line('f', 3, 1)], [line('f', 3, 2), line('f', 4, 2)]);
    assert.deepEqual(
      r.pairs.map((p) => [p.baseline.line, p.current.line, p.match]),
      [[3, 3, 'line']],
    );
    assert.deepEqual(
      r.currentOnly.map((l) => l.line),
      [4],
    );
  });

  it('follows a statement that moved down two lines when lines were inserted above it', () => {
    const before = { f: ['import torch', 'x = a * b', 'y = x + 1'] };
    const after = { f: ['import torch', '# new', '# comment', 'x = a * b', 'y = x + 1'] };
    const r = matchLines(
      [line('f', 2, 10), line('f', 3, 20)],
      [line('f', 4, 10), line('f', 5, 20)],
      (f, n) => before[f as 'f'][n - 1],
      (f, n) => after[f as 'f'][n - 1],
    );
    assert.deepEqual(
      r.pairs.map((p) => [p.baseline.line, p.current.line, p.match]).sort(),
      [
        [2, 4, 'text'],
        [3, 5, 'text'],
      ],
    );
    assert.equal(r.baselineOnly.length + r.currentOnly.length, 0);
  });

  it('does not pair equal line numbers whose text differs, and picks the nearest of repeated texts', () => {
    const before = { f: ['h = relu(h)', 'z = 1', 'w = 2'] };
    const after = { f: ['h = relu(h)', 'q = 0', 'w = 2', 'h = relu(h)', 'h = relu(h)'] };
    const r = matchLines(
      [line('f', 1, 1), line('f', 2, 1)],
      [line('f', 2, 1), line('f', 4, 1), line('f', 5, 1)],
      (f, n) => before[f as 'f'][n - 1],
      (f, n) => after[f as 'f'][n - 1],
    );
    // baseline 1 "h = relu(h)" has no recorded current line 1; nearest same text is current 4.
    assert.deepEqual(
      r.pairs.map((p) => [p.baseline.line, p.current.line, p.match]),
      [[1, 4, 'text']],
    );
    assert.deepEqual(
      r.baselineOnly.map((l) => l.line),
      [2],
    );
    assert.deepEqual(r.currentOnly.map((l) => l.line).sort(), [2, 5]);
  });
});

describe('compareRuns', () => {
  it('gives per-line deltas, lines on one side only, and ranks by change in live-at-peak bytes', () => {
    const base = sideOf(
      'before',
      [line('/u/m.py', 10, 512 * MiB), line('/u/m.py', 20, 64 * MiB), line('/u/gone.py', 5, 8 * MiB)],
      undefined,
      totals(1024 * MiB, 1536 * MiB, 100),
    );
    const cur = sideOf(
      'after',
      [line('/v/m.py', 10, 128 * MiB), line('/v/m.py', 20, 96 * MiB), line('/v/new.py', 1, 16 * MiB)],
      undefined,
      totals(640 * MiB, 1024 * MiB, 120),
    );
    const c = compareRuns(base, cur);
    assert.deepEqual(c.totalsDelta, { events: 20, peakBytes: -384 * MiB, peakReservedBytes: -512 * MiB, allocations: 10, oomCount: 0 });
    assert.deepEqual(
      c.lines.map((l) => [l.file, l.line, l.delta.liveAtPeakBytes / MiB]),
      [
        ['/v/m.py', 10, -384],
        ['/v/m.py', 20, 32],
        ['/v/new.py', 1, 16],
        ['/u/gone.py', 5, -8],
      ],
    );
    const moved = c.lines[0];
    assert.equal(moved.baseline?.file, '/u/m.py');
    assert.equal(moved.current?.figures.liveAtPeakBytes, 128 * MiB);
    assert.equal(c.lines[3].current, undefined);
  });

  it('counts a line that moved in an edited file as one line, not a removal and an addition', () => {
    const before = { '/p/t.py': ['a', 'loss = model(x)'] };
    const after = { '/p/t.py': ['a', 'b', 'c', 'loss = model(x)'] };
    const c = compareRuns(
      sideOf('b', [line('/p/t.py', 2, 100)], before),
      sideOf('c', [line('/p/t.py', 4, 60)], after),
    );
    assert.equal(c.lines.length, 1);
    assert.equal(c.lines[0].match, 'text');
    assert.equal(c.lines[0].line, 4);
    assert.equal(c.lines[0].delta.liveAtPeakBytes, -40);
  });

  it('finds nothing changed when a run is compared with itself', () => {
    const lines = [line('/p/t.py', 2, 100), line('/p/t.py', 7, 3)];
    const c = compareRuns(sideOf('a', lines), sideOf('a', lines));
    assert.equal(changedLines(c).length, 0);
    assert.equal(c.lines.length, 2);
    assert.deepEqual(c.totalsDelta, { events: 0, peakBytes: 0, peakReservedBytes: 0, allocations: 0, oomCount: 0 });
  });
});
