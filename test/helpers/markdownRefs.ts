/**
 * What a Markdown document names, checked against the tree: every backticked path, npm script, setting,
 * package and symbol, and every link. Used by test/unit/contributing.test.ts on CONTRIBUTING.md.
 *
 * A document is read in blocks (a paragraph, a list item, a table row, a heading) under sections (the
 * latest heading of level 2 or 3). A backticked token is:
 * - a command (it has a space): `npm run x` names a script of package.json, `bash f` / `sh f` / `node f` a
 *   file; anything else (`mypy --strict`) is prose;
 * - a path (it has a slash or a file ending): it exists in the repository (`../` paths beside it; relative
 *   ones under a folder the same block names), or lies under a folder the build or a test makes (`dist/`,
 *   `out/`, ...); with `<placeholders>` or `*`, a file matches it or its literal folder exists; a path that
 *   is not in the tree (one inside the VSIX) must be written in a file the block names;
 * - a setting (`vramLens.x.y`, `vramLens.x.*`) of package.json, or a key path of it (`contributes.x`);
 * - a package (`vscode`, `@lezer/common`) layers.cjs lists;
 * - an environment variable (`UPPER_CASE`) a named file reads (`env.NAME`);
 * - a symbol (`name`, `Name.member`, `name(...)`): declared in a TypeScript, JavaScript or Python file the
 *   same block names (else one its section names), at its top level or as a member, or a string a
 *   union spells; `vscode.x.y` in VS Code's API; a name with `<Placeholder>` must match a declaration of
 *   a file the block's paths match;
 * - a quoted string (`'sum'`): a string literal of a file the block (or section) names;
 * - anything else (`no-restricted-imports`): written in a file the block (or section) names.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import * as path from 'node:path';
import ts from 'typescript';

export interface Block {
  readonly text: string;
  /** 1-based line of the block's first line. */
  readonly line: number;
  readonly section: string;
}

