/**
 * The lint config enforces the layers of layers.cjs: an import planted across every arrow the table
 * forbids fails lint, and one planted along every arrow it allows passes (so the test tells a rule from no
 * rule). The pairs are generated from the same table the config is built from, so a rule cannot be missing.
 * The tree itself is held to the table too: every engine folder has a rank, the engine has no loose files,
 * and every package the sources import has a kind.
 */
import * as assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { ESLint } from 'eslint';

const root = path.resolve(__dirname, '..', '..', '..');

interface LayerTable {
  LAYERS: Record<string, { folder: string; may: string[]; typesOnly?: boolean; runsOnlyFrom?: string[] }>;
  PACKAGES: Record<string, string[]>;
  NODE_BUILTINS: string[];
  ENGINE_RANKS: Record<string, number>;
  TARGET_KINDS: string[];
  forbiddenTargets(layer: string): string[];
  forbiddenEngineFolders(folder: string): string[];
}
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the table is CommonJS so that both eslint.config.mjs and this test read it
const table = require(path.join(root, 'layers.cjs')) as LayerTable;

// Only the layer rule runs, without type information, so files that do not exist can be linted.
const eslint = new ESLint({
  cwd: root,
  overrideConfig: [{ files: ['**/*.ts'], languageOptions: { parserOptions: { projectService: false, project: null } } }],
  ruleFilter: ({ ruleId }) => ruleId === 'no-restricted-imports',
});

async function importErrors(file: string, specifier: string): Promise<string[]> {
  const [result] = await eslint.lintText(`import { x } from '${specifier}';\nexport const y = x;\n`, { filePath: path.join(root, file) });
  return result.messages.map((m) => `${m.ruleId ?? 'fatal'}: ${m.message}`);
}

function relative(fromFile: string, toFile: string): string {
  const rel = path.posix.relative(path.posix.dirname(fromFile), toFile);
  return rel.startsWith('.') ? rel : `./${rel}`;
}

/** The files a layer's imports are planted in: one per engine folder (each has its own rule), else one. */
function plantedFiles(layer: string): string[] {
  const folder = table.LAYERS[layer].folder;
  if (layer === 'engine') return Object.keys(table.ENGINE_RANKS).map((f) => `${folder}/${f}/planted.ts`);
  return [`${folder}/sub/planted.ts`];
}

/** Specifiers that reach `target` from `file`. */
function specifiersOf(file: string, target: string): string[] {
  if (target in table.LAYERS) return [relative(file, `${table.LAYERS[target].folder}/elsewhere/planted`)];
  if (target === 'node') return ['node:fs', 'fs', 'node:child_process', 'worker_threads'];
  return table.PACKAGES[target].flatMap((name) => [name, `${name}/dist/part.js`]);
}

const forbidden: [file: string, specifier: string][] = [];
const allowed: [file: string, specifier: string][] = [];
for (const layer of Object.keys(table.LAYERS)) {
  for (const file of plantedFiles(layer)) {
    for (const target of table.forbiddenTargets(layer)) for (const s of specifiersOf(file, target)) forbidden.push([file, s]);
    for (const target of table.LAYERS[layer].may) {
      if (target === layer) continue; // within a layer: the engine's order is planted below
      allowed.push([file, specifiersOf(file, target)[0]]);
    }
  }
}
for (const folder of Object.keys(table.ENGINE_RANKS)) {
  const file = `src/engine/${folder}/planted.ts`;
  for (const other of table.forbiddenEngineFolders(folder)) forbidden.push([file, `../${other}/planted`]);
  for (const other of Object.keys(table.ENGINE_RANKS)) {
    if (table.ENGINE_RANKS[other] < table.ENGINE_RANKS[folder]) allowed.push([file, `../${other}/planted`]);
  }
  allowed.push([file, './sibling']);
}

