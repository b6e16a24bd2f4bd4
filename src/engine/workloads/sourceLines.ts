/**
 * Finds the line of a statement in a Python sample's text at run time, so the line numbers the
 * built-in workloads report never go stale when a sample is edited.
 */
import type { SourceKey } from './graphBuilder';

export class SourceKeyError extends Error {
  override readonly name = 'SourceKeyError';
}

function indentOf(line: string): number {
  return line.length - line.trimStart().length;
}

function isCodeLine(line: string): boolean {
  const t = line.trim();
  return t !== '' && !t.startsWith('#');
}

interface FunctionLines {
  readonly def: number;
  /** 1-based lines of the body's code, in order. */
  readonly body: readonly number[];
}

/**
 * Indexes the functions of a Python file by qualified name (`main`, `Block.forward`): the `def` line
 * and the lines of its body. A body ends at the first code line indented no deeper than its `def`.
 */
export class PythonSource {
  private readonly lines: readonly string[];
  private readonly functions = new Map<string, FunctionLines>();
  private readonly bySimpleName = new Map<string, string[]>();

  constructor(text: string) {
    this.lines = text.split(/\r?\n/);
    const header = /^\s*(?:async\s+def|def|class)\s+([A-Za-z_]\w*)/;
    const scopes: { indent: number; name: string }[] = [];
    this.lines.forEach((line, i) => {
      if (!isCodeLine(line)) return;
      const indent = indentOf(line);
      while (scopes.length > 0 && scopes[scopes.length - 1].indent >= indent) scopes.pop();
      const match = header.exec(line);
      if (!match) return;
      const qualified = [...scopes.map((s) => s.name), match[1]].join('.');
      scopes.push({ indent, name: match[1] });
      if (/^\s*class\s/.test(line) || this.functions.has(qualified)) return;
      this.functions.set(qualified, { def: i + 1, body: this.bodyOf(i, indent) });
      this.bySimpleName.set(match[1], [...(this.bySimpleName.get(match[1]) ?? []), qualified]);
    });
  }

  private bodyOf(defIndex: number, indent: number): number[] {
    // Skip the rest of a multi-line signature: the body starts after the line that ends with ':'.
    let j = defIndex;
    while (j < this.lines.length && !/:\s*(#.*)?$/.test(this.lines[j])) j++;
    const body: number[] = [];
    for (j = j + 1; j < this.lines.length; j++) {
      const candidate = this.lines[j];
      if (!isCodeLine(candidate)) continue;
      if (indentOf(candidate) <= indent) break;
      body.push(j + 1);
    }
    return body;
  }

  /** A function by qualified name, or by simple name when only one function has it. */
  private find(name: string): FunctionLines {
    const exact = this.functions.get(name);
    if (exact) return exact;
    const candidates = this.bySimpleName.get(name) ?? [];
    if (candidates.length === 1) return this.functions.get(candidates[0])!;
    if (candidates.length > 1) throw new SourceKeyError(`'${name}' is ambiguous (${candidates.join(', ')})`);
    throw new SourceKeyError(`no function '${name}'`);
  }

  /** The 1-based line of `def function(`. */
  defLine(functionName: string): number {
    return this.find(functionName).def;
  }

  /** The first line of the function whose stripped text starts with the key's statement (after the `after` line, if given). */
  resolve(key: SourceKey): number {
    const f = this.find(key.function);
    let body = f.body;
    if (key.after !== undefined) {
      const after = key.after;
      const start = body.findIndex((n) => this.lines[n - 1].trim().startsWith(after));
      if (start < 0) throw new SourceKeyError(`no statement '${after}' in '${key.function}'`);
      body = body.slice(start + 1);
    }
    const line = body.find((n) => this.lines[n - 1].trim().startsWith(key.statement));
    if (line === undefined) throw new SourceKeyError(`no statement '${key.statement}' in '${key.function}'`);
    return line;
  }
}
