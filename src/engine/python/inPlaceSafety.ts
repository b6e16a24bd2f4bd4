/**
 * Whether rewriting `x = x op y` as `x.op_(y)` leaves what the program computes unchanged: a scope
 * and alias analysis on the syntax tree. The in-place form writes into the tensor `x` held before the
 * statement, so it is offered only where that tensor provably belongs to this function and nothing
 * else can read it afterwards:
 * - `x` is a local name of the enclosing function (not a parameter, not global or nonlocal, not an
 *   attribute `p.data`, not an element `state["v"]`, not a module-level name);
 * - every assignment of `x` that can reach the statement (the last one that runs on every path to it,
 *   and any after that one) makes a new tensor by an operation VRAM Lens knows (arithmetic,
 *   `torch.zeros`, `a.clone()`, a layer the class holds, `nnModules.ts`, ...): not another name, a view or a slice of something
 *   (`x_in.transpose(1, 4)`, `h[0]`, `h.view(...)`, `h.to(...)`, ...), a loop variable, or the result
 *   of a call it cannot see into (a module, a user function: it may return its input);
 * - no use of that tensor that can run before the statement (after its last binding, or anywhere in a loop
 *   around it) lets it escape: another name, a container, an attribute, a call it cannot see
 *   into, a nested function, `return`/`yield`; and the right-hand side does not read `x` through a view;
 * - every assignment provably makes a floating-point tensor (a default-dtype factory, `dtype=torch.float*`,
 *   true division, a function whose result is floating point, a matrix product that ran on CUDA): in
 *   place, an integer tensor cannot take
 *   the floating-point result the out-of-place form makes (`x.div_(2)` on int32 raises);
 * - where gradient recording may be on, autograd has not kept the tensor for the backward pass: it
 *   is not the output of an operation whose backward reads its output (`exp`, `sigmoid`, `tanh`,
 *   `relu`, `softmax`, `**`, ...) and not the input of one whose backward reads its inputs (`*`, `/`,
 *   `@`, `matmul`, `linear`, ...). Modifying such a tensor in place makes `backward()` fail.
 * Anything not recognised is refused: the verdict errs towards explaining instead of fixing.
 *
 * One module: the walk over the function, the reading of each use and the reading of each
 * assignment answer one question together, and every refusal is worded here for the user.
 */
import type { SyntaxNode } from '@lezer/common';
import type { InPlaceForm } from './inPlaceForm';
import type { PythonSource } from './pythonSource';
import type { OperandUse } from './torchOps';
import { layerOpOfAttribute } from './nnModules';
import { isReadingBuiltin, isViewAttribute, operandUse, resultKind } from './torchOps';

export type InPlaceVerdict = { readonly safe: true } | { readonly safe: false; readonly reason: string };

export interface SafetyOptions {
  /** Gradient recording is known to be off where the statement runs (a switch in this file or a caller's). */
  readonly gradDisabled?: boolean;
  /**
   * The statement ran on a CUDA device (its blocks are in a PyTorch CUDA memory snapshot), so the
   * tensor it replaces lived there, and a matrix product that made it ran there: PyTorch has no
   * integer matrix product on CUDA, so such a product made floating point (or complex).
   */
  readonly ranOnCuda?: boolean;
}

const NESTED_SCOPES = new Set([
  'FunctionDefinition',
  'LambdaExpression',
  'ClassDefinition',
  'ArrayComprehensionExpression',
  'DictionaryComprehensionExpression',
  'SetComprehensionExpression',
  'ComprehensionExpression',
]);
const LITERALS = new Set(['Number', 'String', 'FormatString', 'Boolean', 'None', 'Ellipsis', 'ContinuedString']);
const CONTAINERS = new Set(['TupleExpression', 'ArrayExpression', 'DictionaryExpression', 'SetExpression']);

function children(node: SyntaxNode): SyntaxNode[] {
  const out: SyntaxNode[] = [];
  for (let c = node.firstChild; c; c = c.nextSibling) out.push(c);
  return out;
}

function unparen(node: SyntaxNode): SyntaxNode {
  let n = node;
  while (n.name === 'ParenthesizedExpression') {
    const inner = children(n).filter((c) => c.name !== '(' && c.name !== ')');
    if (inner.length !== 1) break;
    n = inner[0];
  }
  return n;
}

function contains(outer: SyntaxNode, inner: SyntaxNode): boolean {
  return inner.from >= outer.from && inner.to <= outer.to;
}

/** `a.b` (`.`) or `a[i]` (`[`). */
function memberKind(node: SyntaxNode): '.' | '[' | undefined {
  if (node.name !== 'MemberExpression') return undefined;
  for (const c of children(node)) {
    if (c.name === '.') return '.';
    if (c.name === '[') return '[';
  }
  return undefined;
}

/** The modules bound by imports (`torch`, `torch as T`, `torch.nn.functional as F`, `from torch.nn import functional as F`). */
function importedModules(src: PythonSource): Map<string, string> {
  const modules = new Map<string, string>();
  src.tree.iterate({
    enter: (n) => {
      if (n.name !== 'ImportStatement') return;
      const text = src.text.slice(n.from, n.to).replace(/\s+/g, ' ').trim();
      const plain = /^import (.+)$/.exec(text);
      const from = /^from ([\w.]+) import \(?(.+?)\)?$/.exec(text);
      if (plain) {
        for (const part of plain[1].split(',')) {
          const m = /^\s*([\w.]+)(?:\s+as\s+(\w+))?\s*$/.exec(part);
          if (!m) continue;
          if (m[2]) modules.set(m[2], m[1]);
          else modules.set(m[1].split('.')[0], m[1].split('.')[0]);
        }
      } else if (from) {
        for (const part of from[2].split(',')) {
          const m = /^\s*(\w+)(?:\s+as\s+(\w+))?\s*$/.exec(part);
          if (m) modules.set(m[2] ?? m[1], `${from[1]}.${m[1]}`);
        }
      }
      return false;
    },
  });
  return modules;
}

