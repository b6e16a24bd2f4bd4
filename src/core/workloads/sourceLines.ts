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

/**
 * Indexes the functions of a Python file: for each `def name(` (any nesting, `async def` too) the
 * 1-based lines of its body, in order. A body ends at the first code line indented no deeper than the `def`.
 */
export class PythonSource {
  private readonly lines: readonly string[];
  private readonly functions = new Map<string, { def: number; body: number[] }>();

  constructor(text: string) {
    this.lines = text.split(/\r?\n/);
    const defPattern = /^\s*(?:async\s+)?def\s+([A-Za-z_]\w*)\s*\(/;
    this.lines.forEach((line, i) => {
      const match = defPattern.exec(line);
      if (!match || this.functions.has(match[1])) return;
      const indent = indentOf(line);
      const body: number[] = [];
      // Skip the rest of a multi-line signature: the body starts after the line ending with ':'.
      let j = i;
      while (j < this.lines.length && !/:\s*(#.*)?$/.test(this.lines[j])) j++;
      for (j = j + 1; j < this.lines.length; j++) {
        const candidate = this.lines[j];
        if (!isCodeLine(candidate)) continue;
        if (indentOf(candidate) <= indent) break;
        body.push(j + 1);
      }
      this.functions.set(match[1], { def: i + 1, body });
    });
  }

  /** The 1-based line of `def function(`. */
  defLine(functionName: string): number {
    const f = this.functions.get(functionName);
    if (!f) throw new SourceKeyError(`no function '${functionName}'`);
    return f.def;
  }

  /** The first line of the function whose stripped text starts with the key's statement. */
  resolve(key: SourceKey): number {
    const f = this.functions.get(key.function);
    if (!f) throw new SourceKeyError(`no function '${key.function}'`);
    const line = f.body.find((n) => this.lines[n - 1].trim().startsWith(key.statement));
    if (line === undefined) throw new SourceKeyError(`no statement '${key.statement}' in '${key.function}'`);
    return line;
  }
}
