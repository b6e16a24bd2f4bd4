/**
 * The mechanical quick fixes, decided from the syntax tree: offered only where the statement has
 * the form, each leaving the file parsing as Python (checked here by parsing the result again),
 * and reading as the rewrite a person would write.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Finding, FixKind, LineEdit } from '../../../../src/engine/advice/finding';
import { quickFixesFor } from '../../../../src/engine/advice/quickFix';
import { PythonSource } from '../../../../src/engine/python/pythonSource';

const FILE = '/w/train.py';

function applyEdit(text: string, e: LineEdit): string {
  const lines = text.split('\n');
  const offset = (line: number, column: number) => lines.slice(0, line - 1).reduce((s, l) => s + l.length + 1, 0) + column;
  return text.slice(0, offset(e.line, e.startColumn)) + e.newText + text.slice(offset(e.endLine, e.endColumn));
}

function fixes(text: string, line: number, fix: FixKind, related?: { line: number }[], gradDisabled?: boolean): LineEdit[] {
  const src = PythonSource.parse(text);
  const finding: Finding = {
    rule: fix === 'in-place-operator' ? 'in-place-arithmetic' : fix === 'inference-mode' ? 'inference-without-no-grad' : 'growing-memory',
    severity: 'information',
    device: 0,
    file: FILE,
    line,
    title: '',
    message: '',
    evidence: {},
    fix,
    ...(gradDisabled ? { gradDisabled } : {}),
    ...(related ? { related: related.map((r) => ({ file: FILE, line: r.line, message: '' })) } : {}),
  };
  return quickFixesFor(finding, (file) => (file === FILE ? src : undefined));
}

/** The file after the first fix, checked to parse without errors. */
function fixed(text: string, line: number, fix: FixKind, related?: { line: number }[]): string | undefined {
  const [first] = fixes(text, line, fix, related);
  if (!first) return undefined;
  const after = applyEdit(text, first);
  assert.equal(PythonSource.parse(after).errorCount, 0, `parses after the edit:\n${after}`);
  return after;
}

describe('quick fix: in-place arithmetic', () => {
  // Each target is made in the function (so the rewrite is safe: test/unit/engine/python/inPlaceSafety.test.ts).
  const cases: [string, string, string][] = [
    ['x', 'x = x / s', 'x.div_(s)'],
    ['attention_scores', 'attention_scores = attention_scores / math.sqrt(d)', 'attention_scores.div_(math.sqrt(d))'],
    ['attention_scores', 'attention_scores = attention_scores + attention_mask', 'attention_scores.add_(attention_mask)'],
    ['h', 'h = x + h', 'h.add_(x)'],
    ['x', 'x = (x * (a + b))', 'x.mul_(a + b)'],
  ];
  for (const [name, before, after] of cases) {
    it(`rewrites ${before}`, () => {
      const text = (statement: string) => `import math\nimport torch\n\ndef f(a, b, s, d, attention_mask, n):\n    ${name} = torch.zeros(n)\n    ${statement}  # note\n    return ${name}\n`;
      assert.equal(fixed(text(before), 6, 'in-place-operator'), text(after));
    });
  }

  it('a statement over several lines is rewritten whole', () => {
    const text = 'import torch\ndef f(a, b):\n    x = torch.ones(2)\n    x = x * (\n        a + b\n    )\n    return x\n';
    assert.equal(fixed(text, 5, 'in-place-operator'), 'import torch\ndef f(a, b):\n    x = torch.ones(2)\n    x.mul_(a + b)\n    return x\n');
  });

  it('offers nothing where the rewrite is not provably safe: attributes, elements, parameters, fused updates', () => {
    for (const statement of ['p.data = p.data - step_size * update', 'state["v"] = state["v"] * beta2', 'x = x / s', 'p.data -= alpha_t * m_t / (v_t.sqrt() + eps)']) {
      assert.deepEqual(fixes(`def f(p, state, x, s, step_size, update, beta2, alpha_t, m_t, v_t, eps):\n    ${statement}\n`, 2, 'in-place-operator'), [], statement);
    }
  });

  it('reads grad mode from the finding: the output of exp is rewritten only where gradients were off', () => {
    const text = 'import torch\ndef f(a):\n    x = torch.exp(a)\n    x = x * 2\n    return x\n';
    assert.deepEqual(fixes(text, 4, 'in-place-operator'), []);
    assert.deepEqual(fixes(text, 4, 'in-place-operator', undefined, true).map((e) => e.newText), ['x.mul_(2)']);
  });

  const refused = [
    'x = x @ w', // a matrix product has no in-place form
    'x = torch.matmul(x, w)',
    'y = torch.matmul(a, b)',
    'x = a - x', // x is overwritten, but there is no single in-place call for a - x
    'x = x ** 2',
    'x = x // 2',
    'y = x / s', // a new name: x is still needed
    'x, y = x / s, y',
    'x = y = x / s',
    'total += loss', // already in place, nothing allocated by arithmetic
  ];
  for (const line of refused) {
    it(`offers nothing for ${line}`, () => {
      assert.deepEqual(fixes(`${line}\n`, 1, 'in-place-operator'), []);
    });
  }
});