/** The torch modules whose functions the tables describe. */
const TORCH_NAMESPACES = new Set(['torch', 'torch.nn.functional', 'torch.special', 'torch.linalg', 'torch.fft', 'torch.Tensor']);

/** What a call is: a torch function, a method of a tensor-like receiver, a Python built-in, or something unknown. */
type Callee =
  | { readonly kind: 'torch'; readonly name: string }
  | { readonly kind: 'method'; readonly name: string; readonly receiver: SyntaxNode }
  | { readonly kind: 'builtin'; readonly name: string }
  /** A layer the class holds, named by the torch operation its forward runs (`linear` for `self.fc1 = nn.Linear(...)`). */
  | { readonly kind: 'layer'; readonly name: string }
  | { readonly kind: 'unknown'; readonly text: string };

/**
 * Torch functions and tensor methods in the tables that return a tuple or a named tuple for some
 * arguments (`torch.max(x, dim=1)`), not a tensor: their result never proves a tensor.
 */
const MAY_RETURN_TUPLE = new Set(['max', 'min', 'sort', 'topk', 'kthvalue', 'median', 'mode', 'where', 'unique', 'frexp', 'aminmax', 'histogram', 'lu', 'qr', 'svd', 'eig', 'slogdet']);

class Analysis {
  private readonly modules: Map<string, string>;
  /** The enclosing function's parameters. */
  params: ReadonlySet<string> = new Set();
  /** The enclosing function (set once it is known), whose locals `isTensor` reads. */
  fn: SyntaxNode | undefined;
  private readonly tensorNames = new Map<string, boolean>();
  private readonly layers = new Map<string, string | undefined>();
  private readonly floatingNames = new Map<string, boolean>();
  /** See `SafetyOptions.ranOnCuda`. */
  ranOnCuda = false;
  constructor(private readonly src: PythonSource) {
    this.modules = importedModules(src);
  }

  /**
   * Whether the expression provably evaluates to a torch tensor: a torch function that makes one, a
   * tensor method on a proven tensor, arithmetic with a proven tensor operand, a view or element of a
   * proven tensor, or a local name of the function whose every binding is one of these. Anything else
   * (a parameter, an attribute, a global, the result of a call on an object of unknown type such as
   * `layer.norm(x)` or `self.act(x)`) is not proven.
   */
  isTensor(node: SyntaxNode): boolean {
    const n = unparen(node);
    switch (n.name) {
      case 'VariableName':
        return this.isTensorName(this.src.textOf(n));
      case 'BinaryExpression': {
        const op = n.firstChild?.nextSibling;
        if (op?.name !== 'ArithOp') return false;
        return this.isTensor(n.firstChild!) || this.isTensor(op.nextSibling ?? n.firstChild!);
      }
      case 'UnaryExpression': {
        const op = n.firstChild ? this.src.textOf(n.firstChild) : '';
        return (op === '-' || op === '~' || op === '+') && n.lastChild !== null && this.isTensor(n.lastChild);
      }
      case 'ConditionalExpression': {
        const branches = children(n).filter((c) => c.name !== 'if' && c.name !== 'else');
        return branches.length === 3 && this.isTensor(branches[0]) && this.isTensor(branches[2]);
      }
      case 'MemberExpression': {
        const kind = memberKind(n);
        if (kind === '[') return this.isTensor(n.firstChild!);
        return kind === '.' && n.lastChild !== null && isViewAttribute(this.src.textOf(n.lastChild)) && this.isTensor(n.firstChild!);
      }
      case 'CallExpression': {
        const callee = this.callee(n);
        if (callee.kind === 'layer') return true;
        if ((callee.kind !== 'torch' && callee.kind !== 'method') || MAY_RETURN_TUPLE.has(callee.name)) return false;
        const kind = resultKind(callee.name);
        if (kind === 'new' || kind === 'newSaved') return true;
        // A view or conversion of a proven tensor, or by a torch function, is still one tensor
        // (`x.float()`, `torch.transpose(x, 0, 1)`, `torch.as_tensor(y)`); a split is several.
        return kind === 'alias' && !['split', 'split_with_sizes', 'chunk', 'unbind', 'tensor_split', 'hsplit', 'vsplit', 'dsplit', 'broadcast_tensors', 'atleast_1d', 'atleast_2d', 'atleast_3d', 'numpy', 'tolist'].includes(callee.name);
      }
      default:
        return false;
    }
  }

  /**
   * A local name of the enclosing function whose every binding there provably makes a tensor. A
   * binding may read the name itself or another local being proven (`x = x * 2`): Python raises
   * on a local read before any binding, so the first binding to run reads none of them, and each
   * later one reads only tensors (induction over the order the bindings run).
   */
  private isTensorName(name: string): boolean {
    return this.everyBinding(name, this.tensorNames, (v) => this.isTensor(v));
  }

  /**
   * Whether every binding of the local `name` in the enclosing function passes `test` (none may be
   * a `for` target, a `del`, a declaration or a binding without a value), memoised in `memo`. A
   * binding may read the name itself: it is assumed to pass while its bindings are read (the
   * induction above).
   */
  private everyBinding(name: string, memo: Map<string, boolean>, test: (value: SyntaxNode) => boolean): boolean {
    const known = memo.get(name);
    if (known !== undefined) return known;
    if (!this.fn || this.params.has(name)) return false;
    const body = this.fn.getChild('Body');
    if (!body) return false;
    memo.set(name, true); // assumed while its bindings are read (the induction above)
    const values: SyntaxNode[] = [];
    let ok = true;
    const cursor = body.cursor();
    const visit = (): void => {
      do {
        const n = cursor.node;
        if (NESTED_SCOPES.has(n.name)) continue;
        if (n.name === 'VariableName' && this.src.textOf(n) === name) {
          const o = occurrenceOf(this, name, n);
          if (o.kind === 'declare' || (o.kind === 'bind' && !o.value)) ok = false;
          else if (o.kind === 'bind' && o.value) values.push(o.value);
          else if (o.kind === 'write' && n.parent?.name === 'DeleteStatement') ok = false;
          continue;
        }
        if (cursor.firstChild()) {
          visit();
          cursor.parent();
        }
      } while (ok && cursor.nextSibling());
    };
    if (cursor.firstChild()) visit();
    const proven = ok && values.length > 0 && values.every(test);
    memo.set(name, proven);
    return proven;
  }


