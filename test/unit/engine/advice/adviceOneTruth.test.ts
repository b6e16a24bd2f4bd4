/**
 * No figure in any finding disagrees with the line tables: on every corpus snapshot (with the test
 * workspace's sources) and on the in-place fixtures, every line figure a finding claims is compared
 * numerically with that line's table, the peak with the replay's, and every byte figure in its words
 * with the structured figures it carries (test/helpers/findingFigures.ts). The check itself is shown
 * to catch the contradiction the issue reported.
 */
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { advise } from '../../../../src/engine/advice/advise';
import type { Finding } from '../../../../src/engine/advice/finding';
import { analyzeSnapshot } from '../../../../src/engine/analysis/analyze';
import { corpusAnalysis, corpusFindings } from '../../../helpers/adviceCorpus';
import { corpusFiles, corpusMissing } from '../../../helpers/corpus';
import { checkFindingFigures } from '../../../helpers/findingFigures';
import { NCA, attnFixture, ncaFixture } from '../../../helpers/inPlaceFixtures';
import { GiB, userPath } from '../../../helpers/traceBuilder';

describe('the advisor\'s figures agree with the line tables', () => {
  it('on every corpus snapshot', { skip: corpusMissing }, () => {
    const problems: string[] = [];
    let claims = 0;
    let prose = 0;
    let findings = 0;
    for (const file of corpusFiles()) {
      const name = path.basename(file).replace(/\.pickle$/, '');
      const analysis = corpusAnalysis(name);
      for (const f of corpusFindings(name)) {
        findings++;
        const check = checkFindingFigures(analysis, f);
        problems.push(...check.problems.map((p) => `${name}: ${p}`));
        claims += check.claims;
        prose += check.proseFigures;
      }
    }
    assert.deepEqual(problems, []);
    // What was compared (the corpus' findings state line figures for checkpointing, optimizer state, mixed precision).
    assert.ok(findings >= 30, `${findings} findings`);
    assert.ok(claims >= 10, `${claims} line claims compared`);
    assert.ok(prose >= 80, `${prose} byte figures in words compared`);
  });

  it('on the in-place fixtures (the NCA inference shape and attn.py)', () => {
    for (const fixture of [ncaFixture, attnFixture]) {
      const analysis = analyzeSnapshot(fixture.snapshot());
      const findings = advise(analysis, { fileText: (f) => (f === userPath(fixture.file) ? fixture.source : undefined) });
      assert.ok(findings.some((f) => f.rule === 'in-place-arithmetic'), fixture.file);
      for (const f of findings) assert.deepEqual(checkFindingFigures(analysis, f).problems, [], fixture.file);
    }
  });

  it('the check catches the reported contradiction: "41 of them were live at the device\'s peak (2.0 GiB)" on a line holding 0 B', () => {
    const analysis = analyzeSnapshot(ncaFixture.snapshot());
    const reported: Finding = {
      rule: 'in-place-arithmetic',
      severity: 'warning',
      device: 0,
      file: userPath(NCA.file),
      line: NCA.dxLine,
      title: '`dx = dx * stochastic` allocates up to 50.0 MiB per run in blocks an in-place form may avoid',
      message: "41 of them were live at the device's peak (event 616, 2.0 GiB), so the peak may drop by about that much.",
      evidence: { liveAtPeakCount: 41, savedInOneExecutionBytes: 50 * 1024 * 1024 },
    };
    const check = checkFindingFigures(analysis, reported);
    assert.ok(check.problems.some((p) => p.includes('says 2.0 GiB')), check.problems.join('; '));
    assert.ok(check.problems.some((p) => p.includes('does not state its line')), check.problems.join('; '));
    const claimed = checkFindingFigures(analysis, { ...reported, evidence: { ...reported.evidence, liveAtPeakBytes: 2 * GiB }, lineFigures: [{ file: userPath(NCA.file), line: NCA.dxLine, figure: 'liveAtPeakBytes', relation: 'equals', value: 2 * GiB }] });
    assert.ok(claimed.problems.some((p) => p.includes('whose table says 0')), claimed.problems.join('; '));
  });
});
