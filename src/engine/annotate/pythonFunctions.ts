/**
 * Function ranges of a Python source file, by indentation, for code lenses when no language server
 * offers document symbols. Brackets, backslash continuations and (triple-)quoted strings are
 * followed so that a signature spread over lines or a docstring never ends a function early.
 */

export interface FunctionRange {
  readonly name: string;
  /** `Class.method`, `outer.inner`: the enclosing classes and functions, dotted. */
  readonly qualifiedName: string;
  /** 0-based line of the `def`. */
  readonly line: number;
  /** 0-based last line of the body (its last line with code). */
  readonly endLine: number;
}

const DEF = /^\s*(?:async\s+)?def\s+([A-Za-z_]\w*)/;
const CLASS = /^\s*class\s+([A-Za-z_]\w*)/;

/** Per line: does it start a logical line (not inside brackets, strings or a `\` continuation)? */
function logicalLineStarts(lines: readonly string[]): boolean[] {
  const starts: boolean[] = new Array<boolean>(lines.length);
  let depth = 0;
  let quote: string | undefined; // the open string's delimiter: ', ", ''' or """
  let continued = false;
  for (let n = 0; n < lines.length; n++) {
    starts[n] = depth === 0 && quote === undefined && !continued;
    continued = false;
    const text = lines[n];
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      if (quote !== undefined) {
        if (c === '\\') i++;
        else if (text.startsWith(quote, i)) {
          i += quote.length - 1;
          quote = undefined;
        }
        continue;
      }
      if (c === '#') break;
      if (c === '"' || c === "'") {
        quote = text.startsWith(c.repeat(3), i) ? c.repeat(3) : c;
        i += quote.length - 1;
      } else if (c === '(' || c === '[' || c === '{') depth++;
      else if (c === ')' || c === ']' || c === '}') depth = Math.max(0, depth - 1);
      else if (c === '\\' && i === text.length - 1) continued = true;
    }
    // A single-quoted string cannot span lines (without a `\`): recover from unbalanced quotes.
    if (quote === "'" || quote === '"') quote = undefined;
  }
  return starts;
}

function indentWidth(text: string): number {
  let width = 0;
  for (const c of text) {
    if (c === ' ') width++;
    else if (c === '\t') width = width - (width % 8) + 8;
    else break;
  }
  return width;
}

function isCode(text: string): boolean {
  const t = text.trim();
  return t !== '' && !t.startsWith('#');
}

/** Every `def` in the file with the lines of its body, in order of appearance. */
export function findPythonFunctions(lines: readonly string[]): FunctionRange[] {
  const starts = logicalLineStarts(lines);
  const open: { kind: 'def' | 'class'; name: string; qualifiedName: string; indent: number; line: number; out: number }[] = [];
  const out: FunctionRange[] = [];
  let lastCode = -1;

  const close = (indent: number) => {
    while (open.length > 0 && open[open.length - 1].indent >= indent) {
      const scope = open.pop()!;
      if (scope.kind === 'def') out[scope.out] = { name: scope.name, qualifiedName: scope.qualifiedName, line: scope.line, endLine: Math.max(scope.line, lastCode) };
    }
  };

  for (let n = 0; n < lines.length; n++) {
    const text = lines[n];
    if (!isCode(text)) continue;
    if (starts[n]) {
      const indent = indentWidth(text);
      close(indent);
      const def = DEF.exec(text);
      const cls = def ? null : CLASS.exec(text);
      const match = def ?? cls;
      if (match) {
        const name = match[1];
        const parent = open[open.length - 1];
        const qualifiedName = parent ? `${parent.qualifiedName}.${name}` : name;
        const slot = def ? out.push({ name, qualifiedName, line: n, endLine: n }) - 1 : -1;
        open.push({ kind: def ? 'def' : 'class', name, qualifiedName, indent, line: n, out: slot });
      }
    }
    lastCode = n;
  }
  close(-1);
  return out;
}