  /**
   * Whether the expression provably evaluates to a floating-point (or complex) tensor or number:
   * a float literal; a default-dtype factory or `dtype=torch.float*`; true division; a function
   * whose result is floating point whatever it is given; arithmetic, or an operation that keeps or
   * promotes its operands' type, with a floating-point operand; a matrix product that ran on CUDA
   * (`ranOnCuda`); a local name whose every binding is one of these (the induction of `isTensorName`).
   */
  isFloating(node: SyntaxNode): boolean {
    const n = unparen(node);
    switch (n.name) {
      case 'Number':
        return /[.eEjJ]/.test(this.src.textOf(n)) && !/^0[xXoObB]/.test(this.src.textOf(n));
      case 'VariableName':
        return this.isFloatingName(this.src.textOf(n));
      case 'BinaryExpression': {
        const op = n.firstChild?.nextSibling;
        if (op?.name !== 'ArithOp') return false;
        const text = this.src.textOf(op);
        if (text === '/') return true;
        if (text === '@' && this.ranOnCuda) return true;
        return this.isFloating(n.firstChild!) || (op.nextSibling !== null && this.isFloating(op.nextSibling));
      }
      case 'UnaryExpression':
        return n.firstChild !== null && this.src.textOf(n.firstChild) === '-' && n.lastChild !== null && this.isFloating(n.lastChild);
      case 'ConditionalExpression': {
        const branches = children(n).filter((c) => c.name !== 'if' && c.name !== 'else');
        return branches.length === 3 && this.isFloating(branches[0]) && this.isFloating(branches[2]);
      }
      case 'CallExpression': {
        const callee = this.callee(n);
        // A layer's output is floating point: its parameters are (PyTorch refuses integer parameters
        // that require grad), and the normalisations refuse integer input.
        if (callee.kind === 'layer') return true;
        if (callee.kind !== 'torch' && callee.kind !== 'method') return false;
        const dtype = dtypeOf(this, n);
        if (dtype !== undefined) return FLOAT_DTYPE.test(dtype);
        const name = callee.name;
        if (FLOAT_RESULT.has(name) || TO_FLOATING.has(name)) return true;
        if (callee.kind === 'torch' && DEFAULT_DTYPE_FACTORIES.has(name)) return true;
        if (MATRIX_PRODUCTS.has(name) && this.ranOnCuda) return true;
        if (!KEEPS_FLOATING.has(name) && !MATRIX_PRODUCTS.has(name)) return false;
        const operands = callee.kind === 'method' ? [callee.receiver, ...positionalArgs(n)] : positionalArgs(n);
        return operands.some((o) => this.isFloating(o));
      }
      default:
        return false;
    }
  }

  private isFloatingName(name: string): boolean {
    return this.everyBinding(name, this.floatingNames, (v) => this.isFloating(v));
  }


  /** The expression, and `the caller's tensor` when its leftmost name is a parameter. */
  base(node: SyntaxNode): string {
    let n = node;
    while (n.firstChild && (n.name === 'MemberExpression' || n.name === 'CallExpression' || n.name === 'ParenthesizedExpression')) n = n.name === 'ParenthesizedExpression' ? (n.firstChild.nextSibling ?? n.firstChild) : n.firstChild;
    const root = n.name === 'VariableName' ? this.text(n) : undefined;
    return root !== undefined && this.params.has(root) ? `\`${this.text(node)}\`, the caller's tensor (\`${root}\` is a parameter)` : `\`${this.text(node)}\``;
  }

  /** Calls `visit` with every VariableName `name` under the node. */
  eachName(node: SyntaxNode, name: string, visit: (n: SyntaxNode) => void): void {
    this.src.tree.iterate({
      from: node.from,
      to: node.to,
      enter: (n) => {
        if (n.from >= node.from && n.to <= node.to && n.name === 'VariableName' && this.src.text.slice(n.from, n.to) === name) visit(n.node);
      },
    });
  }

  text(node: SyntaxNode): string {
    const t = this.src.textOf(node).replace(/\s+/g, ' ');
    return t.length > 60 ? `${t.slice(0, 57)}...` : t;
  }

  line(node: SyntaxNode): number {
    return this.src.lineOf(node.from);
  }

  /**
   * The torch operation of `self.attr(...)` in a method of a class whose `self.attr` is a layer the
   * file proves (`nnModules.ts`), or undefined.
   */
  private layerOp(parts: string[]): string | undefined {
    const fn = this.fn;
    if (parts.length !== 2 || !fn || fn.parent?.name !== 'Body' || fn.parent.parent?.name !== 'ClassDefinition') return undefined;
    const self = parameterNames(this, fn)[0];
    if (self === undefined || parts[0] !== self) return undefined;
    const key = parts[1];
    if (!this.layers.has(key)) this.layers.set(key, layerOpOfAttribute(this.src, fn.parent.parent, key, this.modules));
    return this.layers.get(key);
  }

