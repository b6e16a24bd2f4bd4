/**
 * The mechanical quick fixes, decided from the syntax tree: offered only where the statement has
 * the form, each leaving the file parsing as Python (checked here by parsing the result again),
 * and reading as the rewrite a person would write; never where the rewrite could change what the
 * program computes (planted unsafe cases below: calls on receivers of unknown type, accumulations,
 * model calls).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Finding, FixKind, LineEdit } from '../../../../src/engine/advice/finding';
import { accumulationAt, findAccumulation, quickFixesFor } from '../../../../src/engine/advice/quickFix';
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
    rule: 'in-place-arithmetic',
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

describe('quick fix: unknown receivers never lead to a fix (planted unsafe cases)', () => {
  // Each would be offered if a call on an object of unknown type were read as a tensor method.
  const planted: [string, string][] = [
    ['x is the result of `layer.norm(h)`, which may return h itself', 'import torch\ndef f(layer, n):\n    h = torch.randn(n)\n    x = layer.norm(h)\n    x = x * 2\n    return x, h\n'],
    ['x is the result of `self.act(h)`', 'import torch\nclass M:\n    def f(self, n):\n        h = torch.randn(n)\n        x = self.act(h)\n        x = x * 2\n        return x, h\n'],
    ['x is the result of `obj.relu_()`', 'import torch\ndef f(obj):\n    x = obj.relu_()\n    x = x * 2\n    return x\n'],
    ['x is handed to `layer.norm(x)`, which may keep it', 'import torch\ndef f(layer, n):\n    x = torch.randn(n)\n    y = layer.norm(x)\n    x = x * 2\n    return x, y\n'],
    ['x is handed to `obj.relu_(x)`', 'import torch\ndef f(obj, n):\n    x = torch.randn(n)\n    obj.relu_(x)\n    x = x * 2\n    return x\n'],
    ['x is handed to `self.act(x)`', 'import torch\nclass M:\n    def f(self, n):\n        x = torch.randn(n)\n        y = self.act(x)\n        x = x * 2\n        return x, y\n'],
    ['x is a clone made by `y.clone()` on a parameter of unknown type', 'def f(y):\n    x = y.clone()\n    x = x * 2\n    return x\n'],
    ['x is `torch.max(h, 0)`, a named tuple', 'import torch\ndef f(n):\n    h = torch.randn(n, n)\n    x = torch.max(h, 0)\n    x = x * 2\n    return x\n'],
  ];
  for (const [name, text] of planted) {
    it(`no fix where ${name}, with gradients on or off`, () => {
      const line = text.split('\n').findIndex((l) => /^\s*x = x \* 2$/.test(l)) + 1;
      assert.ok(line > 0);
      assert.deepEqual(fixes(text, line, 'in-place-operator'), [], 'gradients on');
      assert.deepEqual(fixes(text, line, 'in-place-operator', undefined, true), [], 'gradients off');
    });
  }

  it('the same shapes on a receiver proven to be a tensor made here are rewritten (the guard is the receiver)', () => {
    const text = 'import torch\ndef f(n):\n    h = torch.randn(n)\n    x = h.clone()\n    y = x.sum()\n    x = x * 2\n    return x, y\n';
    assert.deepEqual(fixes(text, 6, 'in-place-operator').map((e) => e.newText), ['x.mul_(2)']);
  });
});

describe('quick fix: none for findings whose rewrite could change what the program computes', () => {
  const finding = (rule: Finding['rule'], line: number): Finding => ({ rule, severity: 'warning', device: 0, file: FILE, line, title: '', message: '', evidence: {} });

  it('growing memory: the accumulation is found (the finding points at it) but never rewritten', () => {
    const text = 'for batch in data:\n    loss = model(batch)\n    total += loss\n';
    const src = PythonSource.parse(text);
    assert.deepEqual(findAccumulation({ file: FILE, line: 2 }, [{ file: FILE, line: 1 }], () => src), { file: FILE, line: 3, statement: 'total += loss', expression: 'loss' });
    assert.deepEqual(quickFixesFor(finding('growing-memory', 2), () => src), []);
  });

  it('accumulations of every form are found; a number, a detached tensor or another statement is not one', () => {
    const at = (text: string) => accumulationAt(PythonSource.parse(text), FILE, 1)?.expression;
    assert.equal(at('total = total + a * b\n'), 'a * b');
    assert.equal(at('losses.append(out.sum())\n'), 'out.sum()');
    for (const text of ['total += loss.item()\n', 'xs.append(y.detach())\n', 'total -= loss\n', 'total = other + loss\n']) assert.equal(at(text), undefined, text);
  });

  it('inference without no_grad: a model call is never wrapped (the model is code of unknown type)', () => {
    const text = 'import torch\n\ndef main(model, x):\n    out = model(x)\n    return out\n';
    assert.deepEqual(quickFixesFor(finding('inference-without-no-grad', 4), () => PythonSource.parse(text)), []);
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
