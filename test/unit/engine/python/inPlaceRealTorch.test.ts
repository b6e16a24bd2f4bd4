/**
 * A quick fix never changes what the program computes, checked with a real PyTorch: each program
 * below is run as written and with its statement rewritten in place, from the same random seed,
 * and the results (outputs, the caller's tensors, gradients, or the error raised) are compared.
 * - Where the advisor offers the fix (`quickFixesFor`), the two runs agree exactly (torch.equal).
 * - Where it refuses, the naive rewrite is shown to change something (the caller's tensor, a list's
 *   entries, a gradient, or an error in backward): each refusal class is needed.
 * Runs where `npm run test:torch` (scripts/test-torch.mjs) names a real PyTorch:
 * VRAM_LENS_TORCH_PYTHON and, for the chroots, VRAM_LENS_TORCH_ROOT (the script bind-mounts /tmp).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import type { Finding } from '../../../../src/engine/advice/finding';
import { quickFixesFor } from '../../../../src/engine/advice/quickFix';
import { inPlaceFormAt } from '../../../../src/engine/python/inPlaceForm';
import { PythonSource } from '../../../../src/engine/python/pythonSource';
import { ATTN_SOURCE } from '../../../helpers/inPlaceFixtures';

const python = process.env.VRAM_LENS_TORCH_PYTHON;
const root = process.env.VRAM_LENS_TORCH_ROOT ?? '';

/** Runs `main()` of a module and prints its results as JSON: tensors as dtype, shape and values; an error by its type. */
const HARNESS = `
import importlib.util, json, sys
import torch

def plain(v):
    if isinstance(v, torch.Tensor):
        return {"dtype": str(v.dtype), "shape": list(v.shape), "values": v.detach().double().flatten().tolist()}
    if isinstance(v, (list, tuple)):
        return [plain(x) for x in v]
    if isinstance(v, dict):
        return {k: plain(x) for k, x in v.items()}
    return v

spec = importlib.util.spec_from_file_location("program", sys.argv[1])
module = importlib.util.module_from_spec(spec)
torch.manual_seed(0)
try:
    spec.loader.exec_module(module)
    result = {"ok": plain(module.main())}
except Exception as e:
    result = {"error": type(e).__name__}
print(json.dumps(result))
`;

interface Case {
  readonly name: string;
  /** The module; its statement is marked `# <-`; `main()` returns what a caller would see. */
  readonly code: string;
  readonly offered: boolean;
  /** The statement ran on a CUDA device, as in a PyTorch CUDA memory snapshot (run here on the CPU with floating-point tensors). */
  readonly ranOnCuda?: boolean;
}

