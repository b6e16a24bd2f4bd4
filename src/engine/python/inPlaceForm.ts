/**
 * Arithmetic statements that have an in-place form, read from the syntax tree: `x = x / s`
 * (-> `x.div_(s)`, a mechanical edit), `x = beta * x + g` (x is overwritten anyway, so the
 * statement's own operations can reuse it: `x.mul_(beta).add_(g)`; a chain whose order cannot be kept
 * in place, as `x = a - x * b`, has no form), `p -= a * m / d` (-> `p.addcdiv_(m, d, value=-a)`, fused: it rounds differently, so
 * it is a suggestion, never an edit). Matrix products (`@`, `matmul`) have no in-place form and are
 * never matched. Whether the edit is safe (nothing else reads the old value) is `inPlaceSafety`'s
 * question, not this module's.
 */
import type { SyntaxNode } from '@lezer/common';
import type { PythonSource } from './pythonSource';

/** A text edit by offsets into the file. */
export interface SourceEdit {
  readonly from: number;
  readonly to: number;
  readonly text: string;
}

export interface InPlaceForm {
  /**
   * `binary`: `x = x op y` / `x = y op x` (one in-place call computes the same);
   * `chain`: `x = a * x + b` (x is among the operands of a longer chain);
   * `update`: `x op= expr` (already in place; only `expr`'s temporaries could be fused away).
   */
  readonly kind: 'binary' | 'chain' | 'update';
  /** The statement's node. */
  readonly node: SyntaxNode;
  /** The target's node (`x`, `p.data`, `state["v"]`). */
  readonly targetNode: SyntaxNode;
  /** For `binary`: the operand that is not the target (`y`). */
  readonly otherNode?: SyntaxNode;
  /** The statement, as written (one line, whitespace collapsed). */
  readonly statement: string;
  /** What is overwritten (`x`, `p.data`). */
  readonly target: string;
  /** The in-place spelling to suggest. */
  readonly suggestion: string;
  /** A mechanical rewrite, when one call computes exactly the same (`x = x op y`). */
  readonly edit?: SourceEdit;
}

const METHOD: Record<string, string> = { '+': 'add_', '-': 'sub_', '*': 'mul_', '/': 'div_' };
const TARGETS = new Set(['VariableName', 'MemberExpression', 'SubscriptExpression']);

function binary(node: SyntaxNode): { left: SyntaxNode; op: SyntaxNode; right: SyntaxNode } | undefined {
  if (node.name !== 'BinaryExpression') return undefined;
  const left = node.firstChild;
  const op = left?.nextSibling;
  const right = op?.nextSibling;
  return left && op && right && op.name === 'ArithOp' ? { left, op, right } : undefined;
}

function unparen(node: SyntaxNode): SyntaxNode {
  let n = node;
  while (n.name === 'ParenthesizedExpression' && n.firstChild?.nextSibling && n.firstChild.nextSibling.nextSibling?.name === ')') n = n.firstChild.nextSibling;
  return n;
}

/** The leaves of a chain of + - * / (through parentheses), or undefined when anything else (`@`, `**`, `//`) is in it. */
function arithmeticLeaves(src: PythonSource, node: SyntaxNode, out: string[]): boolean {
  const n = unparen(node);
  const b = binary(n);
  if (!b) {
    out.push(src.textOf(n).replace(/\s+/g, ''));
    return true;
  }
  if (!(src.textOf(b.op) in METHOD)) return false;
  return arithmeticLeaves(src, b.left, out) && arithmeticLeaves(src, b.right, out);
}

/** Whether the node holds an elementwise + - * / (not a matrix product) anywhere outside calls. */
function hasElementwise(src: PythonSource, node: SyntaxNode): boolean {
  const n = unparen(node);
  const b = binary(n);
  if (!b) return false;
  if (src.textOf(b.op) in METHOD) return true;
  return hasElementwise(src, b.left) || hasElementwise(src, b.right);
}

const norm = (s: string) => s.replace(/\s+/g, '');

/** The name a target starts with (`x` of `x`, `p` of `p.data`, `state` of `state["v"]`). */
function rootName(src: PythonSource, target: SyntaxNode): string | undefined {
  let n: SyntaxNode | null = target;
  while (n && n.name !== 'VariableName') n = n.firstChild;
  return n ? src.textOf(n) : undefined;
}

/** How many times the name occurs as a variable anywhere under the node (calls and subscripts included). */
function occurrences(src: PythonSource, node: SyntaxNode, name: string): number {
  let count = 0;
  src.tree.iterate({
    from: node.from,
    to: node.to,
    enter: (n) => {
      if (n.from >= node.from && n.to <= node.to && n.name === 'VariableName' && src.text.slice(n.from, n.to) === name) count++;
    },
  });
  return count;
}

