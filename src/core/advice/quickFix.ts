/**
 * Mechanical fixes, decided from one line of source text: rewrite `x = x * y` as `x *= y`, and
 * accumulate a Python number or a detached tensor instead of a tensor that holds the autograd
 * graph. Pure string work; each returns nothing unless the pattern is literally on the line.
 */
import type { LineTextProvider } from '../sourceText';
import type { Finding, LineEdit } from './finding';

const NAME = String.raw`[A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)*(?:\[[^\]\n]*\])?`;

function splitComment(text: string): { code: string; comment: string } {
  let quote: string | undefined;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") {
      quote = c;
    } else if (c === '#') {
      return { code: text.slice(0, i), comment: text.slice(i) };
    }
  }
  return { code: text, comment: '' };
}

/**
 * Whether `expr` has, outside brackets and strings, an operator that binds no tighter than `op`
 * (so `x = x op expr` would not mean `x op= expr`), or anything that is not plain arithmetic.
 */
function bindsLooser(expr: string, op: string): boolean {
  if (/\b(if|else|and|or|not|lambda|in|is|for|yield|await)\b/.test(expr.replace(/(["'])(?:\\.|(?!\1).)*\1/g, '""'))) return true;
  let depth = 0;
  let quote: string | undefined;
  let prevOperand = false;
  for (let i = 0; i < expr.length; i++) {
    const c = expr[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = undefined;
      continue;
    }
    if (c === '"' || c === "'") {
      quote = c;
      prevOperand = true;
      continue;
    }
    if ('([{'.includes(c)) depth++;
    else if (')]}'.includes(c)) depth--;
    if (depth > 0 || ')]}'.includes(c)) {
      prevOperand = true;
      continue;
    }
    if (c === ' ' || c === '\t') continue;
    if ('<>=!&|^~%@,:;'.includes(c)) return true;
    if (c === '*' && expr[i + 1] === '*') {
      i++;
      prevOperand = false;
      continue;
    }
    if (c === '+' || c === '-') {
      if (prevOperand) return true; // binary + or - binds looser than or equal to every op here
      prevOperand = false;
      continue;
    }
    if (c === '*' || c === '/') {
      if (op === '*' || op === '/') return true;
      prevOperand = false;
      continue;
    }
    prevOperand = /[\w.]/.test(c);
  }
  return depth !== 0;
}

/** `x = x * y` -> `x *= y` (also + - /), when the right side is exactly `x op <tighter expression>`. */
export function inPlaceOperatorEdit(text: string): Omit<LineEdit, 'file' | 'line' | 'title'> & { readonly op: string } | undefined {
  const { code } = splitComment(text);
  const m = new RegExp(String.raw`^(\s*)(${NAME})\s*=\s*(${NAME})\s*([-+*/])(?![*/=])\s*(.+?)\s*$`).exec(code);
  if (!m) return undefined;
  const [, indent, target, left, op, rest] = m;
  if (target !== left || rest === '' || bindsLooser(rest, op)) return undefined;
  return { startColumn: indent.length, endColumn: code.trimEnd().length, newText: `${target} ${op}= ${rest}`, op };
}

/**
 * An accumulation that keeps a tensor (and its graph) alive: `total += expr`, `total = total + expr`,
 * `items.append(expr)`. Returns the edits that accumulate `expr.item()` or `expr.detach()`.
 */
export function accumulationEdits(text: string): Omit<LineEdit, 'file' | 'line'>[] {
  const { code } = splitComment(text);
  const patterns = [
    new RegExp(String.raw`^(\s*${NAME}\s*\+=\s*)(.+?)\s*$`),
    new RegExp(String.raw`^(\s*(${NAME})\s*=\s*\2\s*\+\s*)(.+?)\s*$`),
    new RegExp(String.raw`^(\s*${NAME}\.append\()(.+)\)\s*$`),
  ];
  for (const [k, re] of patterns.entries()) {
    const m = re.exec(code);
    if (!m) continue;
    const head = m[1];
    const expr = k === 1 ? m[3] : m[2];
    if (/\.(item|detach|cpu|tolist)\(\)\s*$/.test(expr)) return [];
    const simple = new RegExp(String.raw`^(?:${NAME})(?:\([^()]*\))?$`).test(expr);
    const wrapped = simple ? expr : `(${expr})`;
    const start = head.length;
    const end = start + expr.length;
    return [
      { title: `Accumulate ${wrapped}.item() (a Python number; frees the graph)`, startColumn: start, endColumn: end, newText: `${wrapped}.item()` },
      { title: `Accumulate ${wrapped}.detach() (a tensor without the graph)`, startColumn: start, endColumn: end, newText: `${wrapped}.detach()` },
    ];
  }
  return [];
}

/** How many lines after a loop-body line are searched for the accumulation that keeps memory alive. */
export const ACCUMULATION_SEARCH_LINES = 15;

/**
 * The quick-fix edits a finding offers, given a way to read the current text of a line. In-place
 * fixes apply to the finding's own line; accumulation fixes to the finding's line, or else to the
 * first accumulation at or below one of its related (loop-body) lines.
 */
export function quickFixesFor(finding: Finding, lineText: LineTextProvider | undefined): LineEdit[] {
  if (!lineText || finding.file === undefined || finding.line === undefined || !finding.fix) return [];
  const own = lineText(finding.file, finding.line);
  if (finding.fix === 'in-place-operator') {
    const edit = own === undefined ? undefined : inPlaceOperatorEdit(own);
    if (!edit) return [];
    const { op, ...rest } = edit;
    return [{ file: finding.file, line: finding.line, ...rest, title: `Update in place with ${op}= (check that nothing else still needs the old value)` }];
  }
  const candidates: { file: string; line: number }[] = [{ file: finding.file, line: finding.line }];
  for (const r of finding.related ?? []) {
    for (let k = 0; k <= ACCUMULATION_SEARCH_LINES; k++) candidates.push({ file: r.file, line: r.line + k });
  }
  for (const c of candidates) {
    const text = lineText(c.file, c.line);
    if (text === undefined) continue;
    const edits = accumulationEdits(text);
    if (edits.length > 0) return edits.map((e) => ({ ...c, ...e }));
  }
  return [];
}
