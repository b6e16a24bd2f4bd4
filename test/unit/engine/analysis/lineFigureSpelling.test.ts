/**
 * Per-line figure keys are spelled only in the registry (src/engine/analysis/lineFigures.ts): every
 * other file under src/ and webview/ derives its lists from it and names a single figure through
 * `FIGURE`, so a new figure cannot be missed by a list written by hand. The test reads every source
 * file's syntax (comments are prose and may name a figure) and fails on a key written as a string,
 * as a name a type or a variable declares, or as a property read from a line's figures. A key that
 * is also the name of another figure would be told apart by the type checker (`ALSO_NAMES`): reading
 * that figure is fine, reading a line's is not.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { before, describe, it } from 'node:test';
import ts from 'typescript';
import { LINE_FIGURE_KEYS } from '../../../../src/engine/analysis/lineFigures';
import { repoRoot } from '../../../helpers/corpus';

const REGISTRY = path.join(repoRoot, 'src', 'engine', 'analysis', 'lineFigures.ts');

/**
 * Keys that also name a figure of another kind, which may be declared and read under that name (none
 * since the line's peak while allocating was renamed from the device's `peakBytes`).
 */
const ALSO_NAMES: Readonly<Record<string, string>> = {};

interface Occurrence {
  readonly file: string;
  readonly line: number;
  readonly key: string;
  readonly node: ts.Node;
  /** A property read or written whose owner the type checker must name. */
  readonly reference: boolean;
}

/** A file as a message names it: relative to the repository when it is in it. */
function shown(file: string): string {
  return file.startsWith(repoRoot) ? path.relative(repoRoot, file) : path.basename(file);
}

function sourceFiles(): string[] {
  return ['src', 'webview']
    .flatMap((dir) => readdirSync(path.join(repoRoot, dir), { recursive: true }).map((f) => path.join(repoRoot, dir, String(f))))
    .filter((f) => f.endsWith('.ts') && f !== REGISTRY)
    .sort();
}

/** Whether `node` (an identifier) is the name of something a declaration introduces. */
function isDeclaredName(node: ts.Identifier): boolean {
  const p = node.parent;
  return (
    (ts.isVariableDeclaration(p) ||
      ts.isParameter(p) ||
      ts.isPropertySignature(p) ||
      ts.isPropertyDeclaration(p) ||
      ts.isMethodSignature(p) ||
      ts.isMethodDeclaration(p) ||
      ts.isFunctionDeclaration(p) ||
      ts.isGetAccessorDeclaration(p) ||
      ts.isEnumMember(p) ||
      ts.isTypeAliasDeclaration(p) ||
      ts.isInterfaceDeclaration(p) ||
      ts.isClassDeclaration(p)) &&
    p.name === node
  );
}