  callee(call: SyntaxNode): Callee {
    const fn = call.firstChild!;
    const text = this.src.textOf(fn).replace(/\s+/g, '');
    if (fn.name === 'VariableName') {
      if (isReadingBuiltin(text) && !this.modules.has(text)) return { kind: 'builtin', name: text };
      return { kind: 'unknown', text };
    }
    if (memberKind(fn) !== '.') return { kind: 'unknown', text };
    const parts = text.split('.');
    const name = parts[parts.length - 1];
    const head = /^[\w.]+$/.test(text) ? this.modules.get(parts[0]) : undefined;
    if (head !== undefined) {
      const namespace = [head, ...parts.slice(1, -1)].join('.');
      return TORCH_NAMESPACES.has(namespace) ? { kind: 'torch', name } : { kind: 'unknown', text };
    }
    // A layer the class holds (`self.fc1 = nn.Linear(...)` makes `self.fc1(x)` a `linear`).
    const layer = this.layerOp(parts);
    if (layer !== undefined) return { kind: 'layer', name: layer };
    // A method of a tensor only where the receiver is proven one: `layer.norm(x)`, `self.act(x)` or
    // `obj.relu_()` on an object of unknown type may do anything with what it is given or returns.
    const receiver = fn.firstChild!;
    if (!this.isTensor(receiver)) return { kind: 'unknown', text };
    return { kind: 'method', name, receiver };
  }
}

/** Why a tensor bound by `value` is not provably this function's own, or how it was made. */
type Source = { readonly owned: true; readonly saved?: string } | { readonly owned: false; readonly reason: string };

/**
 * Torch functions and tensor methods whose result is a floating-point tensor whatever they are given
 * (integer inputs are promoted, or refused so that the program never got here): random floats,
 * and the transcendental and normalising functions.
 */
const FLOAT_RESULT = new Set([
  'rand', 'randn', 'rand_like', 'randn_like', 'linspace', 'logspace', 'exp', 'exp2', 'expm1', 'sigmoid', 'tanh', 'softmax',
  'log_softmax', 'sqrt', 'rsqrt', 'log', 'log2', 'log10', 'log1p', 'sin', 'cos', 'tan', 'asin', 'acos', 'atan', 'sinh',
  'cosh', 'asinh', 'acosh', 'atanh', 'erf', 'erfc', 'erfinv', 'reciprocal', 'mean', 'std', 'var', 'true_divide', 'float_power',
]);

/** Matrix products: on CUDA, PyTorch computes them only in floating point (or complex). */
const MATRIX_PRODUCTS = new Set(['matmul', 'mm', 'bmm', 'baddbmm', 'addmm', 'linear']);

/** Factories that make a tensor of the default dtype (always floating point) unless given `dtype=`. */
const DEFAULT_DTYPE_FACTORIES = new Set(['zeros', 'ones', 'empty', 'eye']);

/** `dtype=` values that name a floating-point dtype. */
const FLOAT_DTYPE = /^torch\.(float|float16|float32|float64|half|double|bfloat16)$/;

/** The `dtype=` argument of a call, as written, if it has one. */
function dtypeOf(a: Analysis, call: SyntaxNode): string | undefined {
  const args = call.getChild('ArgList');
  for (let c = args?.firstChild; c; c = c.nextSibling) {
    if (c.name === 'AssignOp' && c.prevSibling && a.text(c.prevSibling) === 'dtype') return c.nextSibling ? a.text(c.nextSibling) : '';
  }
  return undefined;
}

/** The positional arguments of a call. */
function positionalArgs(call: SyntaxNode): SyntaxNode[] {
  const out: SyntaxNode[] = [];
  const args = call.getChild('ArgList');
  for (let c = args?.firstChild; c; c = c.nextSibling) {
    if (c.name === '(' || c.name === ')' || c.name === ',' || c.name === 'AssignOp') continue;
    if (c.nextSibling?.name === 'AssignOp' || c.prevSibling?.name === 'AssignOp') continue;
    out.push(c);
  }
  return out;
}

/** Operations whose result is floating point when an operand is (they keep or promote the operands' type). */
const KEEPS_FLOATING = new Set([
  'clone', 'contiguous', 'neg', 'negative', 'abs', 'absolute', 'add', 'sub', 'subtract', 'mul', 'multiply', 'flip', 'roll',
  'repeat', 'tile', 'tril', 'triu', 'relu', 'clamp', 'clip', 'maximum', 'minimum', 'where', 'pad', 'square', 'zeros_like',
  'ones_like', 'empty_like', 'full_like', 'sum', 'cumsum', 'detach', 'view', 'reshape', 'transpose', 'permute', 't',
  'squeeze', 'unsqueeze', 'flatten', 'expand', 'narrow', 'cuda', 'cpu',
]);

/** Conversions to a floating-point type. */
const TO_FLOATING = new Set(['float', 'double', 'half', 'bfloat16']);