describe('lint enforces the layers (layers.cjs)', () => {
  it('the table forbids what the brief forbids', () => {
    // Spelled out here, independently of the table: the arrows that must never exist.
    const mustForbid: [string, string][] = [
      ['engine', 'node'], ['engine', 'native'], ['engine', 'vscode'], ['engine', 'runtime'], ['engine', 'protocol'],
      ['engine', 'extension'], ['engine', 'cli'], ['engine', 'webview'], ['engine', 'browser'],
      ['protocol', 'node'], ['protocol', 'runtime'], ['protocol', 'vscode'], ['protocol', 'extension'], ['protocol', 'webview'],
      ['runtime', 'vscode'], ['runtime', 'extension'], ['runtime', 'cli'], ['runtime', 'webview'],
      ['cli', 'vscode'], ['cli', 'extension'], ['cli', 'webview'],
      ['extension', 'cli'], ['extension', 'webview'],
      ['webview', 'node'], ['webview', 'native'], ['webview', 'vscode'], ['webview', 'runtime'], ['webview', 'extension'], ['webview', 'cli'],
      ['engine', 'guards'], ['protocol', 'guards'], ['cli', 'guards'],
      ['guards', 'node'], ['guards', 'vscode'], ['guards', 'engine'], ['guards', 'runtime'], ['guards', 'extension'], ['guards', 'cli'], ['guards', 'webview'],
    ];
    for (const [from, to] of mustForbid) assert.ok(table.forbiddenTargets(from).includes(to), `${from} -> ${to} is not forbidden`);
    assert.ok(forbidden.length > 150, `only ${forbidden.length} planted imports`);
    // The protocols hold types alone, and the webviews take no types from the engine.
    assert.equal(table.LAYERS.protocol.typesOnly, true);
    assert.deepEqual(table.LAYERS.webview.runsOnlyFrom, ['engine']);
  });

  for (const [file, specifier] of forbidden) {
    it(`refuses ${specifier} in ${file}`, async () => {
      const errors = await importErrors(file, specifier);
      assert.equal(errors.length, 1, errors.join('\n'));
      assert.match(errors[0], /^no-restricted-imports: /);
    });
  }
  for (const [file, specifier] of allowed) {
    it(`accepts ${specifier} in ${file}`, async () => {
      assert.deepEqual(await importErrors(file, specifier), []);
    });
  }
});

// Only the syntax rule runs, without type information (as above).
const syntaxLint = new ESLint({
  cwd: root,
  overrideConfig: [{ files: ['**/*.ts'], languageOptions: { parserOptions: { projectService: false, project: null } } }],
  ruleFilter: ({ ruleId }) => ruleId === 'no-restricted-syntax',
});

async function syntaxErrors(file: string, text: string): Promise<string[]> {
  const [result] = await syntaxLint.lintText(text, { filePath: path.join(root, file) });
  return result.messages.map((m) => `${m.ruleId ?? 'fatal'}: ${m.message}`);
}

/** Running code of every kind a module can hold, each planted alone: a types-only layer refuses each. */
const RUNNING_CODE: readonly string[] = [
  'export const limit = 500;\n',
  'const limit = 500;\nexport type Limit = typeof limit;\n',
  'export function check(value: unknown): boolean {\n  return value !== null;\n}\n',
  'export class Splitter {}\n',
  'export enum Kind {\n  a,\n}\n',
  'export default 1;\n',
  "export { limit } from './elsewhere';\n",
  "export * from './elsewhere';\n",
  "import './elsewhere';\n",
];
/** What a types-only module holds: types, imported and exported as types. */
const TYPES_ALONE = `import type { A } from './elsewhere';
export type { B } from './elsewhere';
export type * from './other';
export interface Message {
  readonly type: 'ready';
  readonly a: A;
}
type Local = { readonly x: number };
export type Both = Message | Local;
`;

