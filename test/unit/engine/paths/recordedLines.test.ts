import * as assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { clampLine, filesUnderRoot } from '../../../../src/engine/paths/recordedLines';

describe('clampLine', () => {
  it('keeps a line inside the file as it is now', () => {
    assert.equal(clampLine(7, 10), 7);
    assert.equal(clampLine(42, 10), 10, 'a file that shrank since the snapshot');
    assert.equal(clampLine(0, 10), 1);
    assert.equal(clampLine(-3, 10), 1);
    assert.equal(clampLine(Number.NaN, 10), 1, 'a malformed line from a link');
    assert.equal(clampLine(3.9, 10), 3);
    assert.equal(clampLine(5, 0), 1, 'an empty file still has line 1');
  });
});

describe('filesUnderRoot', () => {
  const root = '/root/work/project';
  const files = ['/root/work/project/a.py', '/root/work/project/pkg/b.py', '/root/work/project/pkg/c.py', '/root/work/project/d.py'];
  it('names the first files relative to the recorded folder, and counts the rest', () => {
    assert.deepEqual(filesUnderRoot(root, files), { names: ['a.py', 'pkg/b.py', 'pkg/c.py'], more: 1 });
    assert.deepEqual(filesUnderRoot(root, files.slice(0, 1)), { names: ['a.py'], more: 0 });
  });
  it('reads Windows recordings', () => {
    assert.deepEqual(filesUnderRoot('C:\\work\\proj', ['C:\\work\\proj\\src\\model.py']), { names: ['src/model.py'], more: 0 });
  });
});