/**
 * The statement's own operations as in-place calls on the target, in the order Python evaluates
 * them: `x = x * m / s` -> `mul_(m).div_(s)`, `x = a * x + b` -> `mul_(a).add_(b)`. Walking from the
 * value down to the target, each operation must take the target's side as its left operand, or as
 * either operand of `+` and `*` (which commute exactly, element by element). Undefined where that
 * cannot be written: the target on the right of `-` or `/`, or read anywhere else in the statement
 * (after the first in-place call it would read the new value).
 */
function ownChain(src: PythonSource, value: SyntaxNode, target: SyntaxNode): string | undefined {
  const t = norm(src.textOf(target));
  const root = rootName(src, target);
  if (root === undefined || occurrences(src, value, root) !== 1) return undefined;
  const calls: string[] = [];
  let n = unparen(value);
  while (norm(src.textOf(n)) !== t) {
    const b = binary(n);
    if (!b) return undefined;
    const op = src.textOf(b.op);
    if (!(op in METHOD)) return undefined;
    if (occurrences(src, b.left, root) === 1) {
      calls.unshift(`${METHOD[op]}(${src.textOf(unparen(b.right))})`);
      n = unparen(b.left);
    } else if (op === '+' || op === '*') {
      calls.unshift(`${METHOD[op]}(${src.textOf(unparen(b.left))})`);
      n = unparen(b.right);
    } else return undefined;
  }
  return calls.length > 1 ? calls.join('.') : undefined;
}

/** The in-place form of the statement on a 1-based line, if its arithmetic has one. */
export function inPlaceFormAt(src: PythonSource, line: number): InPlaceForm | undefined {
  const st = src.statementAt(line);
  if (!st) return undefined;
  const statement = src.textOf(st).replace(/\s+/g, ' ');
  if (st.name === 'AssignStatement') {
    const kids: SyntaxNode[] = [];
    for (let c = st.firstChild; c; c = c.nextSibling) kids.push(c);
    // Exactly `target = value`.
    if (kids.length !== 3 || kids[1].name !== 'AssignOp' || !TARGETS.has(kids[0].name)) return undefined;
    const target = src.textOf(kids[0]);
    const value = unparen(kids[2]);
    const b = binary(value);
    if (!b) return undefined;
    const op = src.textOf(b.op);
    const t = norm(target);
    if (op in METHOD) {
      const left = norm(src.textOf(unparen(b.left)));
      const right = norm(src.textOf(unparen(b.right)));
      const other = left === t ? b.right : (op === '+' || op === '*') && right === t ? b.left : undefined;
      if (other) {
        const suggestion = `${target}.${METHOD[op]}(${src.textOf(unparen(other))})`;
        return { kind: 'binary', node: st, targetNode: kids[0], otherNode: unparen(other), statement, target, suggestion, edit: { from: st.from, to: st.to, text: suggestion } };
      }
    }
    // `x = a * x + b`: x is among the operands of a + - * / chain, so its memory can be reused by
    // the statement's own operations, in its own order, as calls on x (`x.mul_(a).add_(b)`).
    const leaves: string[] = [];
    if (!arithmeticLeaves(src, value, leaves) || !leaves.includes(t)) return undefined;
    const chain = ownChain(src, value, kids[0]);
    return chain === undefined ? undefined : { kind: 'chain', node: st, targetNode: kids[0], statement, target, suggestion: `${target}.${chain}` };
  }
  if (st.name === 'UpdateStatement') {
    const target = st.firstChild;
    const opNode = target?.nextSibling;
    const value = opNode?.nextSibling;
    if (!target || !opNode || !value || !TARGETS.has(target.name)) return undefined;
    const op = src.textOf(opNode).replace('=', '');
    if (!(op in METHOD) || !hasElementwise(src, value)) return undefined;
    const name = src.textOf(target);
    // `t ±= a * b / c` -> t.addcdiv_(b, c, value=±a): one fused kernel, no temporaries (rounded once, not three times).
    const v = binary(unparen(value));
    if ((op === '+' || op === '-') && v && src.textOf(v.op) === '/') {
      const num = binary(unparen(v.left));
      if (num && src.textOf(num.op) === '*') {
        const a = src.textOf(unparen(num.left));
        const valueArg = op === '-' ? (/^[\w.]+$/.test(a) ? `-${a}` : `-(${a})`) : a;
        const suggestion = `${name}.addcdiv_(${src.textOf(unparen(num.right))}, ${src.textOf(unparen(v.right))}, value=${valueArg})`;
        return { kind: 'update', node: st, targetNode: target, statement, target: name, suggestion };
      }
    }
    return { kind: 'update', node: st, targetNode: target, statement, target: name, suggestion: `${name}.addcmul_ / addcdiv_ / add_(..., alpha=...)` };
  }
  return undefined;
}