describe('lint holds what a layer may hold besides its imports (layers.cjs: typesOnly, runsOnlyFrom)', () => {
  for (const layer of Object.keys(table.LAYERS).filter((l) => table.LAYERS[l].typesOnly)) {
    const file = `${table.LAYERS[layer].folder}/sub/planted.ts`;
    for (const code of RUNNING_CODE) {
      it(`refuses running code in ${file}: ${code.split('\n')[0]}`, async () => {
        const errors = await syntaxErrors(file, code);
        assert.ok(errors.length >= 1 && errors.every((e) => e.startsWith('no-restricted-syntax: ')), errors.join('\n'));
      });
    }
    it(`refuses a value import in ${file}, even of types only`, async () => {
      for (const text of ["import { a } from '../../engine/x';\nexport type A = typeof a;\n", "import { type A } from '../../engine/x';\nexport type B = A;\n"]) {
        assert.equal((await syntaxErrors(file, text)).length, 1, text);
      }
    });
    it(`accepts types alone in ${file}`, async () => {
      assert.deepEqual(await syntaxErrors(file, TYPES_ALONE), []);
    });
  }
  for (const layer of Object.keys(table.LAYERS)) {
    for (const target of table.LAYERS[layer].runsOnlyFrom ?? []) {
      const file = `${table.LAYERS[layer].folder}/sub/planted.ts`;
      const from = relative(file, `${table.LAYERS[target].folder}/elsewhere/planted`);
      it(`refuses an import of types alone from ${target} in ${file}`, async () => {
        for (const text of [`import type { A } from '${from}';\nexport const y: A = 1;\n`, `import { type A } from '${from}';\nexport const y: A = 1;\n`, `import '${from}';\n`]) {
          assert.equal((await syntaxErrors(file, text)).length, 1, text);
        }
      });
      it(`accepts an import of code from ${target} in ${file}, with the types that go with it`, async () => {
        for (const text of [`import { b, type A } from '${from}';\nexport const y: A = b;\n`, `import * as e from '${from}';\nexport const y = e;\n`]) {
          assert.deepEqual(await syntaxErrors(file, text), [], text);
        }
        const protocol = relative(file, `${table.LAYERS.protocol.folder}/elsewhere/planted`);
        assert.deepEqual(await syntaxErrors(file, `import type { A } from '${protocol}';\nexport const y: A = 1;\n`), []);
      });
    }
  }
});

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? walk(full) : [full];
  });
}

describe('the tree follows the table', () => {
  it('every folder of src/engine has a rank, and the engine has no loose files', () => {
    const engine = path.join(root, 'src', 'engine');
    const entries = readdirSync(engine);
    assert.deepEqual(entries.filter((e) => !statSync(path.join(engine, e)).isDirectory()), []);
    for (const folder of entries) assert.ok(folder in table.ENGINE_RANKS, `src/engine/${folder} has no rank in layers.cjs`);
  });

  it('every folder of src/ is a layer (or the Python package)', () => {
    const folders = readdirSync(path.join(root, 'src')).filter((e) => statSync(path.join(root, 'src', e)).isDirectory());
    const layers = new Set(Object.values(table.LAYERS).map((l) => l.folder));
    for (const folder of folders) assert.ok(layers.has(`src/${folder}`) || folder === 'python', `src/${folder} is not a layer of layers.cjs`);
  });

  it('every package the sources import has a kind', () => {
    const known = new Set([...Object.values(table.PACKAGES).flat(), ...table.NODE_BUILTINS]);
    const files = [...walk(path.join(root, 'src')), ...walk(path.join(root, 'webview'))].filter((f) => f.endsWith('.ts'));
    const bare = /(?:^|\n)\s*(?:(?:import|export)\s[^;'"]*?\bfrom\s*|import\s*)['"]([^'".][^'"]*)['"]/g;
    for (const file of files) {
      for (const m of readFileSync(file, 'utf8').matchAll(bare)) {
        const spec = m[1];
        if (spec.startsWith('node:')) continue;
        const name = spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0];
        assert.ok(known.has(name) || known.has(spec), `${path.relative(root, file)} imports ${spec}, which layers.cjs does not classify`);
      }
    }
  });
});
