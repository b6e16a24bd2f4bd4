/** The mechanical quick fixes: only where the pattern is literally on the line, and never changing meaning. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Finding } from '../../src/core/advice/finding';
import { accumulationEdits, inPlaceOperatorEdit, quickFixesFor } from '../../src/core/advice/quickFix';

function apply(text: string, edit: { startColumn: number; endColumn: number; newText: string }): string {
  return text.slice(0, edit.startColumn) + edit.newText + text.slice(edit.endColumn);
}

describe('inPlaceOperatorEdit', () => {
  const cases: [string, string][] = [
    ['    x = x * y', '    x *= y'],
    ['p.data = p.data - lr * grad', 'p.data -= lr * grad'],
    ['m = m / (1 - beta1 ** t)  # bias correction', 'm /= (1 - beta1 ** t)  # bias correction'],
    ['h = h + self.mlp(self.norm(h))', 'h += self.mlp(self.norm(h))'],
    ['x = x * a ** 2', 'x *= a ** 2'],
    ['state["v"] = state["v"] * beta2', 'state["v"] *= beta2'],
  ];
  for (const [before, after] of cases) {
    it(`rewrites ${before.trim()}`, () => {
      const edit = inPlaceOperatorEdit(before);
      assert.ok(edit);
      assert.equal(apply(before, edit), after);
    });
  }

  const refused = [
    'x = x - a + b', // x - a + b is not x - (a + b)
    'x = x * a + b', // (x * a) + b
    'x = x / a * b', // (x / a) * b is not x / (a * b)
    'y = x * 2', // a new tensor, not an update of x
    'x = x * y if flag else x',
    'x = x @ w', // matmul has no in-place form
    'x = x ** 2',
    'x = x + (a', // unbalanced
    'x == x + 1',
  ];
  for (const text of refused) {
    it(`leaves ${text} alone`, () => assert.equal(inPlaceOperatorEdit(text), undefined));
  }
});

describe('accumulationEdits', () => {
  it('turns `total += loss` into loss.item() or loss.detach()', () => {
    const text = '        total_loss += loss';
    const edits = accumulationEdits(text);
    assert.deepEqual(
      edits.map((e) => apply(text, e)),
      ['        total_loss += loss.item()', '        total_loss += loss.detach()'],
    );
  });

  it('wraps a compound expression and handles `x = x + ...` and `.append(...)`', () => {
    assert.equal(apply('total = total + crit(out, y) * w', accumulationEdits('total = total + crit(out, y) * w')[0]), 'total = total + (crit(out, y) * w).item()');
    assert.equal(apply('losses.append(criterion(out, y))', accumulationEdits('losses.append(criterion(out, y))')[1]), 'losses.append(criterion(out, y).detach())');
  });

  it('offers nothing where the value is already a number or detached, or there is no accumulation', () => {
    assert.deepEqual(accumulationEdits('total += loss.item()'), []);
    assert.deepEqual(accumulationEdits('losses.append(loss.detach())'), []);
    assert.deepEqual(accumulationEdits('loss = criterion(out, y)'), []);
  });
});

describe('quickFixesFor', () => {
  const leak: Finding = {
    rule: 'growing-memory',
    severity: 'warning',
    device: 0,
    file: '/p/model.py',
    line: 20,
    title: '',
    message: '',
    evidence: {},
    related: [{ file: '/p/eval.py', line: 11, message: 'loop' }],
    fix: 'detach-accumulation',
  };
  const source: Record<string, string[]> = {
    '/p/model.py': Array.from({ length: 30 }, () => '        h = self.act(self.fc(h))'),
    '/p/eval.py': ['for x, y in loader:', '', '', '', '', '', '', '', '', '', '    out = model(x)', '    total += criterion(out, y)', 'print(total)'],
  };
  const text = (file: string, line: number) => source[file]?.[line - 1];

  it('finds the accumulation below the loop-body line when the leaking line has none', () => {
    const fixes = quickFixesFor(leak, text);
    assert.equal(fixes.length, 2);
    assert.equal(fixes[0].file, '/p/eval.py');
    assert.equal(fixes[0].line, 12);
    assert.equal(apply(source['/p/eval.py'][11], fixes[0]), '    total += criterion(out, y).item()');
  });

  it('offers nothing without source text or without a mechanical pattern', () => {
    assert.deepEqual(quickFixesFor(leak, undefined), []);
    assert.deepEqual(quickFixesFor(leak, (file, line) => (file === '/p/eval.py' ? 'pass' : text(file, line))), []);
  });
});
