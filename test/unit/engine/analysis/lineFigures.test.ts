/**
 * The per-line figure registry is the one list: the analysis rows, the JSON report, compare's deltas
 * and the inline-figure setting in package.json all follow it, so a new figure is one edit and none
 * is silently ignored. A figure planted in a copy of the registry (one entry, computed by its rule)
 * reaches every surface: the analysis, the JSON, the CLI's table, compare's deltas and hover, the
 * timeline's table, the summary, the inline text and its setting, the hover and the function lens.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import type { FigureRegistry, LineFigureKey, LineFigureSpec } from '../../../../src/engine/analysis/lineFigures';
import { LINE_FIGURES, LINE_FIGURE_KEYS, displayOrder, figureValues, inlineFiguresSetting } from '../../../../src/engine/analysis/lineFigures';
import type { LineFigures } from '../../../../src/engine/analysis/lines';
import { analyzeSnapshot } from '../../../../src/engine/analysis/analyze';
import { rangeFigures } from '../../../../src/engine/analysis/rangeFigures';
import { toReport } from '../../../../src/engine/analysis/report';
import { inlineFigureChoice, inlineTextBuilder } from '../../../../src/engine/annotate/inlineFigures';
import { Action } from '../../../../src/engine/snapshot/model';
import { changedLines, compareRuns } from '../../../../src/engine/compare/diff';
import { renderAnalysis } from '../../../../src/cli/render';
import { hoverMarkdown as compareHover } from '../../../../src/extension/compare/deltaText';
import { COLUMN_GAP, hoverMarkdown } from '../../../../src/extension/editor/hoverMarkdown';
import { lineRow } from '../../../../src/extension/timeline/rows';
import { summaryFigures } from '../../../../webview/summary/figures';
import { tableColumns } from '../../../../webview/timeline/state/tableColumns';
import { GiB, TraceBuilder, user, userPath } from '../../../helpers/traceBuilder';
import { repoRoot } from '../../../helpers/corpus';

const sorted = (xs: readonly string[]) => [...xs].sort();

describe('the per-line figure registry', () => {
  it('declares each of the ten figures of the contract once', () => {
    assert.deepEqual(sorted(LINE_FIGURE_KEYS), sorted([
      'allocCount', 'allocBytes', 'freedBytes', 'peakWhileAllocatingBytes', 'liveAtPeakBytes',
      'inclusiveAllocBytes', 'inclusivePeakWhileAllocatingBytes', 'inclusiveLiveAtPeakBytes',
      'reservedGrowthBytes', 'deviceCallCount',
    ]));
    assert.equal(new Set(LINE_FIGURES.map((f) => f.label)).size, LINE_FIGURES.length, 'labels are distinct');
  });

  it("package.json's vramLens.inline.figures enum is the registry's keys, in its order", () => {
    type Setting = { items?: { enum?: string[]; enumDescriptions?: string[] } };
    type Configuration = { properties: Record<string, Setting | undefined> };
    const pkg = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { contributes: { configuration: Configuration | Configuration[] } };
    const configs = Array.isArray(pkg.contributes.configuration) ? pkg.contributes.configuration : [pkg.contributes.configuration];
    const setting = configs.map((c) => c.properties['vramLens.inline.figures']).find((s) => s !== undefined);
    const values = setting?.items?.enum ?? [];
    assert.deepEqual(values, [...LINE_FIGURE_KEYS]);
    assert.equal(setting?.items?.enumDescriptions?.length, values.length, 'one description per value');
    // The whole setting is made from the registry: paste this into package.json when a figure changes.
    const expected = inlineFiguresSetting();
    assert.deepEqual(setting?.items, { type: 'string', ...expected }, `package.json's vramLens.inline.figures items should be:\n${JSON.stringify({ type: 'string', ...expected }, null, 2)}`);
  });

  it('keeps the JSON contract: line objects hold file, line and the figures in the order analyze --json has always printed', () => {
    const t = new TraceBuilder();
    t.alloc(GiB, [user('train.py', 5)]);
    const [row] = toReport(t.analysis()).devices[0].lines;
    assert.deepEqual(Object.keys(row), [
      'file', 'line', 'liveAtPeakBytes', 'allocBytes', 'allocCount', 'freedBytes', 'peakWhileAllocatingBytes',
      'inclusiveLiveAtPeakBytes', 'inclusiveAllocBytes', 'inclusivePeakWhileAllocatingBytes',
      // Appended (the contract lets figures be added at the end): the allocator's segments made, and its device calls.
      'reservedGrowthBytes', 'deviceCallCount',
      // For one release, the two renamed figures under the keys they had (the spec's names), with the same values.
      'peakBytes', 'inclusivePeakBytes',
    ]);
    assert.equal(row.peakBytes, row.peakWhileAllocatingBytes);
    assert.equal(row.inclusivePeakBytes, row.inclusivePeakWhileAllocatingBytes);
  });

  it('orders tables self figure then its inclusive form', () => {
    assert.deepEqual(displayOrder().map((f) => f.key), [
      'liveAtPeakBytes', 'inclusiveLiveAtPeakBytes', 'allocBytes', 'inclusiveAllocBytes', 'allocCount', 'freedBytes', 'peakWhileAllocatingBytes', 'inclusivePeakWhileAllocatingBytes',
      'reservedGrowthBytes', 'deviceCallCount',
    ]);
  });

  it('every registry figure reaches the JSON rows and compare deltas', () => {
    const t = new TraceBuilder();
    const a = t.alloc(GiB, [user('train.py', 5)]);
    t.free(a, [user('train.py', 6)]);
    t.alloc(2 * GiB, [user('train.py', 5)]);
    const analysis = t.analysis();
    const row = toReport(analysis).devices[0].lines.find((l) => l.line === 5);
    assert.ok(row);
    const formerKeys = LINE_FIGURES.flatMap((f) => (f.formerKey === undefined ? [] : [f.formerKey]));
    assert.deepEqual(formerKeys, ['peakBytes', 'inclusivePeakBytes']);
    assert.deepEqual(sorted(Object.keys(row).filter((k) => k !== 'file' && k !== 'line')), sorted([...LINE_FIGURE_KEYS, ...formerKeys]));
    const device = analysis.devices[0];
    const side = { label: 'x', device: 0, totals: { events: 0, peakBytes: 0, peakReservedBytes: 0, allocations: 0, oomCount: 0 }, lines: device.lines };
    const comparison = compareRuns(side, side);
    for (const delta of comparison.lines) assert.deepEqual(sorted(Object.keys(delta.delta)), sorted(LINE_FIGURE_KEYS));
  });
});

/**
 * A figure planted in a copy of the registry: the bytes of segments PyTorch's allocator reserved
 * (cudaMalloc) while a line allocated, read from the trace's `segment_alloc` events. One entry, on
 * every surface; nothing else in the tree knows it.
 */
