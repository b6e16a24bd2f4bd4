/** The words compare mode writes after a line and in its hover. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FigureValues, LineDelta } from '../../../../src/engine/compare/diff';
import { LINE_FIGURE_KEYS as LINE_FIGURES } from '../../../../src/engine/analysis/lineFigures';
import { grew, hoverMarkdown, inlineDeltaText } from '../../../../src/extension/compare/deltaText';

const GiB = 1024 ** 3;
const MiB = 1024 ** 2;

function figures(values: Partial<FigureValues>): FigureValues {
  return Object.fromEntries(LINE_FIGURES.map((k) => [k, values[k] ?? 0])) as FigureValues;
}

function delta(baseline: Partial<FigureValues> | undefined, current: Partial<FigureValues> | undefined, match?: 'line' | 'text', baselineLine = 10): LineDelta {
  const b = baseline && figures(baseline);
  const c = current && figures(current);
  return {
    file: '/p/m.py',
    line: 10,
    ...(b ? { baseline: { file: '/p/m.py', line: baselineLine, figures: b } } : {}),
    ...(c ? { current: { file: '/p/m.py', line: 10, figures: c } } : {}),
    ...(match ? { match } : {}),
    delta: figures(Object.fromEntries(LINE_FIGURES.map((k) => [k, (c?.[k] ?? 0) - (b?.[k] ?? 0)]))),
  };
}

describe('compare mode text', () => {
  it('says how much less is live at the peak than in the baseline', () => {
    const l = delta({ liveAtPeakBytes: 8 * GiB }, { liveAtPeakBytes: 1.9 * GiB }, 'line');
    assert.equal(inlineDeltaText(l), '-6.1 GiB at peak vs baseline');
    assert.equal(grew(l), false);
  });

  it('falls back to bytes allocated, marks moved and new lines, and says nothing when nothing changed', () => {
    assert.equal(inlineDeltaText(delta({ allocBytes: 10 * MiB }, { allocBytes: 30 * MiB }, 'text', 7)), '+20.0 MiB allocated vs baseline (was line 7)');
    assert.equal(inlineDeltaText(delta(undefined, { liveAtPeakBytes: 512 * MiB })), '+512.0 MiB at peak (new vs baseline)');
    assert.equal(inlineDeltaText(delta({ allocBytes: 5 }, { allocBytes: 5 }, 'line')), undefined);
    assert.equal(grew(delta({ allocBytes: 10 }, { allocBytes: 30 }, 'line')), true);
  });

  it('tabulates both runs in the hover', () => {
    const md = hoverMarkdown(delta({ liveAtPeakBytes: 2 * GiB, allocCount: 3 }, { liveAtPeakBytes: 1 * GiB, allocCount: 5 }, 'text', 4), 'before.pickle', 'after.pickle');
    assert.match(md, /\| live at peak \| 2\.0 GiB \| 1\.0 GiB \| -1\.0 GiB \|/);
    assert.match(md, /\| allocations \| 3 \| 5 \| \+2 \|/);
    assert.match(md, /was line 4 in the baseline/);
  });

  it("labels the hover's rows as the registry does, and ranks the note's figure as the registry does", () => {
    const md = hoverMarkdown(delta({ inclusiveLiveAtPeakBytes: 1 * GiB }, { inclusiveLiveAtPeakBytes: 3 * GiB }, 'line'), 'a', 'b');
    assert.match(md, /\| live at peak \(incl\. callees\) \| 1\.0 GiB \| 3\.0 GiB \| \+2\.0 GiB \|/);
    assert.match(md, /\| allocated \(incl\. callees\) \|/);
    assert.doesNotMatch(md, /with calls/);
    // Held at the peak by the code it called ranks before bytes the line allocated (LINE_RANKING, as compare sorts lines).
    const both = delta({ inclusiveLiveAtPeakBytes: 1 * GiB, allocBytes: 0 }, { inclusiveLiveAtPeakBytes: 3 * GiB, allocBytes: 5 * MiB }, 'line');
    assert.equal(inlineDeltaText(both), '+2.0 GiB at peak in calls vs baseline');
    assert.equal(grew(both), true);
  });
});

describe('compare mode text within vramLens.inline.maxLength', () => {
  /** The delta figure as formatDelta writes it, read off the text: a sign, digits, a unit. */
  const FIGURE = /^[+-]\d+(\.\d)? (B|KiB|MiB|GiB|TiB)\b/;

  it('leaves words out before the figure, and never cuts the figure', () => {
    // The reported case: "+5.3 GiB at peak in calls vs baseline" (37 characters) under a 30-character setting.
    const calls = delta({ inclusiveLiveAtPeakBytes: 1 * GiB }, { inclusiveLiveAtPeakBytes: 6.3 * GiB }, 'line');
    assert.equal(inlineDeltaText(calls), '+5.3 GiB at peak in calls vs baseline');
    assert.equal(inlineDeltaText(calls, 30), '+5.3 GiB at peak in calls');
    assert.equal(inlineDeltaText(calls, 20), '+5.3 GiB in calls');
    assert.equal(inlineDeltaText(calls, 8), '+5.3 GiB');
    assert.equal(inlineDeltaText(calls, 7), '', 'a figure that does not fit is left out whole');
    const moved = delta({ liveAtPeakBytes: 8 * GiB }, { liveAtPeakBytes: 1.9 * GiB }, 'text', 7);
    assert.equal(inlineDeltaText(moved, 41), '-6.1 GiB at peak vs baseline (was line 7)');
    assert.equal(inlineDeltaText(moved, 40), '-6.1 GiB at peak vs baseline');
    assert.equal(inlineDeltaText(moved, 30), '-6.1 GiB at peak vs baseline');
    assert.equal(inlineDeltaText(moved, 20), '-6.1 GiB at peak');
    const added = delta(undefined, { liveAtPeakBytes: 512 * MiB });
    assert.equal(inlineDeltaText(added, 30), '+512.0 MiB at peak (new)');
  });

  it('every budget from 1 to 60 gives text within it that starts with the whole figure (or nothing)', () => {
    const lines = [
      delta({ inclusiveLiveAtPeakBytes: 1 * GiB }, { inclusiveLiveAtPeakBytes: 6.3 * GiB }, 'text', 1234),
      delta({ liveAtPeakBytes: 8 * GiB }, { liveAtPeakBytes: 1.9 * GiB }, 'line'),
      delta({ allocBytes: 10 * MiB }, { allocBytes: 30 * MiB }, 'text', 7),
      delta(undefined, { allocBytes: 3 * MiB }),
      delta(undefined, { liveAtPeakBytes: 999 * MiB }),
    ];
    for (const l of lines) {
      const full = inlineDeltaText(l)!;
      const figure = FIGURE.exec(full)![0];
      for (let budget = 1; budget <= 60; budget++) {
        const text = inlineDeltaText(l, budget)!;
        assert.ok(text.length <= budget, `${JSON.stringify(text)} within ${budget}`);
        if (budget >= figure.length) assert.ok(text.startsWith(figure), `${JSON.stringify(text)} keeps ${figure} whole at ${budget}`);
        else assert.equal(text, '', `nothing when ${figure} does not fit ${budget}`);
        if (budget >= full.length) assert.equal(text, full);
      }
    }
  });
});
