/**
 * A Python file as a syntax tree (@lezer/python): the statement on a line, what encloses it
 * (function, loop, `with` blocks, decorators) and whether gradient recording is switched off on
 * the way to it. Pure: text in, answers out; nothing in the text is ever run.
 */
import type { SyntaxNode, Tree } from '@lezer/common';
import { parser } from '@lezer/python';

/** How a grad-mode switch was written, and where. */
export interface GradModeSwitch {
  /** false: no_grad / inference_mode / set_grad_enabled(False); true: enable_grad / set_grad_enabled(True). */
  readonly enabled: boolean;
  /** `with`, `decorator` or `call` (a statement such as `torch.set_grad_enabled(False)` before the line). */
  readonly form: 'with' | 'decorator' | 'call';
  /** The switch as written (`torch.no_grad()`), one line. */
  readonly text: string;
  /** 1-based line of the switch. */
  readonly line: number;
}

const COMPOUND = new Set(['WithStatement', 'ForStatement', 'WhileStatement', 'IfStatement', 'TryStatement', 'FunctionDefinition', 'ClassDefinition', 'DecoratedStatement', 'MatchStatement']);

export class PythonSource {
  readonly tree: Tree;
  private readonly lineStarts: number[];

  private constructor(readonly text: string) {
    this.tree = parser.parse(text);
    this.lineStarts = [0];
    for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) this.lineStarts.push(i + 1);
  }

  static parse(text: string): PythonSource {
    return new PythonSource(text);
  }

  get lineCount(): number {
    return this.lineStarts.length;
  }

  /** Offset of the start of a 1-based line. */
  offsetOfLine(line: number): number {
    return this.lineStarts[Math.min(Math.max(line, 1), this.lineStarts.length) - 1];
  }

  /** 1-based line of an offset. */
  lineOf(offset: number): number {
    let lo = 0;
    let hi = this.lineStarts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.lineStarts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  }

  /** 0-based column of an offset. */
  columnOf(offset: number): number {
    return offset - this.lineStarts[this.lineOf(offset) - 1];
  }

  textOf(node: SyntaxNode): string {
    return this.text.slice(node.from, node.to);
  }

  /** Syntax errors in the whole file. */
  get errorCount(): number {
    let errors = 0;
    this.tree.iterate({
      enter: (n) => {
        if (n.type.isError) errors++;
      },
    });
    return errors;
  }

  /**
   * The innermost statement that a 1-based line belongs to (a line inside a multi-line call belongs
   * to that call's statement; the header line of a `with`/`for`/`def` to that compound statement).
   */
  statementAt(line: number): SyntaxNode | undefined {
    if (line < 1 || line > this.lineStarts.length) return undefined;
    const start = this.offsetOfLine(line);
    const end = line < this.lineStarts.length ? this.lineStarts[line] - 1 : this.text.length;
    let pos = start;
    while (pos < end && (this.text[pos] === ' ' || this.text[pos] === '\t')) pos++;
    if (pos >= end || this.text[pos] === '#') return undefined;
    for (let node: SyntaxNode | null = this.tree.resolveInner(pos, 1); node; node = node.parent) {
      if (node.name === 'Decorator') return node.parent ?? undefined;
      if (node.name.endsWith('Statement') || node.name === 'FunctionDefinition' || node.name === 'ClassDefinition') return node;
    }
    return undefined;
  }

  /** Whether the node is a compound statement (has a body). */
  static isCompound(node: SyntaxNode): boolean {
    return COMPOUND.has(node.name);
  }

  /** The function definitions enclosing a node, innermost first. */
  enclosingFunctions(node: SyntaxNode): SyntaxNode[] {
    const out: SyntaxNode[] = [];
    for (let n = node.parent; n; n = n.parent) if (n.name === 'FunctionDefinition') out.push(n);
    return out;
  }

  /** The innermost `for`/`while` loop around a node inside its own function, if any. */
  enclosingLoop(node: SyntaxNode): SyntaxNode | undefined {
    for (let n = node.parent; n; n = n.parent) {
      if (n.name === 'ForStatement' || n.name === 'WhileStatement') return n;
      if (n.name === 'FunctionDefinition' || n.name === 'ClassDefinition') return undefined;
    }
    return undefined;
  }

  /** Whether the module imports `torch` itself (`import torch`, `import torch as t`): the name it is bound to. */
  torchName(): string | undefined {
    for (let n = this.tree.topNode.firstChild; n; n = n.nextSibling) {
      if (n.name !== 'ImportStatement') continue;
      const m = /^import\s+(.+)$/.exec(this.textOf(n).replace(/\s+/g, ' ').trim());
      if (!m) continue;
      for (const part of m[1].split(',')) {
        const p = /^\s*torch(?:\s+as\s+([A-Za-z_]\w*))?\s*$/.exec(part);
        if (p) return p[1] ?? 'torch';
      }
    }
    return undefined;
  }

  /**
   * The grad-mode switch in force at a 1-based line, looking outward from it: `with` blocks around
   * it, decorators of the functions it is in, and switch calls earlier in each enclosing body
   * (e.g. `torch.set_grad_enabled(False)` at the top of a script). The innermost one decides.
   */
  gradModeAt(line: number): GradModeSwitch | undefined {
    const statement = this.statementAt(line);
    if (!statement) return undefined;
    let child: SyntaxNode = statement;
    for (let n = statement.parent; n; child = n, n = n.parent) {
      if (n.name === 'Body' || n.name === 'Script') {
        // Earlier statements of this body: the last switch call before `child` is in force.
        let found: GradModeSwitch | undefined;
        for (let s = n.firstChild; s && s.from < child.from; s = s.nextSibling) {
          if (s.name !== 'ExpressionStatement') continue;
          const call = s.firstChild;
          const sw = call && call.name === 'CallExpression' ? this.switchOf(call, 'call') : undefined;
          if (sw) found = sw;
        }
        if (found) return found;
        continue;
      }
      if (n.name === 'WithStatement' && child.name === 'Body') {
        // `with a(), b():` the items are the header's expressions; the innermost decisive one wins.
        let found: GradModeSwitch | undefined;
        for (let c = n.firstChild; c && c.name !== 'Body'; c = c.nextSibling) {
          if (c.name === 'CallExpression') found = this.switchOf(c, 'with') ?? found;
        }
        if (found) return found;
      }
      if (n.name === 'FunctionDefinition' && n.parent?.name === 'DecoratedStatement') {
        let found: GradModeSwitch | undefined;
        for (const d of n.parent.getChildren('Decorator')) found = this.decoratorSwitch(d) ?? found;
        // Decorators apply outermost first, so the one nearest `def` is the innermost.
        if (found) return found;
      }
    }
    return undefined;
  }

  private decoratorSwitch(decorator: SyntaxNode): GradModeSwitch | undefined {
    const text = this.textOf(decorator).replace(/^@\s*/, '').trim();
    const m = /^([A-Za-z_][\w.]*)\s*(\((.*)\))?$/s.exec(text);
    if (!m) return undefined;
    return switchFromCallee(m[1], m[3] ?? '', m[2] !== undefined, 'decorator', text, this.lineOf(decorator.from));
  }

  private switchOf(call: SyntaxNode, form: GradModeSwitch['form']): GradModeSwitch | undefined {
    const callee = call.firstChild;
    const args = call.getChild('ArgList');
    if (!callee || !args) return undefined;
    const argText = this.text.slice(args.from + 1, args.to - 1);
    return switchFromCallee(this.textOf(callee), argText, true, form, this.textOf(call).replace(/\s+/g, ' '), this.lineOf(call.from));
  }
}

function switchFromCallee(callee: string, args: string, called: boolean, form: GradModeSwitch['form'], text: string, line: number): GradModeSwitch | undefined {
  const name = callee.replace(/\s+/g, '').split('.').pop() ?? '';
  const arg = args.trim().replace(/^mode\s*=\s*/, '');
  const make = (enabled: boolean): GradModeSwitch => ({ enabled, form, text, line });
  switch (name) {
    case 'no_grad':
      return make(false);
    case 'enable_grad':
      return make(true);
    case 'inference_mode':
      // inference_mode(False) leaves grad mode as it is.
      return arg === '' || arg === 'True' || !called ? make(false) : undefined;
    case 'set_grad_enabled':
    case '_set_grad_enabled':
      if (arg === 'False') return make(false);
      if (arg === 'True') return make(true);
      return undefined;
    default:
      return undefined;
  }
}
