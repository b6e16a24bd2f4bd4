/**
 * The scope and alias analysis that decides whether `x = x op y` may become `x.op_(y)`: offered only
 * where the tensor provably belongs to the function and nothing else reads it afterwards; refused,
 * with the reason in words, for parameters, views and slices of anything (the issue's
 * `x = x + dx.transpose(1, 4)` where x is `x_in.transpose(1, 4)`), arguments handed to calls, attributes,
 * globals, Python numbers, and tensors autograd keeps for backward (unless gradients are off).
 * Whether the offered rewrites really compute the same is checked against real PyTorch in
 * test/unit/engine/python/inPlaceRealTorch.test.ts.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { inPlaceFormAt } from '../../../../src/engine/python/inPlaceForm';
import type { InPlaceVerdict } from '../../../../src/engine/python/inPlaceSafety';
import { inPlaceSafety } from '../../../../src/engine/python/inPlaceSafety';
import { PythonSource } from '../../../../src/engine/python/pythonSource';

/** The verdict on the statement marked `# <-` in `code`. */
function verdict(code: string, gradDisabled = false, ranOnCuda = false): InPlaceVerdict {
  const lines = code.split('\n');
  const line = lines.findIndex((l) => l.includes('# <-')) + 1;
  assert.ok(line > 0, 'the fixture marks its statement');
  const src = PythonSource.parse(code);
  const form = inPlaceFormAt(src, line);
  assert.ok(form, `line ${line} has an in-place form`);
  return inPlaceSafety(src, form, { gradDisabled, ranOnCuda });
}

function refused(code: string, reason: RegExp, gradDisabled = false, ranOnCuda = false): void {
  const v = verdict(code, gradDisabled, ranOnCuda);
  assert.equal(v.safe, false, 'refused');
  if (!v.safe) assert.match(v.reason, reason);
}

describe('in-place safety: offered where the tensor provably belongs to the function', () => {
  it('a product made here, divided in place', () => {
    // A matrix product that ran on CUDA is floating point (PyTorch has no integer matrix product there).
    assert.deepEqual(verdict('def f(a, b, s):\n    x = a @ b\n    x = x / s  # <-\n    return x\n', false, true), { safe: true });
    assert.deepEqual(verdict('def f(a, b, s):\n    x = a * b * 0.5\n    x = x / s  # <-\n    return x\n'), { safe: true });
  });

  it('an accumulator made by torch.zeros, updated in a loop', () => {
    assert.deepEqual(verdict('import torch\n\ndef g(n, steps):\n    x = torch.zeros(n)\n    for i in range(steps):\n        x = x + torch.rand(n)  # <-\n    return x\n'), { safe: true });
  });

  it('a clone, scaled; reads that keep nothing (shape, sum, print, torch.cat, comparisons) do not matter', () => {
    const code = [
      'import torch',
      'def h(y):',
      '    x = torch.as_tensor(y, dtype=torch.float32).clone()',
      '    n = x.shape[0] + x.size(1)',
      '    total = x.sum() + torch.cat([x, x]).mean()',
      '    print(x, len(x))',
      '    if x.sum() > 0 and x is not None:',
      '        pass',
      '    x = x * 0.5  # <-',
      '    return x, n, total',
    ].join('\n');
    assert.deepEqual(verdict(code), { safe: true });
  });

  it('with F imported: a softmax output kept by autograd is refused, but fine where gradients are off', () => {
    const code = 'import torch.nn.functional as F\n\ndef att(q, k, mask):\n    s = F.softmax(q @ k, dim=-1)\n    s = s * mask  # <-\n    return s\n';
    refused(code, /`s = F\.softmax\(q @ k, dim=-1\)` \(line 4\) makes it an output that autograd keeps for the backward pass/);
    assert.deepEqual(verdict(code, true), { safe: true });
  });

  it('the later statement `x = x.transpose(1, 4)` after the loop does not count (it cannot reach the statement)', () => {
    const code = 'import torch\ndef f(n):\n    x = torch.ones(n, 2)\n    for _ in range(3):\n        x = x + 1  # <-\n    x = x.transpose(0, 1)\n    return x\n';
    assert.deepEqual(verdict(code), { safe: true });
  });
});