describe('quick fix: accumulation', () => {
  it('accumulates .item() or .detach() of `total += loss`', () => {
    const text = 'for batch in data:\n    loss = model(batch)\n    total += loss\n';
    const all = fixes(text, 2, 'detach-accumulation', [{ line: 2 }]);
    assert.deepEqual(all.map((e) => applyEdit(text, e).split('\n')[2]), ['    total += loss.item()', '    total += loss.detach()']);
  });

  it('parenthesises an expression: `total = total + a * b` and `losses.append(out.sum())`', () => {
    assert.equal(fixed('total = total + a * b\n', 1, 'detach-accumulation'), 'total = total + (a * b).item()\n');
    assert.equal(fixed('losses.append(out.sum())\n', 1, 'detach-accumulation'), 'losses.append(out.sum().item())\n');
  });

  it('offers nothing where the value is already a number or detached, or the line is not an accumulation', () => {
    assert.deepEqual(fixes('total += loss.item()\n', 1, 'detach-accumulation'), []);
    assert.deepEqual(fixes('xs.append(y.detach())\n', 1, 'detach-accumulation'), []);
    assert.deepEqual(fixes('total -= loss\n', 1, 'detach-accumulation'), []);
    assert.deepEqual(fixes('total = other + loss\n', 1, 'detach-accumulation'), []);
  });
});

describe('quick fix: torch.inference_mode()', () => {
  it('wraps the model call in `with torch.inference_mode():`, keeping its comment and continuation lines', () => {
    const text = 'import torch\n\ndef main(model, x):\n    out = model(\n        x)  # forward\n    return out\n';
    assert.equal(fixed(text, 4, 'inference-mode'), 'import torch\n\ndef main(model, x):\n    with torch.inference_mode():\n        out = model(\n            x)  # forward\n    return out\n');
  });

  it('uses the name torch is imported as', () => {
    assert.equal(fixed('import torch as T\nout = model(x)\n', 2, 'inference-mode'), 'import torch as T\nwith T.inference_mode():\n    out = model(x)\n');
  });

  it('offers nothing without `import torch`, on a one-line `if`, or where a string spans lines', () => {
    assert.deepEqual(fixes('out = model(x)\n', 1, 'inference-mode'), []);
    assert.deepEqual(fixes('import torch\nif a: out = model(x)\n', 2, 'inference-mode'), []);
    assert.deepEqual(fixes('import torch\nout = model(x, """a\nb""")\n', 2, 'inference-mode'), []);
  });
});

describe('PythonSource.gradModeAt', () => {
  const at = (text: string, line: number) => {
    const s = PythonSource.parse(text).gradModeAt(line);
    return s && `${s.enabled ? 'on' : 'off'} ${s.form} ${s.line}`;
  };
  it('sees with blocks, decorators and switch calls on the way to a line', () => {
    assert.equal(at('with torch.no_grad():\n    y = model(x)\n', 2), 'off with 1');
    assert.equal(at('with torch.autocast("cuda"), torch.inference_mode():\n    y = model(x)\n', 2), 'off with 1');
    assert.equal(at('@torch.inference_mode()\ndef run(m, x):\n    for b in x:\n        m(b)\n', 4), 'off decorator 1');
    assert.equal(at('@torch.no_grad\ndef run(m, x):\n    return m(x)\n', 3), 'off decorator 1');
    assert.equal(at('import torch\ntorch.set_grad_enabled(False)\n\ndef main():\n    model(x)\n\nmain()\n', 7), 'off call 2');
    assert.equal(at('def main():\n    torch.set_grad_enabled(False)\n    for b in data:\n        model(b)\n', 4), 'off call 2');
  });
  it('the innermost switch decides, and a switch after the line does not count', () => {
    assert.equal(at('with torch.no_grad():\n    with torch.enable_grad():\n        y = model(x)\n', 3), 'on with 2');
    assert.equal(at('torch.set_grad_enabled(False)\ntorch.set_grad_enabled(True)\nmodel(x)\n', 3), 'on call 2');
    assert.equal(at('model(x)\ntorch.set_grad_enabled(False)\n', 1), undefined);
    assert.equal(at('with torch.no_grad():\n    pass\ny = model(x)\n', 3), undefined);
  });
  it('is not fooled by lookalikes: inference_mode(False), set_grad_enabled(flag), comments and strings', () => {
    assert.equal(at('with torch.inference_mode(False):\n    y = model(x)\n', 2), undefined);
    assert.equal(at('torch.set_grad_enabled(flag)\ny = model(x)\n', 2), undefined);
    assert.equal(at('# torch.set_grad_enabled(False)\ns = "with torch.no_grad():"\ny = model(x)\n', 3), undefined);
  });
});