function sourceOf(a: Analysis, name: string, valueNode: SyntaxNode): Source {
  const value = unparen(valueNode);
  const shown = `\`${name} = ${a.text(value)}\` (line ${a.line(value)})`;
  if (LITERALS.has(value.name)) return { owned: false, reason: `${shown} binds it to a Python value, not a tensor` };
  if (value.name === 'VariableName') return { owned: false, reason: `${shown} makes it another name for the tensor of \`${a.text(value)}\`` };
  const member = memberKind(value);
  if (member === '[') return { owned: false, reason: `${shown} makes it a slice or element of ${a.base(value.firstChild!)}, sharing its memory` };
  if (member === '.') {
    const prop = value.lastChild ? a.text(value.lastChild) : '';
    return isViewAttribute(prop)
      ? { owned: false, reason: `${shown} makes it a view of ${a.base(value.firstChild!)}, sharing its memory` }
      : { owned: false, reason: `${shown} makes it the attribute \`${a.text(value)}\`, which other code may hold` };
  }
  if (value.name === 'BinaryExpression') {
    const op = value.firstChild?.nextSibling;
    const opText = op ? a.text(op) : '';
    // True division makes floating point whatever its operands; other arithmetic keeps an integer tensor's dtype.
    if (op?.name === 'ArithOp') return opText === '**' ? { owned: true, saved: shown } : { owned: true };
    if (op?.name === 'CompareOp' || op?.name === 'BitOp') return { owned: true };
    return { owned: false, reason: `${shown} may give it one of the operands of \`${opText}\`` };
  }
  if (value.name === 'UnaryExpression') {
    const op = value.firstChild ? a.text(value.firstChild) : '';
    if (op === '-' || op === '~') return { owned: true };
    return { owned: false, reason: `${shown} is not known to make a new tensor` };
  }
  if (value.name === 'ConditionalExpression') {
    const branches = children(value).filter((c) => c.name !== 'if' && c.name !== 'else');
    const [then, , otherwise] = branches;
    if (!then || !otherwise) return { owned: false, reason: `${shown} is not known to make a new tensor` };
    const x = sourceOf(a, name, then);
    const y = sourceOf(a, name, otherwise);
    if (!x.owned) return x;
    if (!y.owned) return y;
    return x.saved !== undefined ? x : y;
  }
  if (value.name === 'CallExpression') {
    const callee = a.callee(value);
    const call = `\`${a.text(value)}\``;
    const given = returnsAnArgument(a, value);
    if (given !== undefined) return { owned: false, reason: `${shown}: with ${given} the call returns a tensor it was given` };
    if ((callee.kind === 'torch' || callee.kind === 'method') && MAY_RETURN_TUPLE.has(callee.name)) {
      return { owned: false, reason: `${shown}: \`${callee.name}\` may return a tuple of tensors, not one tensor` };
    }
    if (callee.kind === 'torch' || callee.kind === 'method' || callee.kind === 'layer') {
      const kind = resultKind(callee.name);
      if (kind === 'new') return { owned: true };
      if (kind === 'newSaved') return { owned: true, saved: shown };
      if (kind === 'alias') {
        return callee.kind === 'method'
          ? { owned: false, reason: `${shown} makes it a view of ${a.base(callee.receiver)}: \`${callee.name}\` may return its input or share its memory` }
          : { owned: false, reason: `${shown}: \`${callee.name}\` may return its input or a view of it` };
      }
      if (kind === 'notTensor') return { owned: false, reason: `${shown} binds it to a Python value, not a tensor` };
    }
    const fn = value.firstChild!;
    if (memberKind(fn) === '.' && fn.lastChild && resultKind(a.text(fn.lastChild)) === 'alias') {
      // `h.view(...)` on a receiver of unknown type: named as the view it would be on a tensor.
      return { owned: false, reason: `${shown} makes it a view of ${a.base(fn.firstChild!)}: \`${a.text(fn.lastChild)}\` may return its input or share its memory` };
    }
    return { owned: false, reason: `${shown} takes the result of ${call}, a call VRAM Lens cannot see into: it may return its argument or a tensor the callee keeps` };
  }
  return { owned: false, reason: `${shown} is not known to make a new tensor` };
}

/** `out=t` or `inplace=True` among a call's arguments: the call returns (a view of) a tensor it was given. */
function returnsAnArgument(a: Analysis, call: SyntaxNode): string | undefined {
  const args = call.getChild('ArgList');
  if (!args) return undefined;
  for (let c = args.firstChild; c; c = c.nextSibling) {
    if (c.name !== 'AssignOp') continue;
    const key = c.prevSibling ? a.text(c.prevSibling) : '';
    const value = c.nextSibling ? a.text(c.nextSibling) : '';
    if (key === 'out') return `\`out=${value}\``;
    if (key === 'inplace' && value !== 'False') return `\`inplace=${value}\``;
  }
  return undefined;
}

/** What a read of the name does with its tensor. */
type Use = { readonly kind: 'harmless' } | { readonly kind: 'saved'; readonly reason: string } | { readonly kind: 'escapes'; readonly reason: string };

const HARMLESS: Use = { kind: 'harmless' };

/** The keyword of an argument in an ArgList (`out` in `out=x`), if it is one. */
function keywordOf(arg: SyntaxNode, a: Analysis): string | undefined {
  const eq = arg.prevSibling;
  if (eq?.name !== 'AssignOp') return undefined;
  const key = eq.prevSibling;
  return key ? a.text(key) : undefined;
}

/**
 * Follows a read of `name` outward through what may return the same tensor or a view of it (`x.T`,
 * `x[0]`, `x.view(...)`, parentheses), to the operation that decides: harmless, keeps it for backward,
 * or lets it escape. `through` is the statement's right-hand side, which must not see `x` through a view.
 */