/**
 * Issue 29, item 7: a cellular automaton's update (the shape of the NCA run, written here) binds `dx`
 * to a call VRAM Lens cannot see into first, then rebinds it, last by a linear layer the class holds,
 * before `dx = dx * keep`. The tensor that statement rewrites is the last binding's, a new one: the fix
 * is safe there. `x = x + dx.transpose(1, 4)` keeps its refusal: x is a view of the caller's `state`.
 */
const AUTOMATON = [
  'import torch',
  'import torch.nn as nn',
  'import torch.nn.functional as F',
  '',
  '',
  'class Automaton(nn.Module):',
  '    def __init__(self, channels, hidden):',
  '        super().__init__()',
  '        self.sense = nn.Conv3d(channels, channels, 3, padding=1)',
  '        self.lin_in = nn.Linear(channels * 2, hidden)',
  '        self.lin_out = nn.Linear(hidden, channels, bias=False)',
  '',
  '    def look(self, x):',
  '        return torch.cat((x, self.sense(x)), 1)',
  '',
  '    def step(self, state, rate):',
  '        x = state.transpose(1, 4)',
  '        dx = self.look(x)',
  '        dx = dx.transpose(1, 4)',
  '        dx = self.lin_in(dx)',
  '        dx = F.relu(dx)',
  '        dx = self.lin_out(dx)',
  '        keep = (torch.rand(dx.shape[:-1] + (1,), device=dx.device) > rate).float()',
  '        dx = dx * keep  # <-',
  '        x = x + dx.transpose(1, 4)',
  '        return x.transpose(1, 4)',
  '',
].join('\n');

