/**
 * The one mechanical fix the advisor offers: an in-place form for arithmetic (`x = x / s` ->
 * `x.div_(s)`), only where `inPlaceSafety` proves nothing else reads the old value, so the program
 * computes the same. The edit is applied to the text and parsed again; an edit that would leave a
 * syntax error is never offered. What no fix is offered for, and why (docs/compare-and-advice.md):
 * an accumulation that keeps the autograd graph (`.item()` turns a tensor into a Python number and
 * `.detach()` stops gradients: either changes what the program computes) and a model call run
 * without `torch.inference_mode()` (the model is code of unknown type, and later uses of its results
 * for gradients cannot be ruled out). This module still finds such an accumulation, so that a
 * growing-memory finding can point at it and see it go when the user changes it.
 */
import type { SyntaxNode } from '@lezer/common';
import { inPlaceFormAt } from '../python/inPlaceForm';
import { inPlaceSafety } from '../python/inPlaceSafety';
import type { SourceEdit } from '../python/inPlaceForm';
import { PythonSource } from '../python/pythonSource';
import type { Finding, LineEdit } from './finding';

/** The parsed source of a file named in a finding, when its text is known. */
export type SourceProvider = (file: string) => PythonSource | undefined;

/** How many lines after a loop-body line are searched for the accumulation that keeps memory alive. */
export const ACCUMULATION_SEARCH_LINES = 15;

/** The edit as line/column, if the edited text still parses (no more syntax errors than before). */
function checked(src: PythonSource, file: string, title: string, edit: SourceEdit): LineEdit | undefined {
  const after = src.text.slice(0, edit.from) + edit.text + src.text.slice(edit.to);
  if (PythonSource.parse(after).errorCount > src.errorCount) return undefined;
  return { title, file, line: src.lineOf(edit.from), startColumn: src.columnOf(edit.from), endLine: src.lineOf(edit.to), endColumn: src.columnOf(edit.to), newText: edit.text };
}

/**
 * The accumulated expression of a statement that keeps a tensor alive: `total += e`,
 * `total = total + e`, `items.append(e)`.
 */
export function accumulatedExpression(src: PythonSource, st: SyntaxNode): SyntaxNode | undefined {
  if (st.name === 'UpdateStatement') {
    const op = st.firstChild?.nextSibling;
    return op && src.textOf(op) === '+=' ? (op.nextSibling ?? undefined) : undefined;
  }
  if (st.name === 'AssignStatement') {
    const target = st.firstChild;
    const eq = target?.nextSibling;
    const value = eq?.nextSibling;
    if (!target || !value || value.nextSibling || value.name !== 'BinaryExpression') return undefined;
    const left = value.firstChild;
    const op = left?.nextSibling;
    if (!left || !op || src.textOf(op) !== '+' || src.textOf(left).replace(/\s+/g, '') !== src.textOf(target).replace(/\s+/g, '')) return undefined;
    return op.nextSibling ?? undefined;
  }
  if (st.name === 'ExpressionStatement') {
    const call = st.firstChild;
    const callee = call?.firstChild;
    const args = call?.getChild('ArgList');
    if (!call || call.name !== 'CallExpression' || callee?.name !== 'MemberExpression' || !args) return undefined;
    if (callee.lastChild && src.textOf(callee.lastChild) !== 'append') return undefined;
    const inner: SyntaxNode[] = [];
    for (let c = args.firstChild; c; c = c.nextSibling) if (c.name !== '(' && c.name !== ')' && c.name !== ',') inner.push(c);
    return inner.length === 1 ? inner[0] : undefined;
  }
  return undefined;
}

/** Whether an accumulated expression is already a number or detached from the graph (nothing left to change). */
function isDetachedExpression(text: string): boolean {
  return /\.(item|detach|cpu|tolist)\(\)\s*$/.test(text);
}

/** An accumulation of a tensor that may hold the autograd graph: where it is, and what it accumulates. */
export interface Accumulation {
  readonly file: string;
  readonly line: number;
  readonly statement: string;
  readonly expression: string;
}

/** The accumulation (not already `.item()` / `.detach()`) of the statement on a 1-based line, if it is one. */
export function accumulationAt(src: PythonSource, file: string, line: number): Accumulation | undefined {
  const st = src.statementAt(line);
  const expr = st && accumulatedExpression(src, st);
  if (!st || !expr) return undefined;
  const expression = src.textOf(expr);
  if (isDetachedExpression(expression)) return undefined;
  return { file, line: src.lineOf(st.from), statement: src.textOf(st).replace(/\s+/g, ' '), expression: expression.replace(/\s+/g, ' ') };
}

/**
 * The first accumulation on a growing-memory finding's line, or else at or below one of the loop-body
 * lines it names (within `ACCUMULATION_SEARCH_LINES`).
 */
export function findAccumulation(at: { file: string; line: number }, loops: readonly { file: string; line: number }[], sourceOf: SourceProvider): Accumulation | undefined {
  const candidates: { file: string; line: number }[] = [at];
  for (const r of loops) {
    for (let k = 0; k <= ACCUMULATION_SEARCH_LINES; k++) candidates.push({ file: r.file, line: r.line + k });
  }
  for (const c of candidates) {
    const s = sourceOf(c.file);
    const found = s && c.line <= s.lineCount ? accumulationAt(s, c.file, c.line) : undefined;
    if (found) return found;
  }
  return undefined;
}

/**
 * The quick-fix edits a finding offers, given the parsed sources: the in-place form on the finding's
 * own line, re-checked for safety on the source as it is now.
 */
export function quickFixesFor(finding: Finding, sourceOf: SourceProvider | undefined): LineEdit[] {
  if (!sourceOf || finding.file === undefined || finding.line === undefined || finding.fix !== 'in-place-operator') return [];
  const src = sourceOf(finding.file);
  const form = src && inPlaceFormAt(src, finding.line);
  if (!src || !form?.edit || !inPlaceSafety(src, form, { gradDisabled: finding.gradDisabled === true, ranOnCuda: finding.ranOnCuda === true }).safe) return [];
  const edit = checked(src, finding.file, `Update in place: ${form.edit.text} (${form.target} is this function's own tensor and nothing else reads its old value)`, form.edit);
  return edit ? [edit] : [];
}