const PLANTED_KEY = 'plantedSegmentBytes';
const PLANTED = {
  key: PLANTED_KEY,
  label: 'segments reserved',
  unit: 'bytes',
  inclusive: false,
  description: 'Bytes of segments the allocator reserved from the device under this line.',
  rule: { from: [Action.SegmentAlloc], value: 'size', fold: 'sum' },
  cli: 'reserved',
  table: 'Resv.',
  summary: true,
  compare: true,
} as unknown as LineFigureSpec;
const WITH_PLANTED: FigureRegistry = [...LINE_FIGURES, PLANTED];
const key = PLANTED_KEY as LineFigureKey;

/** Two runs: line 5 reserves 2 GiB + 1 GiB of segments in the first, 4 GiB in the second; line 6 reserves 4 GiB in the first only. */
function run(line5Segments: readonly number[], line6Segment: number | undefined) {
  const t = new TraceBuilder();
  for (const size of line5Segments) {
    t.segmentAlloc(size, [user('train.py', 5)]);
    t.alloc(size / 2, [user('train.py', 5)]);
  }
  if (line6Segment !== undefined) {
    t.segmentAlloc(line6Segment, [user('train.py', 6)]);
    t.alloc(GiB, [user('train.py', 6)]);
  }
  return analyzeSnapshot(t.snapshot(), {}, WITH_PLANTED);
}

