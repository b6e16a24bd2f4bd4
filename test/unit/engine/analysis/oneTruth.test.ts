/**
 * One truth per figure: a line's bytes live at the peak read the same from the analysis report (what
 * the CLI, the summary and the inline text show), the hover's line detail, the timeline's blocks of
 * the line at the peak state, and the advisor's per-line grouping of the blocks live at the peak.
 * Checked on every line of corpus snapshots, and on a hand-built one with a block live all along
 * (attributed by its block frames) and a pre-recording block whose free carries a user line (which
 * is no allocation of that line).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import type { Analysis } from '../../../../src/engine/analysis/analyze';
import { analyzeSnapshot } from '../../../../src/engine/analysis/analyze';
import { lineDetail } from '../../../../src/engine/analysis/lineDetail';
import { liveAfter } from '../../../../src/engine/analysis/replay';
import { toReport } from '../../../../src/engine/analysis/report';
import { AdviceContext, bytesByLine } from '../../../../src/engine/advice/context';
import { snapshotFromBytes } from '../../../../src/engine/decode/load';
import { encodePickle } from '../../../../src/engine/pickle/encoder';
import { TimelineQueries } from '../../../../src/engine/timeline/queries';
import { corpusDir, corpusMissing } from '../../../helpers/corpus';

interface Views {
  report: number;
  lineDetail: number;
  timeline: number;
  advice: number;
}

function everyView(analysis: Analysis): { where: string; views: Views }[] {
  const report = toReport(analysis);
  const timeline = new TimelineQueries(analysis.snapshot, () => analysis);
  const out: { where: string; views: Views }[] = [];
  analysis.devices.forEach((device, i) => {
    const peakState = device.peakEventIndex + 1;
    const advice = bytesByLine(new AdviceContext(analysis, device), liveAfter(device.allocations, device.peakEventIndex));
    for (const row of report.devices[i].lines) {
      if (typeof row.line !== 'number') continue;
      const detail = lineDetail(analysis, device, row.file, row.line, { maxSizes: Infinity });
      const blocks = timeline.lineBlocksFor(device.device, row.file, row.line, Infinity)?.blocks ?? [];
      out.push({
        where: `device ${device.device} ${row.file}:${row.line}`,
        views: {
          report: row.liveAtPeakBytes,
          lineDetail: detail.liveBlockSizes.reduce((s, b) => s + b, 0),
          timeline: blocks.filter((b) => b.firstState <= peakState && peakState <= b.lastState).reduce((s, b) => s + b.size, 0),
          advice: advice.find((l) => l.file === row.file && l.line === row.line)?.bytes ?? 0,
        },
      });
    }
  });
  return out;
}

function assertOneTruth(analysis: Analysis): number {
  let nonZero = 0;
  for (const { where, views } of everyView(analysis)) {
    const expected = views.report;
    if (expected > 0) nonZero++;
    assert.deepEqual(views, { report: expected, lineDetail: expected, timeline: expected, advice: expected }, where);
  }
  return nonZero;
}

describe('one truth: a line live-at-peak bytes are the same in every view', () => {
  it('on a hand-built snapshot with blocks from before recording', () => {
    const fr = (line: number) => ({ filename: '/proj/train.py', line, name: 'main' });
    const snapshot = snapshotFromBytes(
      encodePickle({
        segments: [
          {
            device: 0,
            address: 0x1000,
            total_size: 4096,
            stream: 0,
            blocks: [
              { address: 0x1000, size: 1024, requested_size: 1000, state: 'active_allocated', frames: [fr(73)] },
              { address: 0x1400, size: 512, requested_size: 512, state: 'active_allocated', frames: [fr(10)] },
              { address: 0x1600, size: 2560, requested_size: 2560, state: 'inactive', frames: [] },
            ],
          },
        ],
        device_traces: [
          [
            { action: 'alloc', addr: 0x1400, size: 512, stream: 0, time_us: 1, frames: [fr(10)] },
            { action: 'free_completed', addr: 0x9000, size: 300, stream: 0, time_us: 2, frames: [fr(20)] },
          ],
        ],
      }),
    );
    const analysis = analyzeSnapshot(snapshot);
    const lines = toReport(analysis).devices[0].lines;
    assert.equal(lines.find((l) => l.line === 73)?.liveAtPeakBytes, 1000, 'the block live all along, by its frames');
    assert.equal(lines.find((l) => l.line === 20), undefined, 'a free is no allocation of its line');
    const device = analysis.devices[0];
    const advice = bytesByLine(new AdviceContext(analysis, device), liveAfter(device.allocations, device.peakEventIndex));
    assert.deepEqual(advice.map((l) => l.line).sort(), [10, 73], 'the advisor groups the same lines');
    const timeline = new TimelineQueries(analysis.snapshot, () => analysis);
    assert.deepEqual(timeline.lineBlocksFor(0, '/proj/train.py', 20)?.blocks, [], 'the timeline gives line 20 no block');
    const freedInTrace = [...device.allocations.allocEvent.keys()].find((r) => device.allocations.allocEvent[r] === -1 && device.allocations.freeEvent[r] === 1);
    assert.ok(freedInTrace !== undefined);
    const block = timeline.block(0, freedInTrace, 10);
    assert.equal(block.line, undefined);
    assert.deepEqual(block.bucket, { kind: 'beforeRecording', label: '' });
    assert.equal(assertOneTruth(analysis), 2);
  });

  for (const name of ['wedsonlin-cs336-medium-512-training.pickle', 'nothanmin-cs336.pickle', 'jaspersolt-eor-nn.pickle']) {
    it(name, { skip: corpusMissing }, () => {
      const analysis = analyzeSnapshot(snapshotFromBytes(readFileSync(path.join(corpusDir, name))));
      assert.ok(assertOneTruth(analysis) > 0);
    });
  }
});
