/**
 * A scratch copy of the tree for walking a recipe of CONTRIBUTING.md (test/unit/contributing.test.ts):
 * files written or edited over the checkout in memory, type-checked with the project's own compiler
 * settings (tsconfig.json, or webview/tsconfig.json for the pages), and built for running: the compiled
 * tree (`out/src`, `out/test/helpers`) copied into a folder under `out/`, with the changed files compiled
 * over it. Nothing in the checkout changes.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import ts from 'typescript';

/** Syntax trees of files that no walk changes (the libraries, the tree as it is), shared by every program. */
const unchanged = new Map<string, ts.SourceFile>();

/** One edit a walk makes: which recipe step it follows, the file, and the symbol the step names. */
export interface WalkEdit {
  readonly step: number;
  readonly file: string;
  readonly symbol?: string;
}

export class ScratchTree {
  private readonly overlay = new Map<string, string>();
  /** The edits made, in order (what the walk checks the recipe names). */
  readonly edits: WalkEdit[] = [];

  /** The edits left out (those of the step `skip`). */
  readonly skipped: WalkEdit[] = [];

  /** `skip`: a step of the recipe whose edits this tree leaves out (to show that the step is needed). */
  constructor(
    readonly root: string,
    private readonly skip?: number,
  ) {}

  /** Records an edit; false when its step is the one left out. */
  private record(edit: WalkEdit): boolean {
    if (edit.step === this.skip) {
      this.skipped.push(edit);
      return false;
    }
    this.edits.push(edit);
    return true;
  }

  /** The text of `file` (relative to the root) in this tree. */
  text(file: string): string {
    return this.overlay.get(path.join(this.root, file)) ?? readFileSync(path.join(this.root, file), 'utf8');
  }

  /** Whether `file` exists in this tree. */
  has(file: string): boolean {
    const abs = path.join(this.root, file);
    return this.overlay.has(abs) || ts.sys.fileExists(abs);
  }

  /** Writes a new file (step `step` of the recipe). */
  create(step: number, file: string, text: string, symbol?: string): this {
    if (this.record({ step, file, symbol })) this.overlay.set(path.join(this.root, file), text);
    return this;
  }

  /**
   * Inserts `text` after the first match of `anchor` in `file` (step `step`, at `symbol`). Fails when the
   * anchor is not there: the tree changed under the recipe, and the walk (and maybe the recipe) must follow.
   */
  insertAfter(step: number, file: string, anchor: string | RegExp, text: string, symbol?: string): this {
    const before = this.text(file);
    const match = typeof anchor === 'string' ? (before.includes(anchor) ? { index: before.indexOf(anchor), 0: anchor } : undefined) : anchor.exec(before);
    if (!match) throw new Error(`the walk's anchor ${String(anchor)} is not in ${file}: update the walk (and the recipe, if the step changed)`);
    const at = match.index + match[0].length;
    if (this.record({ step, file, symbol })) this.overlay.set(path.join(this.root, file), before.slice(0, at) + text + before.slice(at));
    return this;
  }

  /** Files this tree changes, relative to the root. */
  changed(): string[] {
    return [...this.overlay.keys()].map((f) => path.relative(this.root, f));
  }

  /**
   * Type errors in the changed TypeScript files and in those the left-out step would have changed, as
   * `file:line: message`, checked with `tsconfig` (relative to the root).
   */
  typeErrors(tsconfig = 'tsconfig.json'): string[] {
    const config = this.config(tsconfig);
    const scope = path.dirname(path.join(this.root, tsconfig));
    const webviews = path.join(this.root, 'webview') + path.sep;
    const files = new Set([...this.overlay.keys(), ...this.skipped.map((e) => path.join(this.root, e.file)).filter((f) => ts.sys.fileExists(f))]);
    const roots = [...files].filter((f) => f.endsWith('.ts') && f.startsWith(scope + path.sep) && (scope === this.root ? !f.startsWith(webviews) : true));
    const program = this.program(roots, { ...config.options, noEmit: true });
    const errors: string[] = [];
    for (const file of roots) {
      const source = program.getSourceFile(file)!;
      for (const d of [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)]) {
        const line = d.file && d.start !== undefined ? d.file.getLineAndCharacterOfPosition(d.start).line + 1 : 0;
        errors.push(`${path.relative(this.root, file)}:${line}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
      }
    }
    return errors;
  }

  /**
   * The tree built for running: a folder under `out/` holding the compiled tree with this tree's changed
   * TypeScript files compiled over it. `run` gets the compiled path of a file (`src/x.ts` -> `.../out/src/x.js`);
   * the folder is removed after it.
   */
  async built<T>(run: (compiled: (file: string) => string) => Promise<T>): Promise<T> {
    const out = path.join(this.root, 'out');
    // Under the checkout, so that compiled files find its node_modules.
    const dir = mkdtempSync(path.join(out, 'scratch-'));
    try {
      for (const part of ['src', path.join('test', 'helpers')]) cpSync(path.join(out, part), path.join(dir, 'out', part), { recursive: true });
      const config = this.config('tsconfig.json');
      const roots = [...this.overlay.keys()].filter((f) => f.endsWith('.ts') && !f.startsWith(path.join(this.root, 'webview') + path.sep));
      const program = this.program(roots, { ...config.options, noEmit: false, outDir: path.join(dir, 'out'), sourceMap: false, declaration: false });
      for (const file of roots) {
        const result = program.emit(program.getSourceFile(file));
        if (result.emitSkipped) throw new Error(`${file} was not compiled`);
      }
      return await run((file) => path.join(dir, 'out', file.replace(/\.ts$/, '.js')));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }

  /** The compiler settings of `tsconfig` (relative to the root). */
  private config(tsconfig: string): ts.ParsedCommandLine {
    const config = ts.getParsedCommandLineOfConfigFile(path.join(this.root, tsconfig), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined });
    if (!config) throw new Error(`cannot read ${tsconfig}`);
    return config;
  }

  private program(roots: readonly string[], options: ts.CompilerOptions): ts.Program {
    const host = ts.createCompilerHost(options);
    const overlay = this.overlay;
    host.getSourceFile = (fileName, language) => {
      const text = overlay.get(fileName);
      if (text !== undefined) return ts.createSourceFile(fileName, text, language);
      const key = `${fileName}\u0000${typeof language === 'object' ? language.languageVersion : language}`;
      let source = unchanged.get(key);
      if (!source) {
        const disk = ts.sys.readFile(fileName);
        if (disk === undefined) return undefined;
        source = ts.createSourceFile(fileName, disk, language);
        unchanged.set(key, source);
      }
      return source;
    };
    host.readFile = (fileName) => overlay.get(fileName) ?? ts.sys.readFile(fileName);
    host.fileExists = (fileName) => overlay.has(fileName) || ts.sys.fileExists(fileName);
    // A folder the walk creates (its first file is in the overlay) exists for module resolution too.
    host.directoryExists = (dir) => [...overlay.keys()].some((f) => f.startsWith(dir + path.sep)) || ts.sys.directoryExists(dir);
    return ts.createProgram(roots, options, host);
  }
}
