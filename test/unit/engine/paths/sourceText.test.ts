/** A source text held whole, read line by line the way the host once split it (`/\r?\n/`). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SourceText } from '../../../../src/engine/paths/sourceText';

describe('SourceText', () => {
  it('reads 1-based lines without their breaks, exactly as splitting at \\r?\\n does', () => {
    for (const text of ['', 'a', 'a\n', 'a\r\nb\r\n\r\nc', '\n\n', 'x\ry\nz', 'tail\r']) {
      const source = new SourceText(text);
      const split = text.split(/\r?\n/);
      assert.equal(source.lineCount, split.length, JSON.stringify(text));
      for (let n = 1; n <= split.length; n++) assert.equal(source.line(n), split[n - 1], `${JSON.stringify(text)} line ${n}`);
      for (const outside of [0, -1, split.length + 1, 1.5, Number.NaN]) assert.equal(source.line(outside), undefined);
    }
  });
});