function useOf(a: Analysis, name: string, node: SyntaxNode, statementValue: SyntaxNode | undefined): Use {
  const at = `line ${a.line(node)}`;
  let cur = node;
  for (let step = 0; step < 64; step++) {
    const p = cur.parent;
    if (!p) return { kind: 'escapes', reason: `\`${name}\` is used at ${at} in a way VRAM Lens does not follow` };
    if (statementValue && p.from === statementValue.from && p.to === statementValue.to && p.name === statementValue.name) {
      const through = cur === node ? '' : ` through \`${a.text(cur)}\`, which shares its memory`;
      return { kind: 'escapes', reason: `the right-hand side reads \`${name}\` again${through}: the in-place form would overwrite what it is still reading` };
    }
    switch (p.name) {
      case 'ParenthesizedExpression':
        cur = p;
        continue;
      case 'MemberExpression': {
        if (p.firstChild?.from !== cur.from || p.firstChild.to !== cur.to) return HARMLESS; // used as an index: `y[x]` copies
        if (memberKind(p) === '[') {
          cur = p;
          continue;
        }
        const prop = p.lastChild ? a.text(p.lastChild) : '';
        const called = p.parent?.name === 'CallExpression' && p.parent.firstChild?.from === p.from && p.parent.firstChild.to === p.to;
        if (!called) {
          if (isViewAttribute(prop)) {
            cur = p;
            continue;
          }
          return HARMLESS; // metadata or another attribute read: no tensor shares its memory
        }
        const use = operandUse(prop);
        if (use === 'alias') {
          cur = p.parent!;
          continue;
        }
        return decided(use, name, `\`${a.text(p.parent!)}\` at ${at}`);
      }
      case 'ArgList': {
        const call = p.parent!;
        const callee = a.callee(call);
        const keyword = keywordOf(cur, a);
        const shown = `\`${a.text(call)}\` at ${at}`;
        if (keyword === 'out' || (returnsAnArgument(a, call) !== undefined && cur.prevSibling?.name === '(')) {
          // `out=x` returns x; `f(x, inplace=True)` writes into x and returns it.
          cur = call;
          continue;
        }
        if (callee.kind === 'builtin') return HARMLESS;
        if (callee.kind === 'torch' || callee.kind === 'layer') {
          const use = operandUse(callee.name);
          if (use === 'alias') {
            cur = call;
            continue;
          }
          return decided(use, name, shown);
        }
        if (callee.kind === 'method') {
          const use = operandUse(callee.name);
          return decided(use === 'alias' ? 'reads' : use, name, shown);
        }
        return { kind: 'escapes', reason: `\`${name}\` is passed to ${shown}, a call VRAM Lens cannot see into: it may keep the tensor (autograd saves the inputs of most layers)` };
      }
      case 'BinaryExpression': {
        const op = p.firstChild?.nextSibling;
        const opText = op ? a.text(op) : '';
        if (op?.name === 'ArithOp') {
          if (opText === '+' || opText === '-') return HARMLESS;
          return { kind: 'saved', reason: `\`${name}\` is an operand of \`${a.text(p)}\` at ${at}, and autograd keeps the operands of \`${opText}\` for the backward pass` };
        }
        if (op?.name === 'CompareOp' || op?.name === 'BitOp') return HARMLESS;
        if (opText === 'and' || opText === 'or') {
          cur = p;
          continue;
        }
        return HARMLESS; // `in`, `is`, `not in`, `is not`: a bool
      }
      case 'UnaryExpression': {
        const op = p.firstChild ? a.text(p.firstChild) : '';
        if (op === '+') {
          cur = p;
          continue;
        }
        return HARMLESS;
      }
      case 'ConditionalExpression': {
        const condition = children(p).find((_c, i, all) => i > 0 && all[i - 1].name === 'if');
        if (condition && condition.from === cur.from) return HARMLESS;
        cur = p;
        continue;
      }
      case 'ExpressionStatement':
      case 'IfStatement':
      case 'WhileStatement':
      case 'AssertStatement':
      case 'DeleteStatement':
      case 'FormatReplacement':
      case 'FormatString':
        return HARMLESS;
      case 'UpdateStatement':
        if (p.firstChild?.from === cur.from) return HARMLESS; // `x += ...` writes into x itself
        return { kind: 'escapes', reason: `\`${a.text(p)}\` at ${at} may keep \`${name}\` (if the target is a list, it holds its rows)` };
      case 'AssignStatement':
        if (cur.nextSibling?.name === 'AssignOp' || cur.nextSibling?.name === 'TypeDef') return HARMLESS; // `x[i] = v` writes into x
        return { kind: 'escapes', reason: `\`${a.text(p)}\` at ${at} gives the tensor of \`${name}\` another name` };
      case 'ReturnStatement':
      case 'YieldStatement':
      case 'YieldExpression':
        return { kind: 'escapes', reason: `\`${a.text(p)}\` at ${at} hands the tensor of \`${name}\` to the caller` };
      case 'ForStatement':
        return { kind: 'escapes', reason: `\`${a.text(cur)}\` is iterated at ${at}: the loop variable holds views of it` };
      default:
        if (CONTAINERS.has(p.name) && p.parent?.name === 'ArgList' && p.name !== 'DictionaryExpression') {
          // `torch.cat([x, y])`: the list is only the call's argument; the call decides.
          cur = p;
          continue;
        }
        if (CONTAINERS.has(p.name)) return { kind: 'escapes', reason: `\`${a.text(p)}\` at ${at} puts the tensor of \`${name}\` in a container` };
        return { kind: 'escapes', reason: `\`${name}\` is used in \`${a.text(p)}\` at ${at}, which VRAM Lens does not follow` };
    }
  }
  return { kind: 'escapes', reason: `\`${name}\` is used at ${at} in an expression too deep to follow` };
}

function decided(use: OperandUse, name: string, shown: string): Use {
  if (use === 'reads') return HARMLESS;
  if (use === 'saves') return { kind: 'saved', reason: `\`${name}\` is read by ${shown}, and autograd keeps that operation's inputs for the backward pass` };
  return { kind: 'escapes', reason: `\`${name}\` is used by ${shown}, which VRAM Lens does not know: it may keep the tensor` };
}

/** The names a function's parameter list binds (not default values or annotations). */
function parameterNames(a: Analysis, fn: SyntaxNode): string[] {
  const list = fn.getChild('ParamList');
  if (!list) return [];
  const names: string[] = [];
  for (const c of children(list)) {
    if (c.name !== 'VariableName') continue;
    const prev = c.prevSibling?.name;
    if (prev === '(' || prev === ',' || prev === '*' || prev === '**' || prev === '/') names.push(a.text(c));
  }
  return names;
}

/** How a VariableName occurrence of the name is used by its statement. */
type Occurrence = { readonly kind: 'bind'; readonly value?: SyntaxNode; readonly reason?: string } | { readonly kind: 'write' } | { readonly kind: 'read' } | { readonly kind: 'declare'; readonly reason: string };

