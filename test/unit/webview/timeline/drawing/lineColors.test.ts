/** Distinct colours for the ten largest lines (drawing/lineColors.ts). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LineRow } from '../../../../../src/protocol/timeline';
import { distinctLineColors } from '../../../../../webview/timeline/drawing/lineColors';

describe('timeline colours: the ten largest lines', () => {
  const row = (id: number, color: number, liveAtPeakBytes: number) =>
    ({ id, file: `f${id}.py`, line: 1, color, allocCount: 1, allocBytes: liveAtPeakBytes, peakWhileAllocatingBytes: 0, liveAtPeakBytes, inclusiveLiveAtPeakBytes: 0 }) as LineRow;
  it('gives the ten largest lines ten different colours, keeping a hash colour when it is free', () => {
    // Twelve lines, all hashed to colour 3; sizes 12..1 (id 1 the largest).
    const rows = Array.from({ length: 12 }, (_, i) => row(i + 1, 3, 12 - i));
    const colors = distinctLineColors(rows, 12);
    // The largest keeps 3, the next take 4, 5, ... 11, 0, 1 (wrapping); lines 11 and 12 are not in the map.
    assert.deepEqual([...colors.entries()], [[1, 3], [2, 4], [3, 5], [4, 6], [5, 7], [6, 8], [7, 9], [8, 10], [9, 11], [10, 0]]);
    assert.equal(new Set(colors.values()).size, 10);
  });
  it('ranks by bytes live at the peak, not by the order of the rows', () => {
    const colors = distinctLineColors([row(1, 5, 10), row(2, 5, 99)], 12);
    assert.deepEqual([...colors.entries()], [[2, 5], [1, 6]]);
  });
});
