/**
 * The in-place rule on programs of the shapes (test/helpers/inPlaceFixtures.ts):
 * - the contradiction reported on a 3D NCA inference run ("41 of them were live at the device's
 *   peak (2.0 GiB)" on a line whose table says 0 B live at the peak): every figure about a line must
 *   be its table's, and the peak saving must come from replaying the trace;
 * - a fix offered only where the tensor belongs to the function, explained otherwise.
 * The expected peaks come from the traces the rewritten programs would record, analysed on their own.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { advise } from '../../../../src/engine/advice/advise';
import type { Finding } from '../../../../src/engine/advice/finding';
import { inPlaceArithmetic } from '../../../../src/engine/advice/rules/inPlaceArithmetic';
import type { Analysis } from '../../../../src/engine/analysis/analyze';
import { analyzeSnapshot } from '../../../../src/engine/analysis/analyze';
import { snapshotFromBytes } from '../../../../src/engine/decode/load';
import { findingEventRanges } from '../../../../src/engine/timeline/findingMarkers';
import { formatBytes } from '../../../../src/engine/text/format';
import { ATTN, ATTN_SOURCE, NCA, attnFixture, attnInPlaceSnapshot, ncaFixture, ncaInPlaceDxSnapshot } from '../../../helpers/inPlaceFixtures';
import { userPath } from '../../../helpers/traceBuilder';

function inPlace(analysis: Analysis, file: string, source: string): Finding[] {
  return advise(analysis, { rules: [inPlaceArithmetic], fileText: (f) => (f === userPath(file) ? source : undefined) });
}

function tableRow(analysis: Analysis, file: string, line: number) {
  return analysis.devices[0].lines.find((l) => l.file === userPath(file) && l.line === line);
}

describe('in-place advice holds to the line tables (the NCA contradiction)', () => {
  const analysis = analyzeSnapshot(ncaFixture.snapshot());
  const findings = inPlace(analysis, NCA.file, ncaFixture.source);
  const at = (line: number) => findings.find((f) => f.line === line);

  it('the fixture has the reported shape: lines 9 and 10 hold 0 B at the peak, which comes after the loop', () => {
    const device = analysis.devices[0];
    assert.equal(device.peakBytes, 5 * NCA.size, 'the cat of four states next to the last state');
    assert.equal(device.peakEventIndex, device.events - 1, 'the last event, after the loop');
    assert.equal(tableRow(analysis, NCA.file, NCA.dxLine)?.liveAtPeakBytes, 0);
    assert.equal(tableRow(analysis, NCA.file, NCA.xLine)?.liveAtPeakBytes, 0);
    assert.equal(tableRow(analysis, NCA.file, NCA.dxLine)?.allocBytes, NCA.steps * NCA.size);
  });

  it('`dx = dx * stochastic`: 41 replacements, 0 B live at the peak (the table\'s), no peak saving, Information', () => {
    const f = at(NCA.dxLine);
    assert.ok(f, 'a finding at line 9');
    assert.equal(f.severity, 'information');
    assert.equal(f.evidence.replacedCount, NCA.steps);
    assert.equal(f.evidence.avoidableCount, NCA.steps);
    assert.equal(f.evidence.avoidableBytes, NCA.steps * NCA.size);
    assert.equal(f.evidence.lineLiveAtPeakBytes, 0);
    assert.equal(f.evidence.peakSavingBytes, 0);
    // The rewritten program's own trace has the same peak.
    assert.equal(f.evidence.peakAfterBytes, analyzeSnapshot(ncaInPlaceDxSnapshot()).devices[0].peakBytes);
    assert.doesNotMatch(`${f.title} ${f.message}`, /were live at the device's peak|2\.0 GiB\)/, 'the reported contradiction is gone');
    assert.match(f.message, /The line holds 0 B at the device's peak \(event \d+\), and replaying the trace without them leaves the peak where it is \(250\.0 MiB\)/);
    // On the timeline it marks where the line began, not the peak it does not lower.
    assert.deepEqual(findingEventRanges(f), [[Number(f.evidence.firstEvent), Number(f.evidence.firstEvent)]]);
  });

  it('`x = x+dx.transpose(1,4)`: the result freed when the caller clones it, 0 B at the peak, Information', () => {
    const f = at(NCA.xLine);
    assert.ok(f, 'a finding at line 10');
    assert.equal(f.severity, 'information');
    assert.equal(f.evidence.temporaryCount, NCA.steps);
    assert.equal(f.evidence.avoidableCount, NCA.steps);
    assert.equal(f.evidence.lineLiveAtPeakBytes, 0);
    assert.equal(f.evidence.peakSavingBytes, 0);
  });

  it('neither gets a quick fix, and each says why: a view of the caller\'s tensor, a module call\'s result', () => {
    assert.equal(at(NCA.xLine)?.fix, undefined);
    assert.equal(at(NCA.xLine)?.quickFixes, undefined);
    assert.match(at(NCA.xLine)!.message, /No quick fix is offered: `x = x_in\.transpose\(1, 4\)` \(line 6\) makes it a view of `x_in`, the caller's tensor \(`x_in` is a parameter\): `transpose` may return its input/);
    assert.equal(at(NCA.dxLine)?.quickFixes, undefined);
    assert.match(at(NCA.dxLine)!.message, /No quick fix is offered: `dx = p0\(x\)` \(line 7\) takes the result of `p0\(x\)`, a call VRAM Lens cannot see into/);
  });

  it('the structured line figures agree with the tables', () => {
    for (const f of findings) {
      for (const claim of f.lineFigures ?? []) {
        const row = tableRow(analysis, NCA.file, claim.line);
        assert.ok(row, `line ${claim.line} has a table`);
        if (claim.relation === 'equals') assert.equal(claim.value, row[claim.figure], `${claim.figure} of line ${claim.line}`);
        else assert.ok(claim.value <= row[claim.figure], `${claim.figure} of line ${claim.line}: ${claim.value} <= ${row[claim.figure]}`);
      }
    }
  });
});

describe('in-place advice where the in-place form lowers the peak (attn.py)', () => {
  const analysis = analyzeSnapshot(attnFixture.snapshot());
  const [f, ...rest] = inPlace(analysis, ATTN.file, ATTN_SOURCE);

  it('the peak saving is the difference to the peak of the rewritten program\'s trace', () => {
    assert.equal(rest.length, 0);
    assert.equal(analysis.devices[0].peakBytes, ATTN.peakBytes, 'the fixture\'s peak, by hand');
    const rewritten = analyzeSnapshot(attnInPlaceSnapshot()).devices[0].peakBytes;
    assert.equal(rewritten, ATTN.peakAfterBytes, 'the rewritten program\'s peak, by hand');
    assert.equal(f.evidence.peakAfterBytes, rewritten);
    assert.equal(f.evidence.peakSavingBytes, ATTN.peakBytes - ATTN.peakAfterBytes);
    assert.equal(f.severity, 'warning');
    assert.ok(findingEventRanges(f).some(([e]) => e === analysis.devices[0].peakEventIndex), 'the timeline marks the peak it lowers');
    assert.match(f.title, new RegExp(`an in-place form may lower the peak by ${formatBytes(ATTN.peakBytes - ATTN.peakAfterBytes).replace('.', '\\.')}`));
  });

  it('quotes the line\'s live-at-peak bytes from its table, and the saving is no more than that', () => {
    const row = tableRow(analysis, ATTN.file, ATTN.line);
    assert.equal(row?.liveAtPeakBytes, ATTN.size, 'the third result, live at the peak');
    assert.equal(f.evidence.lineLiveAtPeakBytes, row?.liveAtPeakBytes);
    assert.equal(f.evidence.lineLiveAtPeakBlockCount, 1);
    assert.ok(Number(f.evidence.peakSavingBytes) <= row.liveAtPeakBytes);
  });

  it('offers `s.div_(math.sqrt(d))`: s is made by `q @ k...` in the function and read by nothing else', () => {
    assert.equal(f.fix, 'in-place-operator');
    assert.deepEqual(f.quickFixes?.map((q) => [q.line, q.newText]), [[ATTN.line, 's.div_(math.sqrt(d))']]);
    assert.match(f.message, /s belongs to this function and nothing else reads its old value/);
  });

  const variant = (from: string, to: string) => ATTN_SOURCE.replace(from, to);

  it('explains without a fix where s is a parameter, a slice, an attribute or kept for backward', () => {
    const cases: [string, string, RegExp][] = [
      ['def scores(q, k, d):\n    s = q @ k.transpose(-2, -1)', 'def scores(s, k, d):\n    q = s @ k.transpose(-2, -1)', /`s` is a parameter of `scores`/],
      ['s = q @ k.transpose(-2, -1)', 's = (q @ k.transpose(-2, -1))[0]', /slice or element of/],
      ['s = q @ k.transpose(-2, -1)', 's = torch.exp(q @ k.transpose(-2, -1))', /makes it an output that autograd keeps for the backward pass/],
      ['    s = q @ k.transpose(-2, -1)\n', '    s = q @ k.transpose(-2, -1)\n    cache.append(s)\n', /`cache\.append\(s\)`/],
    ];
    for (const [from, to, reason] of cases) {
      const source = variant(from, to);
      // Keep the statement on line 7 where the trace recorded it.
      const lines = source.split('\n');
      const at7 = lines.findIndex((l) => l.includes('s = s / math.sqrt(d)')) + 1;
      const shifted = at7 === ATTN.line ? source : lines.filter((_, i) => i !== 2).join('\n');
      const [g] = inPlace(analysis, ATTN.file, shifted);
      assert.ok(g, to);
      assert.equal(g.quickFixes, undefined, to);
      assert.match(g.message, new RegExp(`No quick fix is offered: .*${reason.source}`), to);
      assert.equal(g.evidence.peakSavingBytes, f.evidence.peakSavingBytes, 'the memory figures do not depend on the verdict');
    }
  });

  it('where gradients are off (a decorator), the output of exp may be rewritten', () => {
    const source = ATTN_SOURCE.replace('\n\n\ndef scores', '\n\n@torch.no_grad()\ndef scores').replace('s = q @ k.transpose(-2, -1)', 's = torch.exp(q @ k.transpose(-2, -1))');
    assert.equal(source.split('\n')[ATTN.line - 1].trim(), 's = s / math.sqrt(d)');
    const [g] = inPlace(analysis, ATTN.file, source);
    assert.equal(g.gradDisabled, true);
    assert.deepEqual(g.quickFixes?.map((q) => q.newText), ['s.div_(math.sqrt(d))']);
  });
});

describe('in-place advice on the bundled sample (issue 29)', () => {
  const root = path.resolve(__dirname, '..', '..', '..', '..', '..');
  const source = readFileSync(path.join(root, 'media', 'samples', 'similarity.py'), 'utf8');
  const snapshot = snapshotFromBytes(new Uint8Array(readFileSync(path.join(root, 'media', 'samples', 'similarity-eager.pickle'))));
  const analysis = analyzeSnapshot(snapshot);

  it('`similarity = similarity * ms / math.sqrt(c)` is told its own operations: `mul_(ms).div_(math.sqrt(c))`, no add', () => {
    const findings = advise(analysis, { rules: [inPlaceArithmetic], fileText: (f) => (f.replace(/\\/g, '/').endsWith('/similarity.py') ? source : undefined) });
    const f = findings.find((g) => g.line === 27);
    assert.ok(f, 'a finding at line 27');
    assert.match(f.message, /Consider `similarity\.mul_\(ms\)\.div_\(math\.sqrt\(c\)\)` where nothing else needs the old value of similarity/);
    assert.doesNotMatch(`${f.title} ${f.message}`, /add_|out=/);
  });
});
