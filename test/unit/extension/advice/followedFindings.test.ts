/**
 * Findings follow edits: after the quick fix is applied (or the same written by hand) the finding
 * is resolved and leaves the line; a line edited otherwise marks it stale; inserted lines move it;
 * a deleted line takes it away. Driven with plain text as VS Code reports changes.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { advise } from '../../../../src/engine/advice/advise';
import type { Finding, LineEdit as FixEdit } from '../../../../src/engine/advice/finding';
import { inferenceModeEdit, quickFixesFor } from '../../../../src/engine/advice/quickFix';
import { analyzeSnapshot } from '../../../../src/engine/analysis/analyze';
import { PythonSource } from '../../../../src/engine/python/pythonSource';
import type { CurrentText, Placement } from '../../../../src/extension/advice/followedFindings';
import { FollowedDocument } from '../../../../src/extension/advice/followedFindings';
import { ATTN, ATTN_SOURCE, attnFixture } from '../../../helpers/inPlaceFixtures';
import { userPath } from '../../../helpers/traceBuilder';

/** A document the tests edit as a user would; every change is reported to the followed findings. */
class Doc implements CurrentText {
  lines: string[];
  constructor(
    text: string,
    private readonly followed: FollowedDocument,
  ) {
    this.lines = text.split('\n');
  }
  get lineCount(): number {
    return this.lines.length;
  }
  lineAt(line: number): string {
    return this.lines[line];
  }
  getText(): string {
    return this.lines.join('\n');
  }
  /** Replaces (0-based) startLine:startChar .. endLine:endChar with `text`. */
  change(startLine: number, startChar: number, endLine: number, endChar: number, text: string): void {
    const head = this.lines[startLine].slice(0, startChar);
    const tail = this.lines[endLine].slice(endChar);
    this.lines.splice(startLine, endLine - startLine + 1, ...(head + text + tail).split('\n'));
    this.followed.apply({ startLine, startCharacter: startChar, endLine, endCharacter: endChar, text, headBlank: head.trim() === '' });
  }
  /** Applies a quick fix as VS Code would. */
  fix(edit: FixEdit): void {
    this.change(edit.line - 1, edit.startColumn, edit.endLine - 1, edit.endColumn, edit.newText);
  }
}

function followed(findings: Finding[], text: string): { doc: Doc; place: () => Placement[] } {
  const lines = text.split('\n');
  const f = new FollowedDocument(findings, (line) => lines[line - 1]);
  const doc = new Doc(text, f);
  return { doc, place: () => f.place(doc) };
}

const summary = (p: Placement[]) => p.map((x) => `${x.finding.rule}:${x.state}${'line' in x ? `@${x.line + 1}` : ''}`);