describe('in-place safety follows the last binding before the statement (issue 29)', () => {
  it('the automaton\'s `dx = dx * keep`: dx is last bound by `self.lin_out(dx)`, a new tensor: offered, with gradients on', () => {
    assert.deepEqual(verdict(AUTOMATON), { safe: true });
  });

  it('its `x = x + dx.transpose(1, 4)` keeps the refusal: x is a view of the caller\'s tensor', () => {
    const code = AUTOMATON.replace('        dx = dx * keep  # <-\n        x = x + dx.transpose(1, 4)', '        dx = dx * keep\n        x = x + dx.transpose(1, 4)  # <-');
    refused(code, /`x = state\.transpose\(1, 4\)` \(line 17\) makes it a view of `state`, the caller's tensor \(`state` is a parameter\): `transpose` may return its input/);
  });

  it('a refusal names the binding the tensor comes from, not an earlier one', () => {
    // The last binding is a call VRAM Lens cannot see into: it is the one named (line 22), not line 18.
    const unknown = AUTOMATON.replace('        dx = self.lin_out(dx)', '        dx = self.look(dx)');
    refused(unknown, /`dx = self\.look\(dx\)` \(line 22\) takes the result of `self\.look\(dx\)`, a call VRAM Lens cannot see into/);
    // A binding in a branch may not run: the last one on every path (line 21's relu, kept by autograd) and the branch's both reach.
    const branch = AUTOMATON.replace('        dx = self.lin_out(dx)', '        if rate > 0:\n            dx = self.lin_out(dx)').replace('# <-', '').replace('        dx = dx * keep', '        dx = dx * keep  # <-');
    refused(branch, /`dx = F\.relu\(dx\)` \(line 21\) makes it an output that autograd keeps/);
    // A view bound between the last binding and the statement, in a branch, reaches it.
    const view = AUTOMATON.replace('        keep = ', '        if rate > 1:\n            dx = dx[0]\n        keep = ');
    refused(view, /`dx = dx\[0\]` \(line 24\) makes it a slice or element of `dx`/);
    // Uses of the tensor between the last binding and the statement still count; uses before it do not.
    refused(AUTOMATON.replace('        keep = ', '        self.kept = dx\n        keep = '), /`self\.kept = dx` at line 23 gives the tensor of `dx` another name/);
    assert.deepEqual(verdict(AUTOMATON.replace('        dx = self.lin_out(dx)', '        self.kept = dx\n        dx = self.lin_out(dx)')), { safe: true });
  });

  it('in a loop, a binding before the loop reaches the statement with every binding in the loop', () => {
    const code = 'import torch\ndef f(n, xs):\n    x = torch.zeros(n)\n    for y in xs:\n        x = x + 1  # <-\n        x = y\n    return x\n';
    refused(code, /`x = y` \(line 6\) makes it another name for the tensor of `y`/);
    // Bound again at the top of each iteration: what the loop does after the statement cannot reach it.
    assert.deepEqual(verdict('import torch\ndef f(n, outs):\n    for _ in range(3):\n        x = torch.zeros(n)\n        x = x + 1  # <-\n        outs.append(x)\n'), { safe: true });
  });

  it('a layer is read as its torch operation only where the file proves which layer the attribute holds', () => {
    const opaque: [string, string][] = [
      ['        self.lin_out = nn.Linear(hidden, channels, bias=False)', '        self.lin_out = nn.Linear(hidden, channels) if hidden else nn.Identity()'],
      ['        self.lin_out = nn.Linear(hidden, channels, bias=False)', '        self.lin_out = nn.Identity()'],
      ['        self.lin_out = nn.Linear(hidden, channels, bias=False)', '        self.lin_out = nn.Linear(hidden, channels, bias=False)\n        self.lin_out.register_forward_hook(lambda m, i, o: None)'],
      ['class Automaton(nn.Module):', 'def swap(m):\n    m.lin_out = nn.Dropout()\n\n\nclass Automaton(nn.Module):'],
      ['        self.lin_out = nn.Linear(hidden, channels, bias=False)', '        self.lin_out, self.other = nn.Linear(hidden, channels), None'],
    ];
    for (const [from, to] of opaque) {
      const code = AUTOMATON.replace(from, to);
      refused(code, /takes the result of `self\.lin_out\(dx\)`, a call VRAM Lens cannot see into/, false);
    }
    // Another class's attribute of the same name proves nothing about this one.
    const elsewhere = AUTOMATON.replace('        self.lin_out = nn.Linear(hidden, channels, bias=False)\n', '').replace('import torch.nn.functional as F\n', 'import torch.nn.functional as F\nclass Other(nn.Module):\n    def __init__(self):\n        self.lin_out = nn.Linear(2, 2)\n');
    refused(elsewhere, /a call VRAM Lens cannot see into/);
  });

  it('a layer\'s input is kept by autograd for its backward pass', () => {
    const code = AUTOMATON.replace('        dx = dx * keep  # <-', '        dx = dx * keep')
      .replace('        dx = F.relu(dx)\n        dx = self.lin_out(dx)\n', '        dx = dx + 1\n        y = self.lin_out(dx)\n        dx = dx * 2  # <-\n');
    refused(code, /`dx` is read by `self\.lin_out\(dx\)` at line 22, and autograd keeps that operation's inputs/);
    assert.deepEqual(verdict(code, true), { safe: true }, 'with gradients off');
  });
});

describe('in-place safety: refused, with the reason', () => {
  it('a tensor that may hold integers: in place, a floating-point result cannot be written into it (`x.div_(2)` on int32 raises)', () => {
    const integer = /may hold an integer tensor/;
    for (const binding of [
      'x = torch.zeros(n, dtype=torch.int32)',
      'x = torch.arange(n)',
      'x = torch.randint(0, 9, (n,))',
      'x = torch.tensor([1, 2, 3])',
      'x = torch.full((n,), 7)',
      'x = a * b',
      'x = a @ b', // not known to have run on CUDA (on the CPU, integer matrix products exist)
    ]) {
      refused(`import torch\ndef f(n, a, b):\n    ${binding}\n    x = x / 2  # <-\n    return x\n`, integer);
    }
    // Each of these makes floating point: offered.
    for (const binding of ['x = torch.zeros(n)', 'x = torch.randn(n)', 'x = torch.zeros(n, dtype=torch.float16)', 'x = torch.arange(n) / 2', 'x = torch.exp(a)', 'x = torch.ones(n).float() * 3', 'x = torch.zeros_like(torch.randn(n))']) {
      assert.deepEqual(verdict(`import torch\ndef f(n, a, b):\n    ${binding}\n    x = x / 2  # <-\n    return x\n`, true), { safe: true }, binding);
    }
    // On CUDA a matrix product is floating point.
    assert.deepEqual(verdict('import torch\ndef f(n, a, b):\n    x = a @ b\n    x = x / 2  # <-\n    return x\n', true, true), { safe: true });
    // `+ - *` with a Python int keep the tensor's type: offered whatever the tensor holds.
    for (const statement of ['x = x + 1', 'x = x * 3', 'x = x - 2']) {
      assert.deepEqual(verdict(`import torch\ndef f(n):\n    x = torch.arange(n)\n    ${statement}  # <-\n    return x\n`, true), { safe: true }, statement);
    }
    refused('import torch\ndef f(n):\n    x = torch.arange(n)\n    x = x * 0.5  # <-\n    return x\n', integer, true);
    // Every binding counts: one that may be an integer tensor is enough to refuse.
    refused('import torch\ndef f(n, a, b, c):\n    x = torch.randn(n) if c else torch.arange(n)\n    x = x / 2  # <-\n    return x\n', integer, true);
  });

  it('the issue\'s shape: x is `x_in.transpose(1, 4)`, a view of the caller\'s tensor', () => {
    const code = [
      'import torch',
      'torch.set_grad_enabled(False)',
      '',
      'class NCA(torch.nn.Module):',
      '    def update(self, x_in, fire_rate):',
      '        x = x_in.transpose(1, 4)',
      '        dx = self.p0(x)',
      '        stochastic = torch.rand(dx.shape) > fire_rate',
      '        dx = dx * stochastic',
      '        x = x+dx.transpose(1,4)  # <-',
      '        x = x.transpose(1, 4)',
      '        return x',
    ].join('\n');
    refused(code, /`x = x_in\.transpose\(1, 4\)` \(line 6\) makes it a view of `x_in`, the caller's tensor \(`x_in` is a parameter\): `transpose` may return its input/, true);
  });

  it('the issue\'s `dx = dx * stochastic`: dx comes from a module call VRAM Lens cannot see into', () => {
    const code = 'import torch\nclass M:\n    def update(self, x):\n        dx = self.p0(x)\n        dx = dx * stochastic  # <-\n        return dx\n';
    refused(code, /`dx = self\.p0\(x\)` \(line 4\) takes the result of `self\.p0\(x\)`, a call VRAM Lens cannot see into/, true);
  });

  it('a parameter', () => {
    refused('def f(x, s):\n    x = x / s  # <-\n    return x\n', /`x` is a parameter of `f`: the caller may still use the tensor it passed/);
    refused('def f(a, *, x=None):\n    x = x / 2  # <-\n', /`x` is a parameter of `f`/);
  });

  it('slices, indexing and views of any kind', () => {
    const views: [string, RegExp][] = [
      ['x = h[:, 0]', /slice or element of `h`/],
      ['x = h[idx]', /slice or element of `h`/],
      ['x = h.view(-1)', /view of `h`: `view` may return its input/],
      ['x = h.reshape(2, -1)', /`reshape` may return its input/],
      ['x = h.permute(0, 2, 1)', /view of `h`/],
      ['x = h.t()', /view of `h`/],
      ['x = h.T', /view of `h`/],
      ['x = h.expand(4, -1)', /view of `h`/],
      ['x = h.narrow(0, 0, 2)', /view of `h`/],
      ['x = h.detach()', /view of `h`/],
      ['x = h.to(device)', /view of `h`/],
      ['x = h.float()', /view of `h`/],
      ['x = h.contiguous()', /view of `h`/],
      ['x = torch.transpose(h, 0, 1)', /`transpose` may return its input/],
      ['x = F.dropout(h, 0.1, training=False)', /`dropout` may return its input/],
      ['x = h', /another name for the tensor of `h`/],
      ['x = F.relu(h, inplace=True)', /with `inplace=True` the call returns a tensor it was given/],
      ['x = torch.add(h, 1, out=h)', /with `out=h` the call returns a tensor it was given/],
    ];
    for (const [binding, reason] of views) {
      refused(`import torch\nimport torch.nn.functional as F\ndef f(n, idx, device):\n    h = torch.randn(n, n)\n    ${binding}\n    x = x + 1  # <-\n    return x, h\n`, reason);
    }
  });

  it('a tensor passed to a call that may keep it, or put in a container, or given another name', () => {
    const uses: [string, RegExp][] = [
      ['y = model(x)', /`x` is passed to `model\(x\)` at line 6, a call VRAM Lens cannot see into/],
      ['outs.append(x)', /`outs\.append\(x\)` at line 6, a call VRAM Lens cannot see into/],
      ['y = x', /`y = x` at line 6 gives the tensor of `x` another name/],
      ['pair = (x, 1)', /puts the tensor of `x` in a container/],
      ['self.cache = x', /`self\.cache = x` at line 6 gives the tensor of `x` another name/],
      ['v = x[0]', /`v = x\[0\]` at line 6 gives the tensor of `x` another name/],
      ['v = x.view(-1)', /`v = x\.view\(-1\)` at line 6 gives the tensor of `x` another name/],
      ['for row in x: pass', /iterated at line 6/],
      ['g = lambda: x', /used inside `lambda: x`/],
      ['y = F.relu(x, inplace=True)', /`y = F\.relu\(x, inplace=True\)` at line 6 gives the tensor of `x` another name/],
    ];
    for (const [use, reason] of uses) {
      refused(`import torch\nimport torch.nn.functional as F\ndef f(model, outs, n):\n    x = torch.randn(n)\n    y = None\n    ${use}\n    x = x * 2  # <-\n    return y\n`, reason);
    }
  });

  it('a use later in the loop body runs before the next iteration\'s statement', () => {
    refused('import torch\ndef f(n, outs):\n    x = torch.zeros(n)\n    for i in range(3):\n        x = x + 1  # <-\n        outs.append(x)\n    return outs\n', /`outs\.append\(x\)` at line 6/);
  });

  it('the right-hand side reads x again through a view', () => {
    refused('import torch\ndef f(n):\n    x = torch.randn(n, n)\n    x = x + x.t()  # <-\n    return x\n', /reads `x` again through `x\.t\(\)`/);
    refused('import torch\ndef f(n):\n    x = torch.randn(n, n)\n    x = x * x  # <-\n    return x\n', /reads `x` again: the in-place form/);
    assert.deepEqual(verdict('import torch\ndef f(n):\n    x = torch.randn(n, n)\n    x = x + x.flip(0)  # <-\n    return x\n'), { safe: true }, 'flip makes a copy');
  });

  it('attributes and elements as the target', () => {
    refused('def step(p, lr, wd):\n    p.data = p.data - lr * wd * p.data  # <-\n', /`p\.data` is an attribute: other code may hold the tensor it refers to/);
    refused('class M:\n    def f(self, d):\n        self.h = self.h + d  # <-\n', /`self\.h` is an attribute/);
    refused('def f(state, b):\n    state["v"] = state["v"] * b  # <-\n', /`state\["v"\]` is an element of `state`/);
  });

  it('an attribute as the source', () => {
    refused('class M:\n    def f(self, d):\n        x = self.buffer\n        x = x + d  # <-\n        return x\n', /makes it the attribute `self\.buffer`, which other code may hold/);
  });

  it('globals: a module-level name, a `global` declaration, a class attribute', () => {
    refused('import torch\nx = torch.zeros(3)\nfor i in range(3):\n    x = x * 2  # <-\n', /`x` is a module-level \(global\) name/);
    refused('import torch\ndef f():\n    global x\n    x = torch.zeros(3)\n    x = x * 2  # <-\n', /`x` is declared `global` at line 3/);
    refused('import torch\nclass C:\n    x = torch.zeros(3)\n    x = x * 2  # <-\n', /class attribute/);
  });

  it('kept by autograd for backward: an output of exp/sigmoid/tanh/relu/softmax or `**`, an operand of `*`, `@` or a layer', () => {
    const saved: [string, string, RegExp][] = [
      ['x = torch.sigmoid(a)', '', /`x = torch\.sigmoid\(a\)` \(line 3\) makes it an output that autograd keeps/],
      ['x = torch.sigmoid(a).exp()', '', /makes it an output that autograd keeps/],
      ['x = torch.tanh(a)', '', /makes it an output that autograd keeps/],
      ['x = torch.relu(a)', '', /makes it an output that autograd keeps/],
      ['x = a ** 2', '', /makes it an output that autograd keeps/],
      ['x = a + 1', 'h = x * w', /`x` is an operand of `x \* w` at line 4, and autograd keeps the operands of `\*`/],
      ['x = a + 1', 'h = x @ w', /operands of `@`/],
      ['x = a + 1', 'h = torch.matmul(x, w)', /`x` is read by `torch\.matmul\(x, w\)` at line 4, and autograd keeps that operation's inputs/],
      ['x = a + 1', 'h = x.log()', /`x` is read by `x\.log\(\)` at line 4/],
    ];
    for (const [binding, use, reason] of saved) {
      const code = `import torch\ndef f(a, w):\n    ${binding}\n    ${use}\n    x = x + 1  # <-\n    return x\n`;
      refused(code, reason);
      refused(code, /gradient recording may be on here/);
      assert.deepEqual(verdict(code, true), { safe: true }, `${binding}; ${use} with gradients off`);
    }
  });

  it('calls on objects of unknown type: never read as tensor methods, with gradients on or off (planted cases)', () => {
    const cases: [string, string, RegExp][] = [
      ['x = layer.norm(h)', '', /`x = layer\.norm\(h\)` \(line 4\) takes the result of `layer\.norm\(h\)`, a call VRAM Lens cannot see into/],
      ['x = obj.relu_()', '', /`x = obj\.relu_\(\)` \(line 4\) makes it a view of `obj`, the caller's tensor \(`obj` is a parameter\): `relu_` may return its input/],
      ['x = h.clone()', 'y = layer.norm(x)', /`x` is passed to `layer\.norm\(x\)` at line 5, a call VRAM Lens cannot see into/],
      ['x = h.clone()', 'obj.relu_(x)', /`x` is passed to `obj\.relu_\(x\)` at line 5, a call VRAM Lens cannot see into/],
      ['x = h.clone()', 'z = obj.clone(x)', /`x` is passed to `obj\.clone\(x\)` at line 5/],
      ['x = torch.max(h, 0)', '', /`max` may return a tuple of tensors/],
      ['x = h.sort()', '', /`sort` may return a tuple of tensors/],
      ['x = y.clone()', '', /`x = y\.clone\(\)` \(line 4\) takes the result of `y\.clone\(\)`, a call VRAM Lens cannot see into/],
    ];
    for (const [binding, use, reason] of cases) {
      const code = `import torch\ndef f(layer, obj, n, y):\n    h = torch.randn(n)\n    ${binding}\n    ${use}\n    x = x * 2  # <-\n    return x, h\n`;
      refused(code, reason);
      refused(code, reason, true);
    }
    refused('import torch\nclass M:\n    def f(self, n):\n        h = torch.randn(n)\n        x = self.act(h)\n        x = x * 2  # <-\n        return x\n', /`self\.act\(h\)`, a call VRAM Lens cannot see into/, true);
  });

  it('a receiver is proven a tensor through local names, torch calls and views (and only then trusted)', () => {
    const safe = [
      'h = torch.randn(n)\n    x = h.clone()',
      'h = torch.randn(n)\n    g = h * 2\n    x = g.t().clone()',
      'x = torch.randn(n).clone()',
      'h = torch.zeros(n)\n    h = h + 1\n    x = h.clone()',
    ];
    for (const binding of safe) assert.deepEqual(verdict(`import torch\ndef f(n, y):\n    ${binding}\n    x = x * 2  # <-\n    return x\n`, true), { safe: true }, binding);
    const unproven = [
      'h = y\n    x = h.clone()', // another name for a parameter
      'h = torch.randn(n)\n    h = y\n    x = h.clone()', // one binding of h is not a tensor made here
      'h = torch.randn(n)\n    del h\n    h = y.clone()\n    x = h.clone()',
      'h = torch.randn(n)\n    for h in y: pass\n    x = h.clone()',
    ];
    for (const binding of unproven) refused(`import torch\ndef f(n, y):\n    ${binding}\n    x = x * 2  # <-\n    return x\n`, /a call VRAM Lens cannot see into/, true);
  });

  it('not a tensor, or not provably one made here', () => {
    refused('def f(losses):\n    total = 0\n    for loss in losses:\n        total = total + loss  # <-\n    return total\n', /`total = 0` \(line 2\) binds it to a Python value, not a tensor/);
    refused('def f(xs):\n    for x in xs:\n        x = x * 2  # <-\n', /`x` is the loop variable of the `for`/);
    refused('def f(t):\n    x, y = t\n    x = x * 2  # <-\n    return x, y\n', /unpacks it from `t`/);
    refused('def f(t):\n    x = t.pop()\n    x = x * 2  # <-\n    return x\n', /`t\.pop\(\)`, a call VRAM Lens cannot see into/);
    refused('def f(t):\n    x = x * 2  # <-\n    return x\n', /no assignment in `f` before this line gives `x` a tensor of its own/);
    refused('def f(a, b, c):\n    x = a or b\n    x = x * 2  # <-\n    return x\n', /may give it one of the operands of `or`/);
  });

  it('forms with no single in-place call that computes the same are explained, never fixed', () => {
    refused('import torch\ndef f(a, b, n):\n    x = torch.zeros(n)\n    x = a * x + b  # <-\n    return x\n', /longer chain/);
    refused('import torch\ndef f(m, d, lr):\n    p = torch.zeros(3)\n    p -= lr * m / d  # <-\n    return p\n', /rounds differently/);
  });
});