function occurrenceOf(a: Analysis, name: string, node: SyntaxNode): Occurrence {
  // A keyword in a call (`f(x=1)`) names a parameter of the callee, not this variable.
  if (node.parent?.name === 'ArgList' && node.nextSibling?.name === 'AssignOp') return { kind: 'write' };
  let target = node;
  let unpacked = false;
  while (target.parent && (target.parent.name === 'TupleExpression' || target.parent.name === 'ArrayExpression' || target.parent.name === 'ParenthesizedExpression')) {
    unpacked ||= target.parent.name !== 'ParenthesizedExpression';
    target = target.parent;
  }
  const p = target.parent;
  if (!p) return { kind: 'read' };
  const at = `line ${a.line(node)}`;
  if (p.name === 'AssignStatement') {
    // `a = b = value`, `x, y = value`: the nodes before the last `=` are targets, grouped by `=`.
    const kids = children(p);
    const lastEq = kids.map((c) => c.name).lastIndexOf('AssignOp');
    const index = kids.findIndex((c) => c.from === target.from && c.to === target.to);
    if (index >= 0 && index < lastEq) {
      const value = kids[kids.length - 1];
      const groups = kids.slice(0, lastEq).filter((c) => c.name === 'AssignOp').length;
      const commas = kids.slice(0, lastEq).some((c) => c.name === ',');
      if (unpacked || commas) return { kind: 'bind', reason: `\`${a.text(p)}\` (${at}) unpacks it from \`${a.text(value)}\`` };
      if (groups > 1) return { kind: 'bind', reason: `\`${a.text(p)}\` (${at}) gives its tensor several names` };
      return { kind: 'bind', value };
    }
  }
  if (p.name === 'ForStatement') {
    const inNode = children(p).find((c) => c.name === 'in');
    if (inNode && target.to <= inNode.from) return { kind: 'bind', reason: `\`${name}\` is the loop variable of the \`for\` at ${at}: it holds elements of another object` };
  }
  if ((p.name === 'WithStatement' || p.name === 'TryStatement') && target.prevSibling?.name === 'as') {
    return { kind: 'bind', reason: `\`${name}\` is bound by \`as\` at ${at}` };
  }
  if (p.name === 'ImportStatement') return { kind: 'bind', reason: `\`${name}\` is imported at ${at}` };
  if (p.name === 'NamedExpression' && p.firstChild?.from === target.from) return { kind: 'bind', value: p.lastChild! };
  if (p.name === 'ScopeStatement') return { kind: 'declare', reason: `\`${name}\` is declared \`${a.text(p).split(/\s/)[0]}\` at ${at}: other code may read the tensor it holds` };
  if (p.name === 'UpdateStatement' && p.firstChild?.from === target.from) return { kind: 'write' };
  if (p.name === 'DeleteStatement') return { kind: 'write' };
  return { kind: 'read' };
}

/**
 * The last statement before `statement` that binds `name` on every path to it: `name = ...` as an
 * earlier statement of the block the statement is in, or of a block around it, up to the function's
 * body. A binding inside a branch or loop before the statement is not one (it may not run).
 */
function lastBindingBefore(a: Analysis, name: string, statement: SyntaxNode, fn: SyntaxNode): SyntaxNode | undefined {
  let child = statement;
  for (let block = statement.parent; block && block !== fn; child = block, block = block.parent) {
    if (block.name !== 'Body') continue;
    for (let s = child.prevSibling; s; s = s.prevSibling) if (s.name === 'AssignStatement' && bindsName(a, s, name)) return s;
  }
  return undefined;
}

/** Whether an assignment statement binds the name (as `name = v`, `a = name = v` or `name, b = v`). */
function bindsName(a: Analysis, assignment: SyntaxNode, name: string): boolean {
  const kids = children(assignment);
  const lastEq = kids.map((c) => c.name).lastIndexOf('AssignOp');
  let found = false;
  for (const target of kids.slice(0, lastEq)) {
    if (target.name === 'AssignOp') continue;
    a.eachName(target, name, (n) => {
      if (occurrenceOf(a, name, n).kind === 'bind') found = true;
    });
  }
  return found;
}