describe('findings follow edits', () => {
  const inPlace = advise(analyzeSnapshot(attnFixture.snapshot()), { fileText: (f) => (f === userPath(ATTN.file) ? ATTN_SOURCE : undefined) }).filter((f) => f.rule === 'in-place-arithmetic');

  it('the in-place quick fix, applied, resolves its finding', () => {
    const { doc, place } = followed(inPlace, ATTN_SOURCE);
    assert.deepEqual(summary(place()), [`in-place-arithmetic:current@${ATTN.line}`]);
    doc.fix(inPlace[0].quickFixes![0]);
    assert.equal(doc.lineAt(ATTN.line - 1), '    s.div_(math.sqrt(d))');
    assert.deepEqual(summary(place()), ['in-place-arithmetic:resolved']);
  });

  it('lines inserted above move it; the line edited otherwise makes it stale; deleting the line removes it', () => {
    const { doc, place } = followed(inPlace, ATTN_SOURCE);
    doc.change(0, 0, 0, 0, '# a comment\n# another\n');
    assert.deepEqual(summary(place()), [`in-place-arithmetic:current@${ATTN.line + 2}`]);
    // Still arithmetic with an in-place form, but not the code that was recorded.
    const at = ATTN.line + 1;
    doc.change(at, 0, at, doc.lineAt(at).length, '    s = s / math.sqrt(d) * 0.5');
    assert.deepEqual(summary(place()), [`in-place-arithmetic:stale@${ATTN.line + 2}`]);
    doc.change(at, 0, at + 1, 0, '');
    assert.deepEqual(summary(place()), ['in-place-arithmetic:gone']);
  });

  it('the same rewrite typed by hand resolves it too; an indentation change does not', () => {
    const { doc, place } = followed(inPlace, ATTN_SOURCE);
    const at = ATTN.line - 1;
    doc.change(at, 0, at, 0, '  ');
    assert.deepEqual(summary(place()), [`in-place-arithmetic:current@${ATTN.line}`], 'indentation only');
    doc.change(at, 0, at, doc.lineAt(at).length, '    s /= math.sqrt(d)');
    assert.deepEqual(summary(place()), ['in-place-arithmetic:resolved'], '`s /= ...` divides in place');
  });

  it('the inference_mode quick fix, applied, resolves its finding (the call moves into the `with`)', () => {
    const text = 'import torch\n\ndef main(model, x):\n    out = model(x)\n    return out\n';
    const finding: Finding = { rule: 'inference-without-no-grad', severity: 'information', device: 0, file: '/w/infer.py', line: 4, title: 't', message: 'm', evidence: {}, fix: 'inference-mode' };
    const { doc, place } = followed([finding], text);
    const edit = inferenceModeEdit(PythonSource.parse(text), '/w/infer.py', 4);
    assert.ok(edit);
    doc.fix(edit);
    assert.equal(doc.lineAt(3), '    with torch.inference_mode():');
    assert.deepEqual(summary(place()), ['inference-without-no-grad:resolved']);
  });

  it('the accumulation quick fix below the loop line resolves a growing-memory finding', () => {
    const text = 'for batch in data:\n    loss = model(batch)\n    total += loss\n';
    const base: Finding = { rule: 'growing-memory', severity: 'warning', device: 0, file: '/w/eval.py', line: 2, title: 't', message: 'm', evidence: {}, fix: 'detach-accumulation', related: [{ file: '/w/eval.py', line: 2, message: 'loop' }] };
    const fixes = quickFixesFor(base, () => PythonSource.parse(text));
    const finding = { ...base, quickFixes: fixes };
    const { doc, place } = followed([finding], text);
    assert.deepEqual(summary(place()), ['growing-memory:current@2']);
    doc.fix(fixes[0]);
    assert.equal(doc.lineAt(2), '    total += loss.item()');
    assert.deepEqual(summary(place()), ['growing-memory:resolved']);
  });

  it('a growing-memory finding in the model file is resolved by the fix applied to the loop\'s file', () => {
    const loop = 'for x, y in loader:\n    out = model(x)\n    total += criterion(out, y)\n';
    const model = 'class M:\n    def forward(self, h):\n        return self.fc(h)\n';
    const base: Finding = { rule: 'growing-memory', severity: 'warning', device: 0, file: '/w/model.py', line: 3, title: 't', message: 'm', evidence: {}, fix: 'detach-accumulation', related: [{ file: '/w/eval.py', line: 2, message: 'loop' }] };
    const sources = (text: string) => (f: string) => (f === '/w/eval.py' ? PythonSource.parse(text) : f === '/w/model.py' ? PythonSource.parse(model) : undefined);
    const fixes = quickFixesFor(base, sources(loop));
    assert.equal(fixes[0]?.file, '/w/eval.py');
    const { doc, place } = followed([{ ...base, quickFixes: fixes }], model);
    const f = new FollowedDocument([{ ...base, quickFixes: fixes }], (line) => model.split('\n')[line - 1]);
    const fixedLoop = loop.replace('total += criterion(out, y)', 'total += criterion(out, y).item()');
    assert.deepEqual(summary(f.place(doc, { otherFile: sources(loop), othersEdited: true })), ['growing-memory:current@3'], 'not fixed yet');
    assert.deepEqual(summary(f.place(doc, { otherFile: sources(fixedLoop), othersEdited: true })), ['growing-memory:resolved']);
    assert.deepEqual(summary(place()), ['growing-memory:current@3'], 'without the other file edited, nothing is read again');
  });

  it('a finding whose line already reads differently from what the advisor read is stale from the start', () => {
    const f = new FollowedDocument(inPlace, (line) => (line === ATTN.line ? '    s = s / 2' : ATTN_SOURCE.split('\n')[line - 1]));
    const doc = new Doc(ATTN_SOURCE, f);
    assert.deepEqual(summary(f.place(doc)), [`in-place-arithmetic:stale@${ATTN.line}`]);
  });
});