/** The blocks of a Markdown text, code fences left out. */
export function markdownBlocks(markdown: string): Block[] {
  const blocks: Block[] = [];
  let section = '';
  let current: { lines: string[]; line: number } | undefined;
  let fenced = false;
  const flush = () => {
    if (current) blocks.push({ text: current.lines.join('\n'), line: current.line, section });
    current = undefined;
  };
  markdown.split('\n').forEach((raw, i) => {
    const line = raw.trimEnd();
    if (/^\s*```/.test(line)) {
      flush();
      fenced = !fenced;
      return;
    }
    if (fenced) return;
    const heading = /^(#{1,6})\s+(.*)$/.exec(line);
    if (heading) {
      flush();
      if (heading[1].length <= 3) section = heading[2];
      blocks.push({ text: heading[2], line: i + 1, section });
      return;
    }
    if (line.trim() === '') return flush();
    if (/^\s*\|/.test(line)) {
      flush();
      if (!/^\s*\|[\s|:-]+\|\s*$/.test(line)) blocks.push({ text: line, line: i + 1, section });
      return;
    }
    if (/^\s*(\d+\.|[-*])\s/.test(line)) flush();
    if (!current) current = { lines: [], line: i + 1 };
    current.lines.push(line);
  });
  flush();
  return blocks;
}

/** The backticked spans of a block (inline code), in order. */
export function codeSpans(text: string): string[] {
  return [...text.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]);
}

/** The link targets of a block (`[words](target)`), without anchors. */
export function linkTargets(text: string): string[] {
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1].replace(/#.*$/, '')).filter((t) => t !== '' && !/^[a-z]+:/.test(t));
}

/** Folders that the build, the tests or the setup scripts make: what is named under them need not exist in a checkout. */
const MADE = ['dist/', 'out/', 'test-results/', '.e2e/', '.models/', 'node_modules/'];

/** Words of other languages and tools that a document may backtick without a file of ours declaring them. */
export const FOREIGN_WORDS: ReadonlySet<string> = new Set([
  // Python's typing names the bootstrap imports under TYPE_CHECKING (CONTRIBUTING: "Python").
  'typing',
  'typing_extensions',
  'Literal',
  'TypedDict',
  'Protocol',
  'Any',
]);

const FILE_ENDING = /\.(ts|tsx|js|mjs|cjs|json|md|py|css|sh|cfg|pickle|txt|toml|yml|yaml)$/;

/** A regular expression's source for a name or path with `<placeholders>` or `*`: each stands for `wildcard`. */
export function templatePattern(template: string, wildcard: string): string {
  return template
    .split(/(<[^>]*>|\*)/)
    .map((part) => (part.startsWith('<') || part === '*' ? wildcard : part.replace(/[.+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
}

/** What one file declares, for the symbol check. */
interface Declarations {
  /** Names declared at the top level (or imported, for Python). */
  readonly top: ReadonlySet<string>;
  /** Names of members (properties, methods, enum members, object keys) anywhere in the file. */
  readonly members: ReadonlySet<string>;
  /** String literals anywhere in the file. */
  readonly strings: ReadonlySet<string>;
  readonly text: string;
}

export class ReferenceChecker {
  private readonly declarations = new Map<string, Declarations>();
  private readonly manifest: { scripts: Record<string, string>; contributes: { configuration: { properties: Record<string, unknown> } } } & Record<string, unknown>;
  private readonly packages: ReadonlySet<string>;

  constructor(readonly root: string) {
    this.manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as typeof this.manifest;
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const layers = require(path.join(root, 'layers.cjs')) as { PACKAGES: Record<string, string[]> };
    this.packages = new Set(Object.values(layers.PACKAGES).flat());
  }

  /** Every problem with what `markdown` names, as `line N: ...`. */
  check(markdown: string): string[] {
    const problems: string[] = [];
    const blocks = markdownBlocks(markdown);
    const sectionFiles = new Map<string, string[]>();
    for (const b of blocks) {
      const files = this.namedFiles(b.text);
      sectionFiles.set(b.section, [...(sectionFiles.get(b.section) ?? []), ...files]);
    }
    for (const b of blocks) {
      const inBlock = this.namedFiles(b.text);
      const context = { block: b, files: inBlock, folders: this.namedFolders(b.text), section: sectionFiles.get(b.section) ?? [] };
      for (const token of codeSpans(b.text)) {
        const problem = this.checkToken(token, context);
        if (problem) problems.push(`line ${b.line}: \`${token}\`: ${problem}`);
      }
      for (const target of linkTargets(b.text)) {
        if (!existsSync(path.join(this.root, target))) problems.push(`line ${b.line}: link ${target}: no such file`);
      }
    }
    return problems;
  }

  /** Files of the repository the block names by path (a folder stands for nothing; a pattern for every file it matches). */
  private namedFiles(text: string): string[] {
    const files: string[] = [];
    for (const token of codeSpans(text)) {
      if (!this.isPath(token)) continue;
      if (/[<*]/.test(token)) files.push(...this.matching(token));
      else {
        const file = path.join(this.root, token);
        if (existsSync(file) && statSync(file).isFile()) files.push(file);
      }
    }
    return files;
  }

  private namedFolders(text: string): string[] {
    return codeSpans(text)
      .filter((t) => this.isPath(t) && !/[<*]/.test(t))
      .map((t) => path.join(this.root, t))
      .filter((p) => existsSync(p))
      .map((p) => (statSync(p).isDirectory() ? p : path.dirname(p)));
  }

  private isPath(token: string): boolean {
    if (/\s/.test(token) || token.startsWith('@') || token.startsWith('node:')) return false;
    return token.includes('/') || FILE_ENDING.test(token);
  }

  /** Files of the tree that a path with `<placeholders>` or `*` matches. */
  private matching(pattern: string): string[] {
    const literal = pattern.split(/[<*]/)[0];
    if (!literal.includes('/')) return [];
    const folder = path.join(this.root, literal.slice(0, literal.lastIndexOf('/') + 1));
    if (!existsSync(folder) || !statSync(folder).isDirectory()) return [];
    const re = new RegExp(`^${templatePattern(pattern, '[^/]+')}$`);
    return readdirSync(folder, { recursive: true })
      .map((f) => path.join(folder, String(f)))
      .filter((f) => re.test(path.relative(this.root, f).split(path.sep).join('/')) && statSync(f).isFile());
  }

  private checkToken(token: string, context: { block: Block; files: string[]; folders: string[]; section: string[] }): string | undefined {
    const { files, folders, section } = context;
    const named = files.length > 0 ? files : section;
    const quoted = /^'([^']*)'$/.exec(token);
    if (quoted) return named.some((f) => this.read(f).strings.has(quoted[1])) ? undefined : 'no file named beside it has this string';
    if (/\s/.test(token)) return this.checkCommand(token);
    if (this.isPath(token)) return this.checkPath(token, files, folders);
    if (token.startsWith('vramLens.')) return this.checkSetting(token);
    if (token.startsWith('contributes.')) return this.jsonPath(token) ? undefined : 'not a key of package.json';
    if (this.packages.has(token) || /^@[\w-]+\/[\w-]+$/.test(token)) return this.packages.has(token) ? undefined : 'not a package layers.cjs lists';
    if (token === 'node:*') return undefined;
    if (/^[A-Z][A-Z0-9]*(_[A-Z0-9]+)+$/.test(token) && !this.anyDeclares(named, token)) {
      return named.some((f) => this.read(f).text.includes(`env.${token}`)) ? undefined : 'no file named beside it declares or reads it';
    }
    if (FOREIGN_WORDS.has(token)) return undefined;
    const symbol = /^([A-Za-z_$<>][\w$<>*]*(?:\.[\w$<>*]+)*)(?:\(.*\))?$/.exec(token);
    if (symbol) return this.checkSymbol(symbol[1], files, section);
    return named.some((f) => this.read(f).text.includes(token)) ? undefined : 'not written in any file named beside it';
  }

  private checkCommand(token: string): string | undefined {
    const [word, ...rest] = token.split(/\s+/);
    if (word === 'npm') {
      const script = rest[0] === 'run' ? rest[1] : rest[0];
      if (rest[0] === 'ci') return undefined;
      return script !== undefined && script in this.manifest.scripts ? undefined : `package.json has no script ${script}`;
    }
    if ((word === 'bash' || word === 'sh' || word === 'node') && rest.length > 0 && this.isPath(rest[0])) return this.checkPath(rest[0], [], []);
    return undefined;
  }

  private checkPath(token: string, files: readonly string[], folders: readonly string[]): string | undefined {
    const relative = token.replace(/\/$/, '');
    if (MADE.some((m) => token.startsWith(m))) return undefined;
    if (relative.startsWith('../')) {
      const beside = path.resolve(this.root, relative);
      // The corpus and the spec live beside the checkout; a checkout without them skips what reads them.
      if (!existsSync(path.resolve(this.root, relative.split('/').slice(0, 2).join('/')))) return undefined;
      return existsSync(beside) ? undefined : 'no such file beside the checkout';
    }
    if (/[<*]/.test(token)) {
      // A name pattern (`<subject>.test.ts`) says how files are named, not where one is.
      if (!token.includes('/') || this.matching(token).length > 0 || token.endsWith('/')) return undefined;
      const folder = token.split(/[<*]/)[0].replace(/[^/]*$/, '');
      if (folder !== '' && existsSync(path.join(this.root, folder))) return undefined;
      const re = new RegExp(templatePattern(token, '[\\w.-]+'));
      return files.some((f) => re.test(this.read(f).text)) ? undefined : 'matches no file, and its folder does not exist';
    }
    if (existsSync(path.join(this.root, relative))) return undefined;
    if (folders.some((folder) => existsSync(path.join(folder, relative)))) return undefined;
    if (files.some((f) => this.read(f).text.includes(token))) return undefined;
    return 'no such file';
  }

  private checkSetting(token: string): string | undefined {
    const properties = Object.keys(this.manifest.contributes.configuration.properties);
    if (token.endsWith('.*')) return properties.some((p) => p.startsWith(token.slice(0, -1))) ? undefined : 'package.json has no such settings';
    return properties.includes(token) ? undefined : 'package.json has no such setting';
  }

  private jsonPath(token: string): boolean {
    let value: unknown = this.manifest;
    for (const key of token.split('.')) {
      if (typeof value !== 'object' || value === null || !(key in value)) return false;
      value = (value as Record<string, unknown>)[key];
    }
    return true;
  }

  private anyDeclares(files: readonly string[], name: string): boolean {
    return files.some((f) => {
      const d = this.read(f);
      return d.top.has(name) || d.members.has(name);
    });
  }

  private checkSymbol(symbol: string, files: readonly string[], section: readonly string[]): string | undefined {
    const parts = symbol.split('.');
    if (parts[0] === 'vscode') {
      const api = this.read(path.join(this.root, 'node_modules', '@types', 'vscode', 'index.d.ts'));
      const missing = parts.slice(1).filter((p) => !api.top.has(p) && !api.members.has(p));
      return missing.length === 0 ? undefined : `not in VS Code's API: ${missing.join(', ')}`;
    }
    if (symbol.includes('<') || symbol.includes('*')) {
      // A name pattern (`isHostTo<Page>`, `EXIT_*`): a declaration of the block's files must match it.
      const re = new RegExp(`^${templatePattern(symbol, '[A-Za-z0-9_]+')}$`);
      const candidates = files.length > 0 ? files : section;
      return candidates.some((f) => [...this.read(f).top].some((n) => re.test(n))) ? undefined : 'matches no declaration of the files named beside it';
    }
    const declares = (f: string) => {
      const d = this.read(f);
      const [head, ...members] = parts;
      if (!d.top.has(head) && !d.members.has(head) && !(members.length === 0 && d.strings.has(head))) return false;
      return members.every((m) => d.members.has(m));
    };
    if (files.some(declares)) return undefined;
    if (section.some(declares)) return undefined;
    return files.length + section.length === 0 ? 'no file is named beside it' : 'declared in none of the files named beside it';
  }

  /** What `file` declares (parsed once). */
  private read(file: string): Declarations {
    let d = this.declarations.get(file);
    if (!d) {
      const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
      d = file.endsWith('.py') ? pythonDeclarations(text) : /\.(ts|mjs|cjs|js)$/.test(file) ? scriptDeclarations(file, text) : { top: new Set(), members: new Set(), strings: new Set(), text };
      this.declarations.set(file, d);
    }
    return d;
  }
}

