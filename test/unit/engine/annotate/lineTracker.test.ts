/** Annotations follow their lines through edits; lines whose text changed are stale. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LineEdit } from '../../../../src/engine/annotate/lineTracker';
import { GONE, LineTracker, isLineStale } from '../../../../src/engine/annotate/lineTracker';

/** Applies an edit to a document held as lines, the way an editor does, and returns the edit as reported. */
function edit(doc: string[], startLine: number, startCharacter: number, endLine: number, endCharacter: number, text: string): LineEdit {
  const head = doc[startLine].slice(0, startCharacter);
  const tail = doc[endLine].slice(endCharacter);
  doc.splice(startLine, endLine - startLine + 1, ...(head + text + tail).split('\n'));
  return { startLine, startCharacter, endLine, endCharacter, text, headBlank: head.trim() === '' };
}

/** Follows every original line and checks it still shows the text it had (or is gone). */
function follow(original: string[], edits: (doc: string[]) => LineEdit[]): { doc: string[]; where: number[] } {
  const doc = [...original];
  const tracker = new LineTracker(original.map((_, i) => i));
  for (const e of edits(doc)) tracker.apply(e);
  return { doc, where: original.map((_, i) => tracker.lineOf(i)) };
}

const ORIGINAL = ['def f(x):', '    a = alloc(1)', '    b = alloc(2)', '    return a + b', ''];

describe('LineTracker', () => {
  it('pushes lines down under lines typed above them (Enter at the start of a line)', () => {
    const { doc, where } = follow(ORIGINAL, (d) => [edit(d, 1, 4, 1, 4, '\n    ')]);
    assert.deepEqual(where, [0, 2, 3, 4, 5]);
    assert.equal(doc[where[1]], '    a = alloc(1)');
  });

  it('keeps a line in place when Enter is pressed at its end', () => {
    const { doc, where } = follow(ORIGINAL, (d) => [edit(d, 1, 16, 1, 16, '\n    ')]);
    assert.deepEqual(where, [0, 1, 3, 4, 5]);
    assert.equal(doc[where[2]], '    b = alloc(2)');
  });

  it('moves lines up when whole lines above are deleted, and drops the deleted ones', () => {
    const { doc, where } = follow(ORIGINAL, (d) => [edit(d, 1, 0, 2, 0, '')]);
    assert.deepEqual(where, [0, GONE, 1, 2, 3]);
    assert.equal(doc[where[2]], '    b = alloc(2)');
  });

  it('follows pasted blocks of lines and multi-line replacements', () => {
    const { doc, where } = follow(ORIGINAL, (d) => [edit(d, 0, 0, 0, 0, '# one\n# two\n# three\n'), edit(d, 4, 8, 5, 16, 'c = 3')]);
    // After the paste: lines shift by 3; then line 4 ("    a = alloc(1)") to 5 is replaced within: 4 stays, 5 is merged away.
    assert.deepEqual(where, [3, 4, GONE, 5, 6]);
    assert.equal(doc[where[3]], '    return a + b');
    assert.ok(isLineStale(ORIGINAL[1], doc[where[1]]));
  });

  it('keeps a line edited in place where it is (its text decides staleness)', () => {
    const { doc, where } = follow(ORIGINAL, (d) => [edit(d, 2, 8, 2, 16, 'alloc(3)')]);
    assert.deepEqual(where, [0, 1, 2, 3, 4]);
    assert.ok(isLineStale(ORIGINAL[2], doc[2]));
    assert.ok(!isLineStale(ORIGINAL[1], doc[1]));
  });

  it('drops lines joined into the line above (Backspace at a line start)', () => {
    const { doc, where } = follow(ORIGINAL, (d) => [edit(d, 1, 16, 2, 4, '; ')]);
    assert.deepEqual(where, [0, 1, GONE, 2, 3]);
    assert.equal(doc[1], '    a = alloc(1); b = alloc(2)');
  });

  it('leaves lines above an edit and untracked lines alone', () => {
    const tracker = new LineTracker([3]);
    assert.equal(tracker.moved, false);
    tracker.apply({ startLine: 5, startCharacter: 0, endLine: 5, endCharacter: 0, text: 'x\n', headBlank: true });
    assert.equal(tracker.lineOf(3), 3);
    assert.equal(tracker.moved, false);
    tracker.apply({ startLine: 0, startCharacter: 0, endLine: 0, endCharacter: 0, text: 'x\n', headBlank: true });
    assert.equal(tracker.lineOf(3), 4);
    assert.equal(tracker.lineOf(7), 7, 'a line it does not track');
    assert.equal(tracker.moved, true);
  });
});

describe('isLineStale', () => {
  it('ignores indentation and trailing space, not code', () => {
    assert.equal(isLineStale('    x = f(a)', 'x = f(a)  '), false);
    assert.equal(isLineStale('x = f(a)', 'x = f(b)'), true);
  });
});
