/** The chart's text labels placed so that none overlaps another, in shorter forms where the full one fits nowhere (drawing/labelLayout.ts). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { boxesIntersect, placeLabels } from '../../../../../webview/timeline/drawing/labelLayout';

describe('timeline labels: placement', () => {
  const space = { left: 0, right: 300, ascent: 8, descent: 2, gap: 4 };
  it('puts labels right of their marker, else left, else in a lower row, else drops them', () => {
    const placed = placeLabels(
      [
        { text: 'peak 12.0 GiB', anchorX: 100, width: 80, rows: [10, 24], priority: 0 },
        // Same spot: right is taken by the peak label, left (100 - 4 - 30 = 66) is free.
        { text: 'OOM', anchorX: 100, width: 30, rows: [10, 24], priority: 1 },
        // Same spot again: both sides of row 10 taken; row 24 right side is free.
        { text: 'OOM post-mortem', anchorX: 100, width: 90, rows: [10, 24], priority: 2 },
        // Same spot a fourth time: row 24 left, x = 100 - 4 - 95 = 1.
        { text: 'mixed precision?', anchorX: 100, width: 95, rows: [10, 24], priority: 3 },
        // A fifth: every place taken (row 10 right and left, row 24 right and left): dropped.
        { text: 'fifth', anchorX: 100, width: 20, rows: [10, 24], priority: 3 },
        // Past the right edge on both sides at x = 295 with width 400: dropped.
        { text: 'x'.repeat(40), anchorX: 295, width: 400, rows: [10], priority: 4 },
      ],
      space,
    );
    assert.deepEqual(
      placed.map((p) => [p.text, p.x, p.y]),
      [
        ['peak 12.0 GiB', 104, 10],
        ['OOM', 66, 10],
        ['OOM post-mortem', 104, 24],
        ['mixed precision?', 1, 24],
      ],
    );
  });
  it('never returns two boxes that intersect, whatever the input', () => {
    // A pile of labels at a handful of spots, as an OOM run's markers are.
    let seed = 7;
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const requests = Array.from({ length: 200 }, (_, i) => ({
      text: `label ${i}`,
      anchorX: Math.floor(random() * 6) * 50,
      width: 20 + random() * 120,
      rows: [10, 24, 38, 51],
      priority: Math.floor(random() * 3),
    }));
    const placed = placeLabels(requests, space);
    assert.ok(placed.length > 4);
    for (let a = 0; a < placed.length; a++) {
      assert.ok(placed[a].x0 >= 0 && placed[a].x1 <= 300);
      for (let b = a + 1; b < placed.length; b++) assert.ok(!boxesIntersect(placed[a], placed[b]), `${placed[a].text} / ${placed[b].text}`);
    }
  });
});

describe('timeline labels: shorter forms', () => {
  it('uses a shorter form where the full label fits nowhere', () => {
    const placed = placeLabels(
      [{ text: 'peak 12.0 GiB · model.py:7', anchorX: 150, width: 170, rows: [10], priority: 0, shorter: [{ text: 'peak 12.0 GiB', width: 80 }] }],
      { left: 0, right: 300, ascent: 6, descent: 6, gap: 4 },
    );
    // Right: 154 + 170 > 300; left: 150 - 4 - 170 < 0; the short form goes right at 154.
    assert.deepEqual(placed.map((p) => [p.text, p.x]), [['peak 12.0 GiB', 154]]);
  });
});
