/**
 * The per-line figure registry is the one list: the analysis rows, the JSON report, compare's deltas
 * and the inline-figure setting in package.json all follow it, so a new figure is one edit and none
 * is silently ignored.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { LINE_FIGURES, LINE_FIGURE_KEYS } from '../../../../src/engine/analysis/lineFigures';
import { toReport } from '../../../../src/engine/analysis/report';
import { compareRuns } from '../../../../src/engine/compare/diff';
import { GiB, TraceBuilder, user } from '../../../helpers/traceBuilder';
import { repoRoot } from '../../../helpers/corpus';

const sorted = (xs: readonly string[]) => [...xs].sort();

describe('the per-line figure registry', () => {
  it('declares each of the eight figures of the contract once', () => {
    assert.deepEqual(sorted(LINE_FIGURE_KEYS), sorted([
      'allocCount', 'allocBytes', 'freedBytes', 'peakBytes', 'liveAtPeakBytes',
      'inclusiveAllocBytes', 'inclusivePeakBytes', 'inclusiveLiveAtPeakBytes',
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
  });

  it('every registry figure reaches the JSON rows and compare deltas', () => {
    const t = new TraceBuilder();
    const a = t.alloc(GiB, [user('train.py', 5)]);
    t.free(a, [user('train.py', 6)]);
    t.alloc(2 * GiB, [user('train.py', 5)]);
    const analysis = t.analysis();
    const row = toReport(analysis).devices[0].lines.find((l) => l.line === 5);
    assert.ok(row);
    assert.deepEqual(sorted(Object.keys(row).filter((k) => k !== 'file' && k !== 'line')), sorted(LINE_FIGURE_KEYS));
    const device = analysis.devices[0];
    const side = { label: 'x', device: 0, totals: { events: 0, peakBytes: 0, peakReservedBytes: 0, allocations: 0, oomCount: 0 }, lines: device.lines };
    const comparison = compareRuns(side, side);
    for (const delta of comparison.lines) assert.deepEqual(sorted(Object.keys(delta.delta)), sorted(LINE_FIGURE_KEYS));
  });
});
