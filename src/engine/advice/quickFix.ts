/**
 * Mechanical fixes, decided from the syntax tree of the current source: an in-place form for
 * arithmetic (`x = x / s` -> `x.div_(s)`, only where `inPlaceSafety` proves nothing else reads the
 * old value), accumulating `loss.item()` / `loss.detach()` instead of
 * a tensor that holds the autograd graph, and wrapping a forward-only model call in
 * `torch.inference_mode()`. Each edit is applied to the text and parsed again; an edit that would
 * leave a syntax error is never offered.
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

const ATOMS = new Set(['VariableName', 'MemberExpression', 'CallExpression', 'SubscriptExpression']);

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

function accumulationEdits(src: PythonSource, file: string, line: number): LineEdit[] {
  const st = src.statementAt(line);
  const expr = st && accumulatedExpression(src, st);
  if (!expr) return [];
  const text = src.textOf(expr);
  if (/\.(item|detach|cpu|tolist)\(\)\s*$/.test(text)) return [];
  const wrapped = ATOMS.has(expr.name) ? text : `(${text})`;
  const short = wrapped.length > 40 ? `${wrapped.slice(0, 37)}...` : wrapped;
  return [
    checked(src, file, `Accumulate ${short}.item() (a Python number; frees the graph)`, { from: expr.from, to: expr.to, text: `${wrapped}.item()` }),
    checked(src, file, `Accumulate ${short}.detach() (a tensor without the graph)`, { from: expr.from, to: expr.to, text: `${wrapped}.detach()` }),
  ].filter((e): e is LineEdit => e !== undefined);
}

/** `with torch.inference_mode():` around the simple statement on a line (which must sit alone on its lines). */
export function inferenceModeEdit(src: PythonSource, file: string, line: number): LineEdit | undefined {
  const st = src.statementAt(line);
  const torch = src.torchName();
  if (!st || !torch || PythonSource.isCompound(st) || !st.parent || (st.parent.name !== 'Body' && st.parent.name !== 'Script')) return undefined;
  const start = src.offsetOfLine(src.lineOf(st.from));
  const indent = src.text.slice(start, st.from);
  if (!/^[ \t]*$/.test(indent)) return undefined;
  const endLine = src.lineOf(st.to);
  const end = endLine < src.lineCount ? src.offsetOfLine(endLine + 1) - 1 : src.text.length;
  if (!/^[ \t]*(#.*)?\r?$/.test(src.text.slice(st.to, end))) return undefined;
  // A string spanning lines would change if its lines were indented.
  let multilineString = false;
  st.toTree().iterate({
    enter: (n) => {
      if ((n.name === 'String' || n.name === 'FormatString') && src.text.slice(st.from + n.from, st.from + n.to).includes('\n')) multilineString = true;
    },
  });
  if (multilineString) return undefined;
  const unit = indent.includes('\t') ? '\t' : '    ';
  const body = src.text.slice(start, end).split('\n').map((l) => (l.trim() === '' ? l : unit + l)).join('\n');
  return checked(src, file, `Run this under ${torch}.inference_mode() (no autograd graph is kept)`, { from: start, to: end, text: `${indent}with ${torch}.inference_mode():\n${body}` });
}

/**
 * The quick-fix edits a finding offers, given the parsed sources. In-place and inference-mode fixes
 * apply to the finding's own line; accumulation fixes to the finding's line, or else to the first
 * accumulation at or below one of its related (loop-body) lines.
 */
export function quickFixesFor(finding: Finding, sourceOf: SourceProvider | undefined): LineEdit[] {
  if (!sourceOf || finding.file === undefined || finding.line === undefined || !finding.fix) return [];
  const src = sourceOf(finding.file);
  if (finding.fix === 'in-place-operator') {
    const form = src && inPlaceFormAt(src, finding.line);
    if (!src || !form?.edit || !inPlaceSafety(src, form, { gradDisabled: finding.gradDisabled === true }).safe) return [];
    const edit = checked(src, finding.file, `Update in place: ${form.edit.text} (${form.target} is this function's own tensor and nothing else reads its old value)`, form.edit);
    return edit ? [edit] : [];
  }
  if (finding.fix === 'inference-mode') {
    const edit = src && inferenceModeEdit(src, finding.file, finding.line);
    return edit ? [edit] : [];
  }
  const candidates: { file: string; line: number }[] = [{ file: finding.file, line: finding.line }];
  for (const r of finding.related ?? []) {
    for (let k = 0; k <= ACCUMULATION_SEARCH_LINES; k++) candidates.push({ file: r.file, line: r.line + k });
  }
  for (const c of candidates) {
    const s = sourceOf(c.file);
    const edits = s ? accumulationEdits(s, c.file, c.line) : [];
    if (edits.length > 0) return edits;
  }
  return [];
}
