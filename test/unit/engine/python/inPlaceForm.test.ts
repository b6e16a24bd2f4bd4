/**
 * The in-place spelling the advisor suggests for an arithmetic statement is the statement's own
 * operations, in Python's order, as calls on the target: `x = x * m / s` is `x.mul_(m).div_(s)`, never
 * an operation the statement does not make (issue 29: the bundled sample's
 * `similarity = similarity * ms / math.sqrt(c)` was told `similarity.mul_(...).add_(...)`, an add for a
 * division). Where the order cannot be kept in place (the target on the right of `-` or `/`, or read
 * again), there is no chain and no finding. The expected spellings are written out by hand.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { inPlaceFormAt } from '../../../../src/engine/python/inPlaceForm';
import { PythonSource } from '../../../../src/engine/python/pythonSource';

const repo = path.resolve(__dirname, '../../../../..');

/** The form of the one statement of a function body `def f(...):\n    x = ...\n    <statement>`. */
function formOf(statement: string) {
  const src = PythonSource.parse(`def f(a, b, c, m, s):\n    x = a.clone()\n    ${statement}\n`);
  return inPlaceFormAt(src, 3);
}

describe('in-place forms: a chain is the statement\'s own operations, or none', () => {
  it('the bundled sample\'s line 27: `similarity.mul_(ms).div_(math.sqrt(c))`', () => {
    const source = readFileSync(path.join(repo, 'media/samples/similarity.py'), 'utf8');
    const src = PythonSource.parse(source);
    assert.equal(source.split('\n')[26].trim(), 'similarity = similarity * ms / math.sqrt(c)');
    const form = inPlaceFormAt(src, 27);
    assert.equal(form?.kind, 'chain');
    assert.equal(form?.suggestion, 'similarity.mul_(ms).div_(math.sqrt(c))');
  });

  it('left-nested chains keep their order; `+` and `*` take the target from either side', () => {
    const cases: [string, string][] = [
      ['x = x * m / s', 'x.mul_(m).div_(s)'],
      ['x = x / s - m', 'x.div_(s).sub_(m)'],
      ['x = a * x + b', 'x.mul_(a).add_(b)'],
      ['x = b + x * a', 'x.mul_(a).add_(b)'],
      ['x = (x + a) * (b - c)', 'x.add_(a).mul_(b - c)'],
      ['x = a * (x - b) / s', 'x.sub_(b).mul_(a).div_(s)'],
    ];
    for (const [statement, chain] of cases) {
      const form = formOf(statement);
      assert.equal(form?.kind, 'chain', statement);
      assert.equal(form?.suggestion, chain, statement);
    }
  });

  it('no chain where the order cannot be kept in place, or the target is read again', () => {
    for (const statement of ['x = a - x * b', 'x = s / (x + a)', 'x = x * 2 + f(x)', 'x = a * x[0] + b']) {
      assert.equal(formOf(statement), undefined, statement);
    }
  });

  it('one operation is still the mechanical `x.op_(y)`', () => {
    assert.equal(formOf('x = x / s')?.suggestion, 'x.div_(s)');
    assert.equal(formOf('x = m * x')?.suggestion, 'x.mul_(m)');
    assert.equal(formOf('x = x / s')?.kind, 'binary');
    // The argument is evaluated before the call: `x.add_(x * a)` reads the old x, as the statement does.
    assert.equal(formOf('x = x * a + x')?.suggestion, 'x.add_(x * a)');
  });
});