const CASES: Case[] = [
  {
    name: 'refused: x from `layer.norm(h)`, a method of an object of unknown type that returns its input',
    offered: false,
    code: `import torch
torch.set_grad_enabled(False)
class Keep:
    def norm(self, h):
        return h
def f(layer, n):
    h = torch.ones(n)
    x = layer.norm(h)
    x = x * 2  # <-
    return x, h
def main():
    x, h = f(Keep(), 4)
    return {"x": x, "h": h}
`,
  },
  {
    name: 'refused: x handed to `obj.relu_(x)`, a method of an object of unknown type that keeps it',
    offered: false,
    code: `import torch
torch.set_grad_enabled(False)
class Cache:
    def relu_(self, t):
        self.kept = t
def f(c, n):
    x = torch.ones(n)
    c.relu_(x)
    x = x * 2  # <-
    return x
def main():
    c = Cache()
    x = f(c, 4)
    return {"x": x, "kept": c.kept}
`,
  },
  {
    name: 'a product made here, divided in place (gradients on)',
    offered: true,
    code: `import torch
def f(a, b, s):
    x = a * b / 2
    x = x / s  # <-
    return x
def main():
    a = torch.randn(4, 5, requires_grad=True)
    b = torch.randn(4, 5, requires_grad=True)
    out = f(a, b, 3.0)
    (out * out).sum().backward()
    return {"out": out, "a": a, "ga": a.grad, "gb": b.grad}
`,
  },
  {
    name: 'an accumulator from torch.zeros, in a loop',
    offered: true,
    code: `import torch
def g(n, steps):
    x = torch.zeros(n)
    for i in range(steps):
        x = x + torch.rand(n)  # <-
    return x
def main():
    return {"out": g(7, 5)}
`,
  },
  {
    name: 'a clone, scaled, after reads that keep nothing',
    offered: true,
    code: `import torch
def h(y):
    x = torch.as_tensor(y, dtype=torch.float32).clone()
    n = x.shape[0] + x.size(1)
    total = x.sum() + torch.cat([x, x]).mean()
    x = x * 0.5  # <-
    return x, n, total
def main():
    y = torch.randn(3, 4, requires_grad=True)
    x, n, total = h(y)
    (x.sum() + total).backward()
    return {"x": x, "n": n, "total": total, "y": y, "gy": y.grad}
`,
  },
  {
    name: 'attn.py (the UI fixture): scores scaled in place, with gradients',
    offered: true,
    // `s = q @ k...` is floating point because it ran on CUDA (the fixture's snapshot), which has no integer matrix product.
    ranOnCuda: true,
    code: `${ATTN_SOURCE}
def main():
    q = torch.randn(2, 6, 8, requires_grad=True)
    k = torch.randn(2, 6, 8, requires_grad=True)
    outs = main_outs = [scores(q, k, 8) for _ in range(2)]
    torch.stack(outs).sum().backward()
    return {"outs": main_outs, "gq": q.grad, "gk": k.grad}
`.replace('    s = s / math.sqrt(d)', '    s = s / math.sqrt(d)  # <-'),
  },
  {
    name: 'the output of exp, where a decorator turns gradients off',
    offered: true,
    code: `import torch
@torch.no_grad()
def f(a):
    x = torch.exp(a)
    x = x * 2  # <-
    return x
def main():
    a = torch.randn(5)
    return {"out": f(a), "a": a}
`,
  },
  {
    name: 'the issue: x is x_in.transpose(1, 4), a view of the caller\'s tensor',
    offered: false,
    code: `import torch
torch.set_grad_enabled(False)
def update(x_in, p0):
    x = x_in.transpose(1, 4)
    dx = p0(x)
    stochastic = torch.rand(dx.shape) > 0.5
    dx = dx * stochastic
    x = x+dx.transpose(1,4)  # <-
    return x.transpose(1, 4)
def main():
    x_in = torch.randn(1, 4, 3, 3, 4)
    before = x_in.clone()
    out = update(x_in, lambda t: t * 0.1)
    return {"out": out, "caller_still_has": x_in, "before": before}
`,
  },
  {
    name: 'issue 29: a cellular automaton\'s dx, last bound by a linear layer the class holds (gradients on)',
    offered: true,
    code: `import torch
import torch.nn as nn
import torch.nn.functional as F
class Automaton(nn.Module):
    def __init__(self, channels, hidden):
        super().__init__()
        self.sense = nn.Conv3d(channels, channels, 3, padding=1)
        self.lin_in = nn.Linear(channels * 2, hidden)
        self.lin_out = nn.Linear(hidden, channels, bias=False)
    def look(self, x):
        return torch.cat((x, self.sense(x)), 1)
    def step(self, state, rate):
        x = state.transpose(1, 4)
        dx = self.look(x)
        dx = dx.transpose(1, 4)
        dx = self.lin_in(dx)
        dx = F.relu(dx)
        dx = self.lin_out(dx)
        keep = (torch.rand(dx.shape[:-1] + (1,), device=dx.device) > rate).float()
        dx = dx * keep  # <-
        x = x + dx.transpose(1, 4)
        return x.transpose(1, 4)
def main():
    m = Automaton(3, 8)
    state = torch.randn(2, 4, 4, 4, 3, requires_grad=True)
    out = m.step(m.step(state, 0.5), 0.5)
    (out * out).sum().backward()
    return {"out": out, "state": state, "gs": state.grad, "gw": m.lin_out.weight.grad, "gc": m.sense.weight.grad}
`,
  },
  {
    name: 'issue 29: an attribute that may hold nn.Identity, which returns its input',
    offered: false,
    code: `import torch
import torch.nn as nn
class Head(nn.Module):
    def __init__(self, skip):
        super().__init__()
        self.proj = nn.Identity() if skip else nn.Linear(4, 4)
    def forward(self, h):
        y = self.proj(h)
        y = y * 2  # <-
        return y
def main():
    h = torch.randn(3, 4)
    before = h.clone()
    out = Head(True)(h)
    return {"out": out, "h": h, "before": before}
`,
  },
  {
    name: 'issue 29: a linear layer whose output a forward hook keeps',
    offered: false,
    code: `import torch
import torch.nn as nn
class Head(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)
    def forward(self, h):
        y = self.proj(h)
        y = y * 2  # <-
        return y
def main():
    torch.set_grad_enabled(False)
    kept = []
    m = Head()
    m.proj.register_forward_hook(lambda mod, i, o: kept.append(o))
    out = m(torch.randn(3, 4))
    return {"out": out, "kept": kept}
`,
  },
  {
    name: 'a parameter',
    offered: false,
    code: `import torch
def f(x, s):
    x = x / s  # <-
    return x
def main():
    x = torch.randn(4)
    out = f(x, 2.0)
    return {"out": out, "caller": x}
`,
  },
  {
    name: 'a slice of a tensor the caller reads',
    offered: false,
    code: `import torch
def f(h):
    x = h[:, 0]
    x = x + 1  # <-
    return x
def main():
    h = torch.randn(3, 2)
    out = f(h)
    return {"out": out, "h": h}
`,
  },
  {
    name: 'a tensor given another name',
    offered: false,
    code: `import torch
def f(n):
    x = torch.ones(n)
    y = x
    x = x * 3  # <-
    return x, y
def main():
    return {"xy": f(4)}
`,
  },
  {
    name: 'a tensor appended to a list in the loop',
    offered: false,
    code: `import torch
def f(n):
    outs = []
    x = torch.zeros(n)
    for i in range(3):
        x = x + 1  # <-
        outs.append(x)
    return outs
def main():
    return {"outs": f(2)}
`,
  },
  {
    name: "a module call's result that is its input (nn.Identity)",
    offered: false,
    code: `import torch
def f(p0, h):
    dx = p0(h)
    dx = dx * 2  # <-
    return dx
def main():
    h = torch.randn(3)
    out = f(torch.nn.Identity(), h)
    return {"out": out, "h": h}
`,
  },
  {
    name: 'the output of sigmoid, kept by autograd for backward',
    offered: false,
    code: `import torch
def f(a):
    x = torch.sigmoid(a)
    x = x * 2  # <-
    return x
def main():
    a = torch.randn(5, requires_grad=True)
    f(a).sum().backward()
    return {"ga": a.grad}
`,
  },
  {
    name: 'an operand of a product that requires grad, kept by autograd',
    offered: false,
    code: `import torch
def f(a, w):
    x = a + 1
    h = x * w
    x = x + 1  # <-
    return h, x
def main():
    a = torch.randn(5)
    w = torch.randn(5, requires_grad=True)
    h, x = f(a, w)
    h.sum().backward()
    return {"gw": w.grad, "x": x}
`,
  },
  {
    name: 'an integer tensor divided: in place, the floating-point result does not fit it',
    offered: false,
    code: `import torch
def f(n):
    x = torch.arange(n, dtype=torch.int32)
    x = x / 2  # <-
    return x
def main():
    return {"out": f(6)}
`,
  },
  {
    name: 'a Python number that becomes a tensor',
    offered: false,
    code: `import torch
def f(losses):
    total = 0
    for loss in losses:
        total = total + loss  # <-
    return total
def main():
    return {"total": f([torch.tensor(1.0), torch.tensor(2.0)])}
`,
  },
  {
    name: 'an attribute another name still holds',
    offered: false,
    code: `import torch
def step(p, lr):
    p.data = p.data - lr * p.data  # <-
def main():
    p = torch.nn.Parameter(torch.ones(3))
    kept = p.data
    step(p, 0.5)
    return {"p": p.data, "kept": kept}
`,
  },
];

