/** The what-if panel's words (webview/whatIf/whatIfText.ts), on results written out by hand. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { WhatIfOom, WhatIfReplayed } from '../../../../src/engine/allocator/whatIf';
import type { RecordingStart } from '../../../../src/engine/allocator/traceReplay';
import { capacityText, cellText, columnPeakText, gpuSizeText, oomText, resultLines } from '../../../../webview/whatIf/whatIfText';

const MiB = 2 ** 20;
const GiB = 2 ** 30;

const oom: WhatIfOom = {
  event: 3738,
  file: '/home/u/proj/model.py',
  line: 427,
  requestedBytes: 64 * MiB,
  reservedBytes: 11.5 * GiB,
  largestFreeBytes: 44 * MiB,
  cause: 'fragmentation',
  recorded: false,
};

function result(patch: Partial<WhatIfReplayed> = {}): WhatIfReplayed {
  return { settings: 'expandable_segments:True', capacityBytes: 8 * GiB, replayed: true, fits: true, start: null, peakReservedBytes: 7.5 * GiB, reservedFreeAtPeakBytes: 300 * MiB, cudaMallocs: 12_345, cudaFrees: 3, oom: null, recordedOomsAvoided: 0, ...patch };
}

describe('what-if words', () => {
  it('a prediction\'s figures', () => {
    assert.deepEqual(resultLines(result()), ['Peak reserved: 7.5 GiB (300.0 MiB of it reserved but not allocated at that peak)', 'cudaMalloc calls: 12,345 (cudaFree: 3)']);
    assert.deepEqual(resultLines(result({ recordedOomsAvoided: 1 })).at(-1), 'The recorded out-of-memory error does not happen (1)');
  });

  it('the state recording began in, when it did not fit the GPU: said first, and alone when nothing was replayed', () => {
    const released: RecordingStart = { outcome: 'released', limitBytes: 8 * GiB, reservedBytes: 11 * GiB, allocatedBytes: 5 * GiB, neededBytes: 5 * GiB, keptBytes: 6 * GiB };
    const lines = resultLines(result({ start: released }));
    assert.equal(lines[0], 'Recording began with 11.00 GiB reserved, more than the 8.00 GiB the allocator may use; the replay first releases the 5.00 GiB of cached segments PyTorch frees when cudaMalloc fails, and goes on from the 6.00 GiB left.');
    assert.equal(lines.length, 3);
    const allocated: RecordingStart = { ...released, outcome: 'allocated', allocatedBytes: 9 * GiB, neededBytes: 8.5 * GiB, keptBytes: 11 * GiB };
    const none = { settings: '', capacityBytes: 8 * GiB, replayed: false, fits: false, start: allocated, peakReservedBytes: null, reservedFreeAtPeakBytes: null, cudaMallocs: null, cudaFrees: null, oom: null, recordedOomsAvoided: 0 } as const;
    assert.deepEqual(resultLines(none), [
      'Does not fit: 9.00 GiB was already allocated before recording began (tensors that need at least 8.50 GiB), more than the 8.00 GiB the allocator may use.',
    ]);
  });

  it('the first OOM: where, what was asked, the cache, the cause', () => {
    const s = oomText(oom);
    assert.equal(s.before, 'First out-of-memory error at event 3,738 (');
    assert.deepEqual(s.line, { file: '/home/u/proj/model.py', line: 427, label: 'model.py:427' });
    assert.equal(s.after, '): 64.0 MiB asked with 11.5 GiB reserved, largest free block 44.0 MiB. Cause: fragmentation: enough memory was free in the cache, but no block large enough.');
    const noLine = oomText({ ...oom, file: null, line: null, cause: 'capacity', recorded: true });
    assert.equal(noLine.line, undefined);
    assert.match(noLine.before + noLine.after, /\(no line of your code\): .* Cause: capacity: .* The recording ran out here too\.$/);
    assert.deepEqual(oomText(null), { before: 'Out of memory: no allocation fails.', line: undefined, after: '' });
  });

  it('a cell of the table: fits, the line where it runs out, or unknown, as the engine decided', () => {
    assert.deepEqual(cellText({ capacityBytes: 8 * GiB, fits: true, peakReservedBytes: 7 * GiB, oom: null, start: null }), { fits: true, text: 'fits', line: undefined, title: 'Fits: peak reserved 7.0 GiB' });
    const out = cellText({ capacityBytes: 8 * GiB, fits: false, peakReservedBytes: 8 * GiB, oom, start: null });
    assert.deepEqual([out.fits, out.text, out.line?.label], [false, 'OOM at', 'model.py:427']);
    assert.match(out.title, /^Runs out at event 3,738: 64\.0 MiB asked with 11\.5 GiB reserved, largest free block 44\.0 MiB \(fragmentation\)$/);
    assert.equal(cellText({ capacityBytes: 8 * GiB, fits: false, peakReservedBytes: 8 * GiB, oom: { ...oom, file: null, line: null }, start: null }).text, 'OOM at event 3,738');
    const start: RecordingStart = { outcome: 'reserved', limitBytes: 8 * GiB, reservedBytes: 22 * GiB, allocatedBytes: 7 * GiB, neededBytes: 7 * GiB, keptBytes: 9 * GiB };
    const unknown = cellText({ capacityBytes: 8 * GiB, fits: null, peakReservedBytes: null, oom: null, start });
    assert.deepEqual([unknown.fits, unknown.text], [undefined, 'unknown']);
    assert.match(unknown.title, /^Unknown: recording began with 22\.00 GiB reserved, and the segments holding live tensors alone take 9\.00 GiB/);
    const before = cellText({ capacityBytes: 8 * GiB, fits: false, peakReservedBytes: null, oom: null, start: { ...start, outcome: 'allocated', allocatedBytes: 15 * GiB, neededBytes: 14 * GiB } });
    assert.deepEqual([before.fits, before.text], [false, 'OOM']);
    assert.match(before.title, /^Does not fit: 15\.00 GiB was already allocated before recording began/);
  });

  it('capacities and GPU sizes', () => {
    assert.equal(capacityText(result({ capacityBytes: null }), undefined, null), 'no memory limit');
    // The bytes used, so that how a typed size was read is plain (issue 29).
    assert.equal(capacityText(result(), { capacityBytes: 8 * GiB, allocConf: '', memoryFraction: 0.5 }, null), 'a GPU of 8.00 GiB (8,589,934,592 bytes) x 0.5 (set_per_process_memory_fraction)');
    assert.equal(capacityText(result({ capacityBytes: 78.5 * GiB }), { capacityBytes: null, allocConf: '', memoryFraction: null }, 78.5 * GiB), 'the 78.50 GiB the recording had');
    assert.equal(gpuSizeText(12 * GiB), '12 GB');
  });

  it('a column\'s heading says its peak is a replay with no memory limit, and the recorded settings\' title names the recording\'s own peak (issue 29)', () => {
    // The NCA run: the recorded settings reserve 23.5 GiB with no limit, where the recording reserved 20.7 GiB.
    const recorded = columnPeakText(23.5 * GiB, 'recorded', 20.7 * GiB);
    assert.equal(recorded.text, 'no limit: peak 23.5 GiB');
    assert.equal(recorded.title, 'Replayed with no memory limit, these settings reserve at most 23.5 GiB; the recording itself reserved at most 20.7 GiB. The rows below replay each GPU size.');
    assert.equal(columnPeakText(11 * GiB, 'expandable', 20.7 * GiB).title, 'Replayed with no memory limit, these settings reserve at most 11.0 GiB. The rows below replay each GPU size.');
    assert.equal(columnPeakText(23.5 * GiB, 'recorded', undefined).title, 'Replayed with no memory limit, these settings reserve at most 23.5 GiB. The rows below replay each GPU size.');
  });
});