/** Where a figure key is written in one file's syntax. */
function occurrences(file: string, keys: ReadonlySet<string>, sink: { occurrences: Occurrence[]; violations: string[] }): void {
  const text = readFileSync(file, 'utf8');
  if (![...keys].some((k) => text.includes(k))) return;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
  const where = (node: ts.Node) => `${shown(file)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteralLike(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) {
      for (const key of keys) if (new RegExp(`\\b${key}\\b`).test(node.text)) sink.violations.push(`${where(node)}: '${key}' written as a string`);
    } else if (ts.isIdentifier(node) && keys.has(node.text)) {
      const key = node.text;
      const line = source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
      if (isDeclaredName(node)) {
        if (!(key in ALSO_NAMES)) sink.violations.push(`${where(node)}: '${key}' declared`);
      } else {
        const p = node.parent;
        const reference =
          (ts.isPropertyAccessExpression(p) && p.name === node) ||
          (ts.isPropertyAssignment(p) && p.name === node) ||
          ts.isShorthandPropertyAssignment(p) ||
          (ts.isBindingElement(p) && (p.propertyName === node || (p.propertyName === undefined && p.name === node))) ||
          ts.isQualifiedName(p);
        // Anything else is a reference to a variable, whose declaration is checked where it is declared.
        if (reference) sink.occurrences.push({ file, line, key, node, reference });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}

/** Whether a property symbol is a per-line figure: declared by the registry's types (mapped, so with no declaration of its own). */
function isLineFigure(checker: ts.TypeChecker, symbol: ts.Symbol | undefined): boolean {
  if (symbol === undefined) return false;
  return checker.getRootSymbols(symbol).some((root) => {
    const declarations = root.getDeclarations() ?? [];
    return declarations.length === 0 || declarations.some((d) => path.resolve(d.getSourceFile().fileName) === REGISTRY);
  });
}

/**
 * Whether an occurrence reads or writes a line's figure by name. A property read is one when the type
 * checker resolves it to a registry figure or cannot resolve it at all; a property written in an object literal is one too unless
 * the object's type declares that name elsewhere (the device's peak) or takes any name (a record of
 * evidence): an object written without a type that knows the name is a hand-made row of figures.
 */
function isFigureByName(checker: ts.TypeChecker, node: ts.Identifier): boolean {
  const p = node.parent;
  const property = (type: ts.Type) => checker.getPropertyOfType(checker.getApparentType(type), node.text);
  if (ts.isPropertyAssignment(p) || ts.isShorthandPropertyAssignment(p)) {
    const type = checker.getContextualType(p.parent);
    if (type === undefined) return true;
    // Each object type the literal may be (`T | undefined` is T).
    const types = (type.isUnion() ? type.types : [type]).map((t) => checker.getApparentType(t)).filter((t) => (t.getFlags() & ts.TypeFlags.Object) !== 0);
    const declared = types.map(property).filter((s): s is ts.Symbol => s !== undefined);
    if (declared.length > 0) return declared.some((d) => isLineFigure(checker, d));
    return !types.some((t) => checker.getIndexInfosOfType(t).length > 0);
  }
  // A read the checker cannot place (from `any`) is spelled by hand too.
  const read = ts.isBindingElement(p) ? property(checker.getTypeAtLocation(p.parent)) : checker.getSymbolAtLocation(node);
  return read === undefined || isLineFigure(checker, read);
}

function misspellings(files: readonly string[], keys: readonly string[]): string[] {
  const sink = { occurrences: [] as Occurrence[], violations: [] as string[] };
  for (const file of files) occurrences(file, new Set(keys), sink);
  if (sink.occurrences.length > 0) {
    const program = ts.createProgram([...new Set(sink.occurrences.map((o) => o.file))], {
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.Node16,
      moduleResolution: ts.ModuleResolutionKind.Node16,
      // No DOM and no Node types: the properties asked about are the project's own.
      lib: ['lib.es2022.d.ts'],
      types: [],
      strict: true,
      skipLibCheck: true,
      noEmit: true,
    });
    const checker = program.getTypeChecker();
    for (const o of sink.occurrences) {
      // Re-find the node in the program's own syntax tree (the checker knows only its own nodes).
      const source = program.getSourceFile(o.file)!;
      const node = findIdentifier(source, o.node.getStart());
      if (node && isFigureByName(checker, node)) {
        sink.violations.push(`${shown(o.file)}:${o.line}: the line figure '${o.key}' read by name (use FIGURE or a list of the registry)`);
      }
    }
  }
  return sink.violations;
}

function findIdentifier(source: ts.SourceFile, start: number): ts.Identifier | undefined {
  let found: ts.Identifier | undefined;
  const visit = (node: ts.Node): void => {
    if (found || start < node.pos || start >= node.end) return;
    if (ts.isIdentifier(node) && node.getStart(source) === start) found = node;
    else ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** A file written by hand the way the registry forbids (and one way it allows), lines numbered from 1. */
const PLANTED = (analysis: string) =>
  [
    `import type { LineFigures } from '${analysis}/lines';`,
    `import type { DeviceReplay } from '${analysis}/replay';`,
    'export const byHand = (f: LineFigures) => f.allocBytes;',
    'export const linePeak = (f: LineFigures) => f.peakWhileAllocatingBytes;',
    'export const devicePeak = (d: DeviceReplay) => d.peakBytes;',
    "export const keyed = (f: LineFigures) => f['inclusiveAllocBytes'];",
    'export interface Row { readonly freedBytes: number; readonly peakBytes: number }',
    'export const literal = (v: number): Partial<LineFigures> => ({ peakWhileAllocatingBytes: v });',
    'export const untyped = (x: number) => ({ liveAtPeakBytes: x });',
    "export const evidence: Record<string, number> = { liveAtPeakBytes: 1, peakBytes: 2 };",
    'export const device: Partial<DeviceReplay> = { peakBytes: 3 };',
    'export const untypedRead = (row: any) => row.inclusivePeakWhileAllocatingBytes as number;',
    '',
  ].join('\n');

describe('per-line figure keys', () => {
  let tree: string[] = [];
  let planted: string[] = [];
  before(() => {
    // One type-checked program for the tree and a planted file (outside it, importing the real modules).
    const dir = mkdtempSync(path.join(tmpdir(), 'vram-lens-spelling-'));
    const file = path.join(dir, 'planted.ts');
    try {
      writeFileSync(file, PLANTED(path.join(repoRoot, 'src', 'engine', 'analysis')));
      const found = misspellings([...sourceFiles(), file], LINE_FIGURE_KEYS);
      planted = found.filter((v) => v.includes('planted.ts:'));
      tree = found.filter((v) => !v.includes('planted.ts:'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('are spelled only in the registry: nowhere else under src/ and webview/', () => {
    assert.deepEqual(tree, []);
  });

  it('the check finds a key spelled by hand, and tells a line figure from the device figure of the same name', () => {
    const at = (n: number) => planted.filter((v) => v.includes(`planted.ts:${n}:`)).length;
    assert.equal(at(3), 1, 'allocBytes read by name');
    assert.equal(at(4), 1, "a line's peakWhileAllocatingBytes read by name");
    assert.equal(at(5), 0, "the device's peakBytes is no line figure");
    assert.equal(at(6), 1, 'a key as a string');
    assert.equal(at(7), 1, 'freedBytes declared by hand (the device name peakBytes may be)');
    assert.equal(at(8), 1, "a line's peakWhileAllocatingBytes written in an object literal");
    assert.equal(at(9), 1, 'an object written by hand with a figure key and no type that knows it');
    assert.equal(at(10), 0, 'a record that takes any name (evidence) may use the word');
    assert.equal(at(11), 0, "the device's peak in an object of the device's type");
    assert.equal(at(12), 1, 'a key read from an untyped value');
    assert.equal(planted.length, 7, planted.join('\n'));
  });
});
