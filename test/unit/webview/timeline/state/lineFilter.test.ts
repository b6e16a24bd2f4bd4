/** Which lines the table shows and in what order, and which lines the chart highlights (state/lineFilter.ts). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LineRow } from '../../../../../src/protocol/timeline';
import { compareRows, rowPasses } from '../../../../../webview/timeline/state/lineFilter';
import { highlightedLines } from '../../../../../webview/timeline/state/lineFilter';

const row = (id: number, file: string, line: number, live: number, incl: number, alloc: number): LineRow => ({
  id,
  file,
  line,
  color: 0,
  allocCount: 1,
  allocBytes: alloc,
  peakWhileAllocatingBytes: 0,
  liveAtPeakBytes: live,
  inclusiveLiveAtPeakBytes: incl,
  freedBytes: 0,
  inclusiveAllocBytes: alloc,
  inclusivePeakWhileAllocatingBytes: 0,
  reservedGrowthBytes: 0,
  deviceCallCount: 0,
});

describe('timeline view: the lines table', () => {
  const rows = [row(0, '/p/model.py', 10, 100, 100, 500), row(1, '/p/train.py', 3, 0, 400, 50), row(2, '/p/model.py', 2, 300, 300, 300)];
  it('filters by file (any case), by the stack filter ids, and by bytes live at the peak', () => {
    const pass = (f: Partial<Parameters<typeof rowPasses>[1]>) =>
      rows.filter((r) => rowPasses(r, { file: '', stackIds: undefined, minBytes: 0, ...f })).map((r) => r.id);
    assert.deepEqual(pass({ file: 'MODEL' }), [0, 2]);
    assert.deepEqual(pass({ stackIds: new Set([1, 2]) }), [1, 2]);
    // Self or inclusive: train.py:3 has 0 self but 400 inclusive.
    assert.deepEqual(pass({ minBytes: 300 }), [1, 2]);
  });
  it('matches notebook cells by the name the table shows ("train.ipynb, cell 3, line 2"), by cell and by notebook', () => {
    // Recorded under ipykernel's temporary names; cell 3 (index 2) of /work/nb/train.ipynb, its lines shifted by 1.
    const cellFile = '/tmp/ipykernel_4242/1234567.py';
    const otherCell = '/tmp/ipykernel_4242/7654321.py';
    const places = {
      [cellFile]: { notebook: '/work/nb/train.ipynb', cell: 2, lineOffset: 1, changed: false },
      [otherCell]: { notebook: '/work/nb/eval.ipynb', cell: 0, lineOffset: 0, changed: false },
    };
    const cells = [row(0, cellFile, 1, 100, 100, 100), row(1, otherCell, 4, 100, 100, 100), row(2, '/p/model.py', 39, 100, 100, 100)];
    const pass = (file: string) => cells.filter((r) => rowPasses(r, { file, stackIds: undefined, minBytes: 0, places })).map((r) => r.id);
    assert.deepEqual(pass('cell 3'), [0], 'the cell as shown (1-based)');
    assert.deepEqual(pass('train.ipynb'), [0]);
    assert.deepEqual(pass('Train.ipynb, cell 3, line 2'), [0], 'the whole shown name, any case');
    assert.deepEqual(pass('.ipynb'), [0, 1]);
    assert.deepEqual(pass('/work/nb/'), [0, 1], 'the notebook\'s path');
    assert.deepEqual(pass('ipykernel_4242'), [0, 1], 'the name it was recorded under still matches');
    assert.deepEqual(pass('model.py:39'), [2], 'a file line as shown');
    assert.deepEqual(pass('cell 9'), []);
    // Without the cells known, a cell's row is its recorded file only.
    assert.deepEqual(cells.filter((r) => rowPasses(r, { file: 'train.ipynb', stackIds: undefined, minBytes: 0 })).map((r) => r.id), []);
    // The chart highlights the same rows.
    assert.deepEqual([...(highlightedLines(cells, 'cell 3', undefined, undefined, places) ?? [])], [0]);
  });

  it('sorts by a figure (ties by allocated bytes) or by file and line', () => {
    assert.deepEqual([...rows].sort(compareRows('liveAtPeakBytes', true)).map((r) => r.id), [2, 0, 1]);
    assert.deepEqual([...rows].sort(compareRows('allocBytes', false)).map((r) => r.id), [1, 2, 0]);
    assert.deepEqual([...rows].sort(compareRows('line', false)).map((r) => r.id), [2, 0, 1]);
  });
});

describe('timeline highlight', () => {
  const row = (id: number, file: string): LineRow => ({ id, file, line: id, color: 0, allocCount: 1, allocBytes: 1, peakWhileAllocatingBytes: 1, liveAtPeakBytes: 1, inclusiveLiveAtPeakBytes: 1, freedBytes: 0, inclusiveAllocBytes: 1, inclusivePeakWhileAllocatingBytes: 1, reservedGrowthBytes: 0, deviceCallCount: 0 });
  const rows = [row(1, '/p/model.py'), row(2, '/p/train.py'), row(3, '/p/MODEL_utils.py')];
  it('every line with no filter; the focused line alone; else the lines the file and stack filters pass', () => {
    assert.equal(highlightedLines(rows, '  ', undefined, undefined), undefined);
    assert.deepEqual([...highlightedLines(rows, 'model', undefined, 2)!], [2]);
    assert.deepEqual([...highlightedLines(rows, ' Model ', undefined, undefined)!].sort(), [1, 3]);
    assert.deepEqual([...highlightedLines(rows, 'model', new Set([3]), undefined)!], [3]);
    assert.deepEqual([...highlightedLines(rows, '', new Set([2]), undefined)!], [2]);
  });
});