function run(dir: string, name: string, code: string): unknown {
  const file = path.join(dir, `${name}.py`);
  writeFileSync(file, code);
  const inside = (p: string) => (root ? p.slice(root.length) : p);
  const argv = root ? ['chroot', root, python!, inside(path.join(dir, 'harness.py')), inside(file)] : [python!, path.join(dir, 'harness.py'), file];
  const out = execFileSync(argv[0], argv.slice(1), { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  return JSON.parse(out.trim().split('\n').pop()!);
}

function applyEdit(text: string, e: { line: number; startColumn: number; endLine: number; endColumn: number; newText: string }): string {
  const lines = text.split('\n');
  const offset = (line: number, column: number) => lines.slice(0, line - 1).reduce((s, l) => s + l.length + 1, 0) + column;
  return text.slice(0, offset(e.line, e.startColumn)) + e.newText + text.slice(offset(e.endLine, e.endColumn));
}

describe('in-place quick fixes against a real PyTorch', { skip: python ? false : 'set by npm run test:torch (needs a real PyTorch)' }, () => {
  it('an offered rewrite computes the same; a refused one would not', { timeout: 300_000 }, () => {
    const dir = mkdtempSync(path.join(root, os.tmpdir(), 'vl-inplace-'));
    try {
      writeFileSync(path.join(dir, 'harness.py'), HARNESS);
      CASES.forEach((c, i) => {
        const src = PythonSource.parse(c.code);
        const line = c.code.split('\n').findIndex((l) => l.includes('# <-')) + 1;
        const form = inPlaceFormAt(src, line);
        assert.ok(form?.edit, `${c.name}: the statement has a rewrite`);
        // As the advisor decides it: the grad-mode switch in force at the line, then the safety check.
        const finding: Finding = { rule: 'in-place-arithmetic', severity: 'information', device: 0, file: 'p.py', line, title: '', message: '', evidence: {}, fix: 'in-place-operator', gradDisabled: src.gradModeAt(line)?.enabled === false, ...(c.ranOnCuda ? { ranOnCuda: true } : {}) };
        const offered = quickFixesFor(finding, () => src);
        assert.equal(offered.length > 0, c.offered, `${c.name}: ${c.offered ? 'offered' : 'refused'}`);
        const rewritten = offered.length > 0 ? applyEdit(c.code, offered[0]) : c.code.slice(0, form.edit.from) + form.edit.text + c.code.slice(form.edit.to);
        const before = run(dir, `case${i}`, c.code);
        const after = run(dir, `case${i}_inplace`, rewritten);
        assert.ok(!('error' in (before as object)), `${c.name}: the program as written runs (${JSON.stringify(before)})`);
        if (c.offered) assert.deepEqual(after, before, `${c.name}: the rewrite computes the same`);
        else assert.notDeepEqual(after, before, `${c.name}: the naive rewrite would change what the program computes`);
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