/** The verdict on rewriting `form` (a `binary` form) in place. */
export function inPlaceSafety(src: PythonSource, form: InPlaceForm, options: SafetyOptions = {}): InPlaceVerdict {
  const refuse = (reason: string): InPlaceVerdict => ({ safe: false, reason });
  if (form.kind === 'chain') return refuse('the statement is a longer chain with no single in-place call');
  if (form.kind === 'update') return refuse('the statement already updates in place; fusing its right-hand side into one call (e.g. `addcdiv_`) rounds differently');
  const a = new Analysis(src);
  a.ranOnCuda = options.ranOnCuda === true;
  const target = form.targetNode;
  const name = a.text(target);
  const member = memberKind(target);
  if (member === '.') return refuse(`\`${name}\` is an attribute: other code may hold the tensor it refers to and would see it change`);
  if (member === '[') return refuse(`\`${name}\` is an element of \`${a.text(target.firstChild!)}\`: other code may hold the same tensor and would see it change`);
  if (target.name !== 'VariableName') return refuse(`\`${name}\` is not a plain name`);

  // The scope: the innermost function around the statement, with no class body in between.
  let fn: SyntaxNode | undefined;
  for (let n = form.node.parent; n; n = n.parent) {
    if (n.name === 'ClassDefinition') return refuse(`\`${name}\` is a class attribute: other code may read the tensor it holds`);
    if (n.name === 'FunctionDefinition') {
      fn = n;
      break;
    }
  }
  if (!fn) return refuse(`\`${name}\` is a module-level (global) name: other functions and modules may read the tensor it holds`);
  const fnName = fn.getChild('VariableName');
  a.params = new Set(parameterNames(a, fn));
  a.fn = fn;
  if (a.params.has(name)) {
    return refuse(`\`${name}\` is a parameter of \`${fnName ? a.text(fnName) : 'the function'}\`: the caller may still use the tensor it passed, and would see it change`);
  }
  const body = fn.getChild('Body');
  if (!body) return refuse(`the body of \`${fnName ? a.text(fnName) : 'the function'}\` could not be read`);

  // Uses that can run before the statement: earlier in the function, or anywhere in a loop around it.
  let loop: SyntaxNode | undefined;
  for (let n = form.node.parent; n && n !== fn; n = n.parent) if (n.name === 'ForStatement' || n.name === 'WhileStatement') loop = n;
  const relevant = (n: SyntaxNode) => n.from < form.node.from || (loop !== undefined && contains(loop, n));
  // The tensor the statement rewrites is the one its last binding made: the last `x = ...` that runs
  // on every path to it (an earlier statement of a block the statement is in). Bindings and uses
  // before that one concern another tensor. Bindings after it (in branches, or in a loop around the
  // statement that it is not in) may reach the statement too, and count.
  const last = lastBindingBefore(a, name, form.node, fn);
  let reachLoop: SyntaxNode | undefined;
  for (let n = form.node.parent; n && n !== fn; n = n.parent) if ((n.name === 'ForStatement' || n.name === 'WhileStatement') && !(last && contains(n, last))) reachLoop = n;
  const reaches = (n: SyntaxNode, after: number) => n.from >= after && (n.from < form.node.from || (reachLoop !== undefined && contains(reachLoop, n)));
  const bindingReaches = (n: SyntaxNode) => (last ? reaches(n, last.from) : relevant(n));
  const useReaches = (n: SyntaxNode) => (last ? reaches(n, last.to) : relevant(n));

  const value = form.node.lastChild!;
  const sources: Source[] = [];
  const values: SyntaxNode[] = [];
  let saved: string | undefined;
  let nested: SyntaxNode | undefined;
  const reads: SyntaxNode[] = [];
  const cursor = body.cursor();
  const visit = (): string | undefined => {
    do {
      const n = cursor.node;
      if (NESTED_SCOPES.has(n.name)) {
        if (nested === undefined && relevant(n) && new RegExp(`\\b${name}\\b`).test(src.textOf(n))) nested = n;
        continue;
      }
      if (n.name === 'VariableName' && a.text(n) === name) {
        if (n.from === target.from) continue; // the statement's own target
        const occurrence = occurrenceOf(a, name, n);
        if (occurrence.kind === 'declare') return occurrence.reason;
        if (occurrence.kind === 'bind') {
          if (!bindingReaches(n)) continue; // before the last binding, or after the statement outside any loop around it: it cannot reach it
          if (occurrence.reason !== undefined) return occurrence.reason;
          if (occurrence.value && occurrence.value.from !== value.from) {
            sources.push(sourceOf(a, name, occurrence.value));
            values.push(occurrence.value);
          }
        } else if (occurrence.kind === 'read' && contains(form.node, n) && !(form.otherNode && contains(form.otherNode, n))) {
          // The statement's own operand `x` in `x op y`.
        } else if (occurrence.kind === 'read' && (useReaches(n) || (form.otherNode && contains(form.otherNode, n)))) {
          reads.push(n);
        }
        continue;
      }
      if (cursor.firstChild()) {
        const found = visit();
        cursor.parent();
        if (found !== undefined) return found;
      }
    } while (cursor.nextSibling());
    return undefined;
  };
  if (cursor.firstChild()) {
    const found = visit();
    if (found !== undefined) return refuse(found);
  }
  if (nested) return refuse(`\`${name}\` may be used inside \`${a.text(nested)}\` (line ${a.line(nested)}), a nested function, lambda or comprehension that may keep it`);
  if (sources.length === 0) return refuse(`no assignment in \`${fnName ? a.text(fnName) : 'the function'}\` before this line gives \`${name}\` a tensor of its own`);
  for (const s of sources) {
    if (!s.owned) return refuse(s.reason);
    saved ??= s.saved;
  }
  const gradReasons: string[] = [];
  for (const r of reads) {
    const use = useOf(a, name, r, form.otherNode && contains(form.otherNode, r) ? value : undefined);
    if (use.kind === 'escapes') return refuse(use.reason);
    if (use.kind === 'saved') gradReasons.push(use.reason);
  }
  if (!options.gradDisabled) {
    const note = ' (gradient recording may be on here: no torch.no_grad(), torch.inference_mode() or torch.set_grad_enabled(False) is in force), so `backward()` would fail after the in-place change';
    if (saved !== undefined) return refuse(`${saved} makes it an output that autograd keeps for the backward pass${note}`);
    if (gradReasons.length > 0) return refuse(`${gradReasons[0]}${note}`);
  }
  // An integer tensor cannot take a floating-point result in place (`x.div_(2)` on int32 raises where
  // `x / 2` made a float32 tensor of the same size): `x` must provably hold floating point.
  // `+ - *` with a Python int keep the tensor's own type, whatever it is: only then may it be an integer tensor.
  const valueNode = unparen(value);
  const opNode = valueNode.name === 'BinaryExpression' ? valueNode.firstChild?.nextSibling : undefined;
  const other = form.otherNode ? unparen(form.otherNode) : undefined;
  const keepsType = opNode !== undefined && opNode !== null && ['+', '-', '*'].includes(a.text(opNode)) && other?.name === 'Number' && /^\d[\d_]*$/.test(a.text(other));
  if (!keepsType && !values.every((v) => a.isFloating(v))) {
    return refuse(
      `\`${name}\` may hold an integer tensor (not every assignment of it in \`${fnName ? a.text(fnName) : 'the function'}\` that reaches this line shows a floating-point type), and \`${form.suggestion}\` must fit its result into that tensor's element type where \`${a.text(value)}\` makes a new tensor of the type its operands call for (an integer tensor cannot hold a floating-point result: on int32, \`div_\` raises)`,
    );
  }
  return { safe: true };
}
