/** The what-if panel's words (webview/whatif/words.ts), on results written out by hand. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { WhatIfOom, WhatIfResult } from '../../../../src/engine/allocator/whatIf';
import { BEGAN_ABOVE, capacityWords, cellSentence, gpuSizeWords, oomSentence, resultLines } from '../../../../webview/whatif/words';

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

function result(patch: Partial<WhatIfResult> = {}): WhatIfResult {
  return { settings: 'expandable_segments:True', capacityBytes: 8 * GiB, peakReservedBytes: 7.5 * GiB, reservedFreeAtPeakBytes: 300 * MiB, cudaMallocs: 12_345, cudaFrees: 3, oom: null, recordedOomsAvoided: 0, ...patch };
}

describe('what-if words', () => {
  it('a prediction\'s figures', () => {
    assert.deepEqual(resultLines(result()), ['Peak reserved: 7.5 GiB (300.0 MiB of it reserved but not allocated at that peak)', 'cudaMalloc calls: 12,345 (cudaFree: 3)']);
    assert.deepEqual(resultLines(result({ recordedOomsAvoided: 1 })).at(-1), 'The recorded out-of-memory error does not happen (1)');
    // More reserved than the capacity: the recording began above it.
    assert.equal(resultLines(result({ peakReservedBytes: 9 * GiB })).at(-1), BEGAN_ABOVE);
  });

  it('the first OOM: where, what was asked, the cache, the cause', () => {
    const s = oomSentence(oom);
    assert.equal(s.before, 'First out-of-memory error at event 3,738 (');
    assert.deepEqual(s.line, { file: '/home/u/proj/model.py', line: 427, label: 'model.py:427' });
    assert.equal(s.after, '): 64.0 MiB asked with 11.5 GiB reserved, largest free block 44.0 MiB. Cause: fragmentation: enough memory was free in the cache, but no block large enough.');
    const noLine = oomSentence({ ...oom, file: null, line: null, cause: 'capacity', recorded: true });
    assert.equal(noLine.line, undefined);
    assert.match(noLine.before + noLine.after, /\(no line of your code\): .* Cause: capacity: .* The recording ran out here too\.$/);
    assert.deepEqual(oomSentence(null), { before: 'Out of memory: no allocation fails.', line: undefined, after: '' });
  });

  it('a cell of the table: fits, the line where it runs out, or unknown when the recording began above the GPU', () => {
    assert.deepEqual(cellSentence({ capacityBytes: 8 * GiB, fits: true, peakReservedBytes: 7 * GiB, oom: null }), { fits: true, text: 'fits', line: undefined, title: 'Fits: peak reserved 7.0 GiB' });
    const out = cellSentence({ capacityBytes: 8 * GiB, fits: false, peakReservedBytes: 8 * GiB, oom });
    assert.deepEqual([out.fits, out.text, out.line?.label], [false, 'OOM at', 'model.py:427']);
    assert.match(out.title, /^Runs out at event 3,738: 64\.0 MiB asked with 11\.5 GiB reserved, largest free block 44\.0 MiB \(fragmentation\)$/);
    assert.equal(cellSentence({ capacityBytes: 8 * GiB, fits: false, peakReservedBytes: 8 * GiB, oom: { ...oom, file: null, line: null } }).text, 'OOM at event 3,738');
    assert.deepEqual(cellSentence({ capacityBytes: 8 * GiB, fits: true, peakReservedBytes: 22 * GiB, oom: null }).text, 'unknown');
  });

  it('capacities and GPU sizes', () => {
    assert.equal(capacityWords(result({ capacityBytes: null }), undefined, null), 'no memory limit');
    assert.equal(capacityWords(result(), { capacityBytes: 8 * GiB, allocConf: '', memoryFraction: 0.5 }, null), 'a GPU of 8.00 GiB x 0.5 (set_per_process_memory_fraction)');
    assert.equal(capacityWords(result({ capacityBytes: 78.5 * GiB }), { capacityBytes: null, allocConf: '', memoryFraction: null }, 78.5 * GiB), 'the 78.50 GiB the recording had');
    assert.equal(gpuSizeWords(12 * GiB), '12 GB');
  });
});