describe('a figure planted in the registry', () => {
  const analysis = run([2 * GiB, 1 * GiB], 4 * GiB);
  const device = analysis.devices[0];
  const line = (n: number) => device.lines.find((l) => l.line === n)!;
  const planted = (l: LineFigures) => (l as unknown as Record<string, number>)[PLANTED_KEY];

  it('is computed by its rule alone, beside the registry figures', () => {
    assert.equal(planted(line(5)), 3 * GiB);
    assert.equal(planted(line(6)), 4 * GiB);
    assert.equal(line(5).allocBytes, 1.5 * GiB, 'the other figures are untouched');
  });

  it('reaches the --json line objects, after the contract figures', () => {
    const row = toReport(analysis, undefined, WITH_PLANTED).devices[0].lines.find((l) => l.line === 6)!;
    // Then, for one release, the renamed figures under their former keys.
    assert.deepEqual(Object.keys(row), ['file', 'line', ...LINE_FIGURE_KEYS, PLANTED_KEY, 'peakBytes', 'inclusivePeakBytes']);
    assert.equal((row as unknown as Record<string, number>)[PLANTED_KEY], 4 * GiB);
  });

  it("reaches the CLI's table as a column", () => {
    const text = renderAnalysis('run', analysis, { top: 10, figures: WITH_PLANTED });
    const header = text.split('\n').find((l) => l.trimEnd().endsWith('line') && l.includes('live@peak'))!;
    assert.match(header, /\breserved\b/);
    assert.match(text.split('\n').find((l) => l.endsWith('train.py:6'))!, /\b4\.0 GiB\b/);
  });

  it("reaches compare's deltas, its changed lines and its hover, labelled by the registry", () => {
    const side = (a: typeof analysis, label: string) => ({
      label,
      device: 0,
      totals: { events: 0, peakBytes: 0, peakReservedBytes: 0, allocations: 0, oomCount: 0 },
      lines: a.devices[0].lines,
    });
    const comparison = compareRuns(side(analysis, 'before'), side(run([4 * GiB], undefined), 'after'), WITH_PLANTED);
    const five = comparison.lines.find((l) => l.line === 5)!;
    assert.equal(five.delta[key], 4 * GiB - 3 * GiB);
    assert.equal(comparison.lines.find((l) => l.line === 6)!.delta[key], -4 * GiB);
    // A change in the planted figure alone makes a line changed.
    const same = compareRuns(side(run([2 * GiB], undefined), 'a'), side(run([4 * GiB], undefined), 'b'), WITH_PLANTED);
    assert.ok(changedLines(same).some((l) => l.line === 5));
    assert.match(compareHover(five, 'before', 'after', WITH_PLANTED), /\| segments reserved \| 3\.0 GiB \| 4\.0 GiB \| \+1\.0 GiB \|/);
  });

  it("reaches the timeline's table (a column, and the rows' values)", () => {
    const column = tableColumns(WITH_PLANTED).find((c) => c.key === key);
    assert.deepEqual(column, { key, header: 'Resv.', title: `segments reserved: ${PLANTED.description}`, unit: 'bytes' });
    assert.equal(lineRow(line(6), WITH_PLANTED)[key], 4 * GiB);
  });

  it("reaches the summary's table (a column, and the lines' values)", () => {
    assert.ok(summaryFigures(WITH_PLANTED).includes(PLANTED));
    assert.equal(figureValues(line(6), WITH_PLANTED)[key], 4 * GiB);
  });

  it('reaches the inline text, its setting and the hover', () => {
    assert.deepEqual(inlineFigureChoice([PLANTED_KEY, 'bogus'], WITH_PLANTED), [key]);
    assert.equal(inlineTextBuilder([key], WITH_PLANTED)(line(6), 16 * GiB, 80), '4.0 GiB segments reserved');
    const setting = inlineFiguresSetting(WITH_PLANTED);
    assert.equal(setting.enum.at(-1), PLANTED_KEY);
    assert.equal(setting.enumDescriptions.at(-1), 'Bytes of segments the allocator reserved from the device under this line (`3.2 GiB segments reserved`).');
    const md = hoverMarkdown({ snapshotId: 's', snapshotLabel: 's', device: 0, peakBytes: 16 * GiB, figures: line(6), detail: undefined, stale: false, isMapped: () => true, figureRegistry: WITH_PLANTED });
    // Each figure after the hover's column gap (issue 29: VS Code draws hover tables without padding).
    assert.ok(md.split('\n').includes(`| segments reserved | ${COLUMN_GAP}4.0 GiB |  |`), md);
  });

  it("reaches a function's figures (the code lens), counted once per block of lines", () => {
    const [both] = rangeFigures(analysis, device, [{ files: [userPath('train.py')], startLine: 5, endLine: 6 }], WITH_PLANTED);
    assert.equal(both[key], 7 * GiB);
  });
});