function scriptDeclarations(file: string, text: string): Declarations {
  const kind = file.endsWith('.ts') ? ts.ScriptKind.TS : ts.ScriptKind.JS;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true, kind);
  const top = new Set<string>();
  const members = new Set<string>();
  const strings = new Set<string>();
  const nameOf = (n: ts.Node | undefined) => (n && (ts.isIdentifier(n) || ts.isStringLiteral(n) || ts.isPrivateIdentifier(n)) ? n.text.replace(/^#/, '') : undefined);
  for (const st of source.statements) {
    if (ts.isVariableStatement(st)) for (const d of st.declarationList.declarations) top.add(nameOf(d.name) ?? '');
    else if (ts.isExportDeclaration(st) && st.exportClause && ts.isNamedExports(st.exportClause)) for (const e of st.exportClause.elements) top.add(e.name.text);
    else if (ts.isFunctionDeclaration(st) || ts.isClassDeclaration(st) || ts.isInterfaceDeclaration(st) || ts.isTypeAliasDeclaration(st) || ts.isEnumDeclaration(st) || ts.isModuleDeclaration(st)) {
      top.add(nameOf(st.name) ?? '');
    }
  }
  const visit = (n: ts.Node): void => {
    if (
      ts.isPropertySignature(n) ||
      ts.isPropertyDeclaration(n) ||
      ts.isMethodSignature(n) ||
      ts.isMethodDeclaration(n) ||
      ts.isPropertyAssignment(n) ||
      ts.isShorthandPropertyAssignment(n) ||
      ts.isEnumMember(n) ||
      ts.isGetAccessorDeclaration(n) ||
      ts.isSetAccessorDeclaration(n) ||
      // Declarations inside namespaces (`vscode.workspace.getConfiguration`).
      ((ts.isFunctionDeclaration(n) || ts.isClassDeclaration(n) || ts.isInterfaceDeclaration(n) || ts.isModuleDeclaration(n) || ts.isVariableDeclaration(n)) && n.parent !== source)
    ) {
      const name = nameOf(n.name);
      if (name) members.add(name);
    }
    if (ts.isStringLiteralLike(n)) strings.add(n.text);
    ts.forEachChild(n, visit);
  };
  visit(source);
  top.delete('');
  return { top, members, strings, text };
}

function pythonDeclarations(text: string): Declarations {
  const top = new Set<string>();
  const members = new Set<string>();
  const strings = new Set<string>();
  for (const line of text.split('\n')) {
    const indent = /^\s*/.exec(line)![0].length;
    const def = /^\s*(?:async\s+)?(?:def|class)\s+(\w+)/.exec(line);
    const assigned = /^\s*(\w+)\s*(?::[^=]+)?=/.exec(line);
    const imported = /^\s*from\s+\S+\s+import\s+(.+)$/.exec(line) ?? /^\s*import\s+(.+)$/.exec(line);
    const names = def ? [def[1]] : assigned ? [assigned[1]] : imported ? imported[1].split(',').map((n) => n.trim().split(/\s+as\s+/).pop()!.replace(/[()]/g, '')) : [];
    for (const name of names) (indent === 0 || imported ? top : members).add(name);
    for (const m of line.matchAll(/"([^"\\]*)"|'([^'\\]*)'/g)) strings.add(m[1] ?? m[2]);
  }
  return { top, members, strings, text };
}
