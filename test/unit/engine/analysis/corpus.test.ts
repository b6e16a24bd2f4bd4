/**
 * Every corpus snapshot, analysed by the TypeScript core, must match the independent Python oracle
 * (test/reference/spec_reference.py, written from the spec alone) to the byte: every device figure,
 * every line's eight figures, the peak's breakdown into buckets, the OOM count, and checksums of the whole active and reserved timelines.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { before, describe, it } from 'node:test';
import { analyzeSnapshot } from '../../../../src/engine/analysis/analyze';
import { LINE_FIGURES } from '../../../../src/engine/analysis/lineFigures';
import { toReport } from '../../../../src/engine/analysis/report';
import { snapshotFromBytes } from '../../../../src/engine/decode/load';
import { corpusFiles, corpusMissing, referenceAnalysis, withSpecNames } from '../../../helpers/corpus';

interface RefDevice {
  device: number;
  oomCount: number;
  liveBlocksAtEnd: number;
  activeTimelineChecksum: number | bigint;
  reservedTimelineChecksum: number | bigint;
  [key: string]: unknown;
}

function checksum(values: Float64Array): bigint {
  let sum = 0n;
  for (const v of values) sum += BigInt(v);
  return sum;
}

describe('corpus: TypeScript analysis equals the Python oracle', { skip: corpusMissing }, () => {
  const files = corpusFiles();
  let reference: Record<string, { devices: RefDevice[] }> = {};
  before(() => {
    reference = referenceAnalysis(files) as typeof reference;
  });

  it('covers every corpus snapshot (at least the 23 described in SOURCES.md)', () => {
    assert.ok(files.length >= 23, `${files.length} files`);
  });

  for (const file of files) {
    it(path.basename(file), () => {
      const analysis = analyzeSnapshot(snapshotFromBytes(readFileSync(file)));
      const report = toReport(analysis);
      const expected = reference[file];
      assert.ok(expected, 'the oracle analysed this file');
      assert.deepEqual(
        report.devices.map((d) => d.device),
        expected.devices.map((d) => d.device),
        'devices',
      );
      report.devices.forEach((ours, i) => {
        const ref = expected.devices[i];
        const { oomCount, liveBlocksAtEnd, activeTimelineChecksum, reservedTimelineChecksum, ...refSpec } = ref;
        const { oomCount: ourOoms, ...ourSpec } = withSpecNames(ours);
        assert.deepEqual(ourSpec, refSpec, `device ${ours.device} figures`);
        assert.equal(ourOoms, oomCount, 'oom count');
        const device = analysis.devices[i];
        assert.equal(device.liveBlocksAtEnd.length, liveBlocksAtEnd, 'blocks live at end');
        assert.equal(checksum(device.active), BigInt(activeTimelineChecksum), 'active timeline');
        assert.equal(checksum(device.reserved), BigInt(reservedTimelineChecksum), 'reserved timeline');
        // The contract's rows: a row of `lines` has a non-zero figure of the contract, never only ours.
        const contract = LINE_FIGURES.filter((f) => !f.beyondContract);
        assert.equal(contract.length, 8, "the contract's eight figures");
        for (const l of ours.lines) assert.ok(contract.some((f) => l[f.key] !== 0), `${l.file}:${String(l.line)} has only figures beyond the contract`);
        for (const l of ours.segmentOnlyLines) assert.ok(contract.every((f) => l[f.key] === 0));
        // Every byte of the peak explained: lines' live-at-peak bytes plus the buckets are the peak.
        const held = ours.lines.reduce((sum, l) => sum + l.liveAtPeakBytes, 0);
        const explained = ours.peakBreakdown.reduce((sum, b) => sum + b.bytes, 0);
        assert.equal(held + explained, ours.peakBytes, `device ${ours.device}: lines + peakBreakdown = peakBytes`);
      });
    });
  }
});
