/**
 * CONTRIBUTING.md holds to the tree: everything it names exists, and its recipes work as written. Each
 * recipe is walked: its edits are made, and only those, on a scratch copy of the tree
 * (test/helpers/scratchTree.ts: type-checked with the project's settings, then compiled and run), every
 * edit is one its steps name, and what the recipe promises is checked on the result; a walk that leaves
 * out a step shows the step is needed (the tree fails to compile, or the promise is not kept). The figure
 * recipe is walked by its own test (test/unit/engine/analysis/lineFigures.test.ts plants a figure); here
 * the recipe and that test are held to each other.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';
import type { Finding } from '../../src/engine/advice/finding';
import type { FindingMarker } from '../../src/engine/timeline/findingMarkers';
import { openLine } from '../../webview/shared/openLine';
import type { QueryName } from '../../src/runtime/worker/methods';
import { load, methods, warmUp } from '../../src/runtime/worker/methods';
import { repoRoot } from '../helpers/corpus';
import { ReferenceChecker, codeSpans, markdownBlocks, templatePattern } from '../helpers/markdownRefs';
import { ScratchTree } from '../helpers/scratchTree';
import type { WalkEdit } from '../helpers/scratchTree';
import { GiB } from '../helpers/traceBuilder';

const CONTRIBUTING = readFileSync(path.join(repoRoot, 'CONTRIBUTING.md'), 'utf8');
const read = (file: string) => readFileSync(path.join(repoRoot, file), 'utf8');
const parse = (file: string, text = read(file)) => ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);

/** The numbered steps of the recipe under the heading `title`, by number. */
function recipeSteps(title: string): Map<number, string> {
  const steps = new Map<number, string>();
  for (const b of markdownBlocks(CONTRIBUTING)) {
    const step = /^(\d+)\.\s/.exec(b.text);
    if (b.section === title && step) steps.set(Number(step[1]), b.text);
  }
  assert.ok(steps.size > 0, `CONTRIBUTING.md has a recipe "${title}" with numbered steps`);
  return steps;
}

/** Whether a path the recipe writes (maybe with `<placeholders>`, or a folder) stands for `file`. */
function pathNames(written: string, file: string): boolean {
  return new RegExp(`^${templatePattern(written, '[^/]+')}${written.endsWith('/') ? '' : '$'}`).test(file);
}

/** Every edit a walk made is one its recipe's steps name: the file (or its pattern), and the symbol edited. */
function assertRecipeNames(title: string, edits: readonly WalkEdit[]): void {
  const steps = recipeSteps(title);
  assert.ok(edits.length > 0);
  for (const e of edits) {
    const step = steps.get(e.step);
    assert.ok(step, `"${title}" has a step ${e.step}`);
    const spans = codeSpans(step);
    assert.ok(spans.some((s) => pathNames(s, e.file)), `step ${e.step} of "${title}" names ${e.file} (the walk edits it)`);
    if (e.symbol) assert.ok(spans.includes(e.symbol), `step ${e.step} of "${title}" names \`${e.symbol}\` (the walk edits it in ${e.file})`);
  }
}

describe('CONTRIBUTING.md names only what exists', () => {
  const checker = new ReferenceChecker(repoRoot);

  it('every path, script, setting, package, symbol and link it names', () => {
    assert.deepEqual(checker.check(CONTRIBUTING), []);
  });

  it('the check finds what does not exist', () => {
    const planted = [
      '- `src/engine/nowhere.ts` and [a link](docs/nowhere.md).',
      '- `npm run no-such-script`, `bash scripts/no-such.sh`, `vramLens.no.such.setting`, `left-pad`.',
      '- `errorMessage` and `NoSuchThing` (`src/engine/base/errors.ts`); `RemoteError.noSuchMember` (same file).',
      '- `LoadedSnapshot.call` (`src/engine/base/errors.ts`): declared, but not in the file named beside it.',
      '- `isNoSuch<Page>` (`src/protocol/<page>.ts`), `src/nowhere/<page>.ts`, `NO_SUCH_VARIABLE` (`test/helpers/corpus.ts`).',
      "- `'no such string'` (`src/engine/analysis/lineFigures.ts`), `'liveAtPeak'` (same).",
      '- `vscode.workspace.noSuchFunction`, `vscode.workspace.getConfiguration`.',
      '- `unplaced`, named with no file anywhere in its section.',
    ].join('\n');
    const problems = checker.check(planted).map((p) => /: `([^`]+)`: |: link (\S+): /.exec(p)?.slice(1).find((x) => x !== undefined) ?? p);
    assert.deepEqual(problems.sort(), [
      'LoadedSnapshot.call',
      'NO_SUCH_VARIABLE',
      'NoSuchThing',
      'RemoteError.noSuchMember',
      "'no such string'",
      'bash scripts/no-such.sh',
      'docs/nowhere.md',
      'isNoSuch<Page>',
      'left-pad',
      'npm run no-such-script',
      'src/engine/nowhere.ts',
      'src/nowhere/<page>.ts',
      'unplaced',
      'vramLens.no.such.setting',
      'vscode.workspace.noSuchFunction',
    ].sort());
  });
});

describe('CONTRIBUTING.md on the layers', () => {
  it("gives the engine's folders in the order of ENGINE_RANKS (layers.cjs)", () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { ENGINE_RANKS } = require(path.join(repoRoot, 'layers.cjs')) as { ENGINE_RANKS: Record<string, number> };
    const ranks = [...new Set(Object.values(ENGINE_RANKS))].sort((a, b) => a - b);
    const expected = ranks.map((r) => Object.keys(ENGINE_RANKS).filter((f) => ENGINE_RANKS[f] === r).sort());
    const block = markdownBlocks(CONTRIBUTING).find((b) => b.text.includes('`ENGINE_RANKS`') && b.text.includes(' < '));
    assert.ok(block, 'a paragraph orders the folders with <');
    const text = block.text.replace(/\s+/g, ' ');
    const order = text.slice(text.indexOf(': ') + 2, text.indexOf('. A new engine folder'));
    const written = order.split(' < ').map((group) => codeSpans(group).sort());
    assert.deepEqual(written, expected);
  });
});

// ---- A new advisor rule ----

const RULE_RECIPE = 'A new advisor rule';
const PLANTED_RULE = 'src/engine/advice/rules/plantedRule.ts';

/** The rule the walk plants: the line that holds the most at the device peak, with the in-place fix. */
const PLANTED_RULE_SOURCE = `/** Planted by test/unit/contributing.test.ts: the line holding the most at the device peak. */
import { FIGURE } from '../../analysis/lineFigures';
import type { LineFigures } from '../../analysis/lines';
import type { Finding } from '../finding';
import type { AdviceRule } from '../rule';
import { where } from '../rule';

export const plantedRule: AdviceRule = {
  id: 'planted-rule',
  label: 'planted label',
  run(ctx) {
    const d = ctx.device;
    if (d.peakEventIndex < 0) return [];
    let top: LineFigures | undefined;
    for (const l of d.lines) if (l[FIGURE.heldAtPeak] > (top?.[FIGURE.heldAtPeak] ?? 0)) top = l;
    const line = top?.line;
    if (!top || typeof line !== 'number') return [];
    const bytes = top[FIGURE.heldAtPeak];
    const finding: Finding = {
      rule: 'planted-rule',
      severity: 'information',
      device: d.device,
      file: top.file,
      line,
      title: \`planted: \${where({ file: top.file, line })} holds the most at the peak\`,
      message: 'This line may hold the most at the peak.',
      evidence: { lineLiveAtPeakBytes: bytes, peakEvent: d.peakEventIndex },
      lineFigures: [{ file: top.file, line, figure: FIGURE.heldAtPeak, relation: 'equals', value: bytes }],
      fix: 'in-place-operator',
    };
    return [finding];
  },
};
`;

/** The program the walk records (line 4 holds the most at the peak: 2 GiB; `x = x * 2` on a tensor made here, so the in-place fix applies). */
const TRAIN_PY = ['import torch', 'def main():', '    x = torch.ones(4)', '    x = x * 2', '    print(x)', ''].join('\n');

const RULE_DRIVER = `import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { main } from '../../src/cli/main';
import { advise } from '../../src/engine/advice/advise';
import { analyzeSnapshot } from '../../src/engine/analysis/analyze';
import { SnapshotSession } from '../../src/engine/session/session';
import { dispatch } from '../../src/runtime/worker/methods';
import { GiB, TraceBuilder, user, userPath } from '../helpers/traceBuilder';

const SOURCE = ${JSON.stringify(TRAIN_PY)};

export async function walk() {
  const t = new TraceBuilder();
  t.alloc(GiB, [user('train.py', 3)]);
  t.alloc(2 * GiB, [user('train.py', 4)]);
  const snapshot = t.snapshot();
  const file = userPath('train.py');
  const findings = advise(analyzeSnapshot(snapshot), { fileText: (f) => (f === file ? SOURCE : undefined) });
  const dir = mkdtempSync(path.join(tmpdir(), 'vram-lens-walk-'));
  let cli = '';
  let err = '';
  try {
    writeFileSync(path.join(dir, 'run.pickle'), t.pickle());
    writeFileSync(path.join(dir, 'train.py'), SOURCE);
    const code = await main(['advise', path.join(dir, 'run.pickle'), '--src', dir], { out: (s) => (cli += s), err: (s) => (err += s) });
    if (code !== 0) throw new Error(err);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const markers = dispatch('timelineFindings', { device: 0, axis: 'event' }, { session: new SnapshotSession(snapshot, 0, {}), progress: () => undefined });
  return { findings, cli, markers };
}
`;

/** The rule recipe's edits on `tree`, step by step. */
function plantRule(tree: ScratchTree): ScratchTree {
  return tree
    .create(1, PLANTED_RULE, PLANTED_RULE_SOURCE, 'AdviceRule')
    .insertAfter(1, 'src/engine/advice/finding.ts', /export type RuleId =/, "\n  | 'planted-rule'", 'RuleId')
    .insertAfter(2, 'src/engine/advice/advise.ts', /^import .*;\n(?!import)/m, "import { plantedRule } from './rules/plantedRule';\n", 'RULES')
    .insertAfter(2, 'src/engine/advice/advise.ts', /export const RULES: readonly AdviceRule\[\] = \[/, '\n  plantedRule,', 'RULES');
}

interface RuleWalk {
  readonly findings: Finding[];
  readonly cli: string;
  readonly markers: FindingMarker[];
}

async function walkRule(tree: ScratchTree): Promise<RuleWalk> {
  const driver = 'test/walks/rule.ts';
  tree.create(0, driver, RULE_DRIVER);
  const errors = tree.typeErrors();
  assert.deepEqual(errors, [], 'the walked tree compiles');
  return tree.built(async (compiled) => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const module = require(compiled(driver)) as { walk(): Promise<RuleWalk> };
    return module.walk();
  });
}

describe(`recipe: ${RULE_RECIPE}`, () => {
  it('edits only what its steps name', () => {
    assertRecipeNames(RULE_RECIPE, plantRule(new ScratchTree(repoRoot)).edits);
  });

  it("a rule added as it says reaches advise(), the CLI with its quick fix, and the timeline's markers under its own label", async () => {
    const { findings, cli, markers } = await walkRule(plantRule(new ScratchTree(repoRoot)));
    const planted = findings.filter((f) => f.rule === ('planted-rule' as Finding['rule']));
    assert.equal(planted.length, 1, 'advise() runs it');
    // Line 4 allocated 2 GiB that is still live at the peak, line 3 1 GiB (the trace the walk built).
    assert.equal(planted[0].line, 4);
    assert.equal(planted[0].evidence.lineLiveAtPeakBytes, 2 * GiB);
    assert.equal(planted[0].quickFixes?.length, 1, 'its fix kind is offered from the source');
    assert.equal(planted[0].quickFixes[0].newText, 'x.mul_(2)');
    assert.match(cli, /\[planted-rule\] planted: train\.py:4 holds the most at the peak/, 'vram-lens advise prints it');
    assert.match(cli, /quick fix at .*train\.py:4: Update in place: x\.mul_\(2\)/, 'with the quick fix read from the source on disk');
    const marker = markers.find((m) => m.rule === ('planted-rule' as Finding['rule']));
    assert.ok(marker, "the worker's timeline markers include it");
    assert.equal(marker.label, 'planted label', "labelled with the rule's own label");
    assert.equal(marker.firstEvent, 1, 'at the peak event its evidence names');
  });

  it('without the RULES entry (step 2) nothing shows it; without the RuleId entry (step 1) the rule does not compile', async () => {
    const { findings, cli, markers } = await walkRule(plantRule(new ScratchTree(repoRoot, 2)));
    assert.ok(!findings.some((f) => f.rule === ('planted-rule' as Finding['rule'])));
    assert.doesNotMatch(cli, /planted-rule/);
    assert.ok(!markers.some((m) => m.label === 'planted label'));
    const tree = new ScratchTree(repoRoot, 1);
    plantRule(tree).create(0, PLANTED_RULE, PLANTED_RULE_SOURCE);
    const errors = tree.typeErrors();
    assert.ok(errors.some((e) => e.startsWith(PLANTED_RULE) && /'"planted-rule"' is not assignable to type 'RuleId'/.test(e)), errors.join('\n'));
  });

  it('rule ids are spelled only in their rule, RuleId and stillHolds (no other list of rules to edit)', () => {
    const allowed = (file: string) => file === 'src/engine/advice/finding.ts' || file === 'src/engine/advice/recheck.ts' || file.startsWith('src/engine/advice/rules/');
    const spelled: string[] = [];
    for (const dir of ['src', 'webview']) {
      for (const name of readdirSync(path.join(repoRoot, dir), { recursive: true }).map(String)) {
        const file = `${dir}/${name.split(path.sep).join('/')}`;
        if (file.endsWith('.ts') && !allowed(file)) spelled.push(...ruleIdSpellings(file, read(file)));
      }
    }
    assert.deepEqual(spelled, []);
  });

  it('the check finds a list of rules written by hand, and leaves a word that is also a rule id alone', () => {
    const planted = [
      "const LABELS: Record<string, string> = { 'growing-memory': 'growing memory', fragmentation: 'fragmentation' };",
      "const label = (f: { rule: string }) => (f.rule === 'out-of-memory' ? 'OOM' : '');",
      "function g(f: { rule: string }) { switch (f.rule) { case 'mixed-precision': return 1; default: return 0; } }",
      "const QUIET = ['before-recording', 'optimizer-state'];",
      "type Loud = 'empty-cache-in-loop' | 'growing-memory';",
      "const made = { rule: 'in-place-arithmetic' };",
      "interface Oom { readonly cause: 'fragmentation' | 'capacity' }",
      "const cause = (tight: boolean): Oom['cause'] => (tight ? 'fragmentation' : 'capacity');",
      "const words = 'fragmentation';",
    ].join('\n');
    const found = ruleIdSpellings('planted.ts', planted).map((v) => Number(/:(\d+):/.exec(v)![1]));
    assert.deepEqual(found, [1, 2, 3, 4, 4, 5, 5, 6]);
  });
});

/** The ids `RuleId` (src/engine/advice/finding.ts) lists. */
function ruleIds(): Set<string> {
  const ids = new Set<string>();
  parse('src/engine/advice/finding.ts').forEachChild((n) => {
    if (ts.isTypeAliasDeclaration(n) && n.name.text === 'RuleId' && ts.isUnionTypeNode(n.type)) {
      for (const t of n.type.types) if (ts.isLiteralTypeNode(t) && ts.isStringLiteral(t.literal)) ids.add(t.literal.text);
    }
  });
  assert.ok(ids.size >= 10, 'RuleId lists the rules');
  return ids;
}

/**
 * Where `text` spells a rule id as a rule: a key or a list of rules (an object key, two ids in one array
 * or union), a `rule` field's value, or a comparison or `case` against a `.rule`. The same word in
 * another vocabulary (an OOM's `cause: 'fragmentation'`) is not a rule.
 */
function ruleIdSpellings(file: string, text: string, ids: ReadonlySet<string> = ruleIds()): string[] {
  const source = parse(file, text);
  const found: string[] = [];
  const isId = (n: ts.Node): n is ts.StringLiteral => ts.isStringLiteral(n) && ids.has(n.text);
  const rule = (n: ts.Node) => /(^|\.)rule$/.test(n.getText(source));
  const visit = (n: ts.Node): void => {
    if (isId(n)) {
      const p = n.parent;
      const asRule =
        (ts.isPropertyAssignment(p) && (p.name === n || (p.initializer === n && p.name.getText(source) === 'rule'))) ||
        (ts.isBinaryExpression(p) && (rule(p.left) || rule(p.right))) ||
        (ts.isCaseClause(p) && rule(p.parent.parent.expression)) ||
        (ts.isArrayLiteralExpression(p) && p.elements.filter(isId).length > 1) ||
        (ts.isLiteralTypeNode(p) && ts.isUnionTypeNode(p.parent) && p.parent.types.filter((t) => ts.isLiteralTypeNode(t) && isId(t.literal)).length > 1);
      if (asRule) found.push(`${file}:${source.getLineAndCharacterOfPosition(n.getStart(source)).line + 1}: '${n.text}'`);
    }
    ts.forEachChild(n, visit);
  };
  visit(source);
  return found;
}

// ---- A new per-line figure ----

const FIGURE_RECIPE = 'A new per-line figure';
const FIGURE_TEST = 'test/unit/engine/analysis/lineFigures.test.ts';

/** The first string argument of each `it(...)` inside `describe(title, ...)` of a test file. */
function testTitles(source: ts.SourceFile, suite: string): string[] {
  const titles: string[] = [];
  const callee = (n: ts.CallExpression) => (ts.isIdentifier(n.expression) ? n.expression.text : '');
  const first = (n: ts.CallExpression) => (n.arguments[0] && ts.isStringLiteralLike(n.arguments[0]) ? n.arguments[0].text : undefined);
  const visit = (n: ts.Node, inside: boolean): void => {
    if (ts.isCallExpression(n) && callee(n) === 'describe') inside = first(n) === suite;
    if (inside && ts.isCallExpression(n) && callee(n) === 'it' && first(n) !== undefined) titles.push(first(n)!);
    ts.forEachChild(n, (c) => visit(c, inside));
  };
  visit(source, false);
  return titles;
}

/** The property names of the object literal a `const name = {...}` declares (through `as` casts). */
function literalKeys(source: ts.SourceFile, name: string): string[] {
  let keys: string[] | undefined;
  const visit = (n: ts.Node): void => {
    if (ts.isVariableDeclaration(n) && ts.isIdentifier(n.name) && n.name.text === name && n.initializer) {
      let init: ts.Expression = n.initializer;
      while (ts.isAsExpression(init) || ts.isParenthesizedExpression(init) || ts.isSatisfiesExpression(init)) init = init.expression;
      if (ts.isObjectLiteralExpression(init)) keys = init.properties.map((p) => (p.name && ts.isIdentifier(p.name) ? p.name.text : ''));
    }
    ts.forEachChild(n, visit);
  };
  visit(source);
  assert.ok(keys, `${source.fileName} declares ${name} as an object literal`);
  return keys;
}

/** The properties of the type `LineFigureSpec` (a registry entry), as the type checker sees them. */
function specProperties(): string[] {
  const file = path.join(repoRoot, 'src/engine/analysis/lineFigures.ts');
  const program = ts.createProgram([file], { target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.Node16, moduleResolution: ts.ModuleResolutionKind.Node16, lib: ['lib.es2022.d.ts'], types: [], strict: true, noEmit: true });
  const checker = program.getTypeChecker();
  const source = program.getSourceFile(file)!;
  const alias = source.statements.find((s): s is ts.TypeAliasDeclaration => ts.isTypeAliasDeclaration(s) && s.name.text === 'LineFigureSpec');
  assert.ok(alias, 'lineFigures.ts declares LineFigureSpec');
  return checker.getPropertiesOfType(checker.getTypeAtLocation(alias.name)).map((p) => p.name);
}

describe(`recipe: ${FIGURE_RECIPE}`, () => {
  const steps = recipeSteps(FIGURE_RECIPE);
  const test = parse(FIGURE_TEST);
  const rows = markdownBlocks(CONTRIBUTING)
    .filter((b) => b.section === FIGURE_RECIPE && b.text.startsWith('|'))
    .map((b) => b.text.split('|').slice(1, -1).map((c) => c.trim()))
    .filter((cells) => cells[2] !== 'the planted figure\'s test');

  it("its table of surfaces is the planted-figure test's list of checks, one for one", () => {
    const quoted = rows.map((cells) => /^"(.*)"$/.exec(cells[2])?.[1]);
    assert.ok(quoted.every((q) => q !== undefined), 'each row quotes the title of its check');
    assert.deepEqual([...quoted].sort(), testTitles(test, 'a figure planted in the registry').sort());
  });

  it('the fields step 2 names are the fields of a registry entry, and the planted figure uses only those', () => {
    const named = new Set(codeSpans(steps.get(2)!));
    const fields = specProperties();
    assert.deepEqual(fields.filter((f) => !named.has(f)), [], 'step 2 names every field of LineFigureSpec');
    const planted = literalKeys(test, 'PLANTED');
    assert.deepEqual(planted.filter((k) => !fields.includes(k)), [], 'the planted entry is a LineFigureSpec (its cast hides a typo from tsc)');
    // The surfaces the table ties to a field are fields the planted entry sets, so that its test shows them.
    const surfaceFields = rows.flatMap((cells) => codeSpans(cells[1]));
    assert.ok(surfaceFields.length >= 4);
    for (const f of surfaceFields) {
      assert.ok(fields.includes(f), `${f} is a field`);
      assert.ok(planted.includes(f), `the planted figure sets ${f}, so its test shows it`);
    }
  });

  it('the planted figure is one entry appended to the registry, as step 2 says', () => {
    assert.match(read(FIGURE_TEST), /\[\.\.\.LINE_FIGURES, PLANTED\]/);
    assert.match(steps.get(2)!, /one entry at the end of the registry/);
  });
});

// ---- A new worker query ----

const WORKER_RECIPE = 'A new worker query';

const WORKER_DRIVER = `import { LoadedSnapshot } from '../../src/extension/shared/loadedSnapshot';
import { InProcessWorker } from '../helpers/inProcessWorker';
import { GiB, TraceBuilder, user, userPath } from '../helpers/traceBuilder';

export async function walk() {
  const t = new TraceBuilder();
  t.alloc(GiB, [user('train.py', 3)]);
  t.alloc(2 * GiB, [user('train.py', 4)]);
  t.alloc(GiB, [user('model.py', 9)]);
  const worker = new InProcessWorker(t.snapshot());
  const loaded = new LoadedSnapshot('s', 'run.pickle', undefined, 'file', worker, worker.info());
  const answer: number = await loaded.call('plantedLineCount', { device: 0, file: userPath('train.py') });
  return { answer, asked: [...worker.asked] };
}
`;

function plantQuery(tree: ScratchTree): ScratchTree {
  return tree
    .insertAfter(
      1,
      'src/protocol/worker.ts',
      'export interface WorkerMethods {',
      '\n  /** Planted by test/unit/contributing.test.ts: how many lines of a file have figures on a device. */\n  plantedLineCount: { params: { device: number; file: string }; result: number };',
      'WorkerMethods',
    )
    .insertAfter(
      2,
      'src/runtime/worker/methods.ts',
      'export const methods: Implementations = {',
      '\n  plantedLineCount({ device, file }, ctx) {\n    return requireSession(ctx).device(device).lines.filter((l) => l.file === file).length;\n  },',
      'methods',
    );
}

describe(`recipe: ${WORKER_RECIPE}`, () => {
  it('edits only what its steps name', () => {
    assertRecipeNames(WORKER_RECIPE, plantQuery(new ScratchTree(repoRoot)).edits);
  });

  it('a method declared and implemented as it says answers through LoadedSnapshot.call, in the worker', async () => {
    const tree = plantQuery(new ScratchTree(repoRoot)).create(0, 'test/walks/query.ts', WORKER_DRIVER);
    assert.deepEqual(tree.typeErrors(), []);
    const { answer, asked } = await tree.built(async (compiled) => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const module = require(compiled('test/walks/query.ts')) as { walk(): Promise<{ answer: number; asked: string[] }> };
      return module.walk();
    });
    assert.equal(answer, 2, 'train.py has two lines with figures (the trace the walk built)');
    assert.deepEqual(asked, ['plantedLineCount'], 'asked of the worker once');
  });

  it('without either step the tree does not compile', () => {
    const errors = (skip: number) => plantQuery(new ScratchTree(repoRoot, skip)).create(0, 'test/walks/query.ts', WORKER_DRIVER).typeErrors();
    const undeclared = errors(1);
    assert.ok(undeclared.some((e) => e.startsWith('src/runtime/worker/methods.ts') && /plantedLineCount/.test(e)), undeclared.join('\n'));
    const unimplemented = errors(2);
    assert.ok(unimplemented.some((e) => e.startsWith('src/runtime/worker/methods.ts') && /'plantedLineCount' is missing/.test(e)), unimplemented.join('\n'));
  });

  it('the worker implements exactly the methods the protocol declares', () => {
    const declared: string[] = [];
    parse('src/protocol/worker.ts').forEachChild((n) => {
      if (ts.isInterfaceDeclaration(n) && n.name.text === 'WorkerMethods') {
        for (const m of n.members) if (m.name && ts.isIdentifier(m.name)) declared.push(m.name.text);
      }
    });
    assert.ok(declared.length >= 15);
    // `load` and `warmUp` read a file and answer later: their own functions; every other method is a query in `methods`.
    assert.ok(declared.includes('load') && declared.includes('warmUp'));
    assert.equal(typeof load, 'function');
    assert.equal(typeof warmUp, 'function');
    const queries = declared.filter((name) => name !== 'load' && name !== 'warmUp');
    assert.deepEqual(Object.keys(methods).sort(), queries.sort());
    for (const name of queries) assert.equal(typeof methods[name as QueryName], 'function', name);
  });
});

// ---- A new webview ----

const WEBVIEW_RECIPE = 'A new webview';
const capitalized = (page: string) => page[0].toUpperCase() + page.slice(1);

/** The pages scripts/build.mjs bundles (`webview/<page>/main.ts` -> `dist/webview/<page>.js`). */
function bundledPages(tree: ScratchTree): string[] {
  return [...tree.text('scripts/build.mjs').matchAll(/entryPoints: \['webview\/(\w+)\/main\.ts'\], outfile: 'dist\/webview\/(\w+)\.js'/g)].filter((m) => m[1] === m[2]).map((m) => m[1]);
}

/** Files under `folder` (relative), recursively, in this tree and among the files it adds. */
function filesUnder(tree: ScratchTree, folder: string): string[] {
  const disk = !existsSync(path.join(repoRoot, folder)) ? [] : readdirSync(path.join(repoRoot, folder), { recursive: true }).map((f) => `${folder}/${String(f).split(path.sep).join('/')}`);
  return [...new Set([...disk, ...tree.changed().filter((f) => f.startsWith(`${folder}/`))])].filter((f) => f.endsWith('.ts'));
}

/** What the webview recipe asks of `page`, as `step N: ...` for each thing missing. */
function pageProblems(tree: ScratchTree, page: string): string[] {
  const Page = capitalized(page);
  const problems: string[] = [];
  const protocolFile = `src/protocol/${page}.ts`;
  const protocol = tree.has(protocolFile) ? tree.text(protocolFile) : '';
  for (const needed of [`export type HostTo${Page}`, `export type ${Page}ToHost`]) {
    if (!protocol.includes(needed)) problems.push(`step 1: ${protocolFile} has no \`${needed}\``);
  }
  const guardsFile = `src/guards/${page}.ts`;
  const guards = tree.has(guardsFile) ? tree.text(guardsFile) : '';
  for (const needed of [`export const isHostTo${Page} = messageGuard<HostTo${Page}>(`, `export const is${Page}ToHost = messageGuard<${Page}ToHost>(`]) {
    if (!guards.includes(needed)) problems.push(`step 2: ${guardsFile} has no \`${needed}\``);
  }
  const opensLines = new RegExp(`is${Page}ToHost = messageGuard<${Page}ToHost>\\(\\{[^}]*\\bopenLine: true`).test(guards);
  if (opensLines && !/\bOpenLine\b/.test(protocol)) problems.push('step 1: its guard admits openLine but its union has no OpenLine');
  if (!bundledPages(tree).includes(page)) problems.push('step 3: scripts/build.mjs does not bundle it');
  const mainFile = `webview/${page}/main.ts`;
  const main = tree.has(mainFile) ? tree.text(mainFile) : '';
  if (!new RegExp(`onHostMessage\\([^,]+,\\s*isHostTo${Page}\\b`).test(main)) problems.push(`step 3: ${mainFile} does not receive through onHostMessage with isHostTo${Page}`);
  if (!tree.has(`media/${page}.css`)) problems.push(`step 3: no media/${page}.css`);
  const hosts = filesUnder(tree, 'src/extension').filter((f) => new RegExp(`script: '${page}\\.js'`).test(tree.text(f)));
  if (hosts.length !== 1) problems.push(`step 4: ${hosts.length} files of src/extension have a PageContent for ${page}.js`);
  else {
    const folder = path.posix.dirname(hosts[0]);
    const files = filesUnder(tree, folder);
    const host = files.map((f) => tree.text(f)).join('\n');
    if (path.posix.basename(hosts[0]) !== 'html.ts') problems.push(`step 4: its PageContent is in ${hosts[0]}, not ${folder}/html.ts`);
    if (!new RegExp(`styles: \\[[^\\]]*'${page}\\.css'`).test(tree.text(hosts[0]))) problems.push(`step 4: its PageContent does not name ${page}.css`);
    const view = files.find((f) => f.endsWith('View.ts'));
    if (!view || !/\bwebviewPage\(/.test(tree.text(view))) problems.push(`step 4: ${folder} has no *View.ts that builds its HTML with webviewPage`);
    if (!files.some((f) => f.endsWith('Requests.ts') && !/from 'vscode'/.test(tree.text(f)))) problems.push(`step 4: ${folder} has no *Requests.ts free of vscode`);
    if (!tree.has(`${folder}/feature.ts`) || !tree.text('src/extension/extension.ts').includes(`'./${path.posix.basename(folder)}/feature'`)) problems.push(`step 4: ${folder}/feature.ts is not there, or src/extension/extension.ts does not list it`);
    if (!new RegExp(`\\bis${Page}ToHost\\(`).test(host)) problems.push(`step 4: ${folder} does not check what arrives with is${Page}ToHost`);
    if (opensLines && !/\bopenLineOfPage\(/.test(host)) problems.push(`step 4: ${folder} does not hand openLine to openLineOfPage`);
  }
  if (!tree.text('test/package/vsix.test.ts').includes(`'extension/dist/webview/${page}.js'`)) problems.push('step 5: test/package/vsix.test.ts does not expect it in the VSIX');
  return problems;
}

const PLANTED_PROTOCOL = `/** Planted by test/unit/contributing.test.ts: the messages of a page that shows a line and opens it. */
import type { OpenLine } from './openLine';

export type HostToPlanted = { readonly type: 'show'; readonly file: string; readonly line: number };
export type PlantedToHost = { readonly type: 'ready' } | OpenLine;
`;

const PLANTED_GUARDS = `/** Planted by test/unit/contributing.test.ts: the guards of the planted page's messages. */
import type { HostToPlanted, PlantedToHost } from '../protocol/planted';
import { messageGuard } from './messageGuard';

export const isHostToPlanted = messageGuard<HostToPlanted>({ show: true });
export const isPlantedToHost = messageGuard<PlantedToHost>({ ready: true, openLine: true });
`;

const PLANTED_PAGE = `/** Planted by test/unit/contributing.test.ts. */
import { isHostToPlanted } from '../../src/guards/planted';
import type { HostToPlanted, PlantedToHost } from '../../src/protocol/planted';
import { connectHost, onHostMessage } from '../shared/host';
import { openLine } from '../shared/openLine';

const host = connectHost<PlantedToHost>();
onHostMessage('planted', isHostToPlanted, (message: HostToPlanted) => {
  const button = document.createElement('button');
  button.textContent = \`\${message.file}:\${message.line}\`;
  button.addEventListener('click', () => host.post(openLine(message)));
  document.body.replaceChildren(button);
});
host.post({ type: 'ready' });
`;

const PLANTED_HTML = `/** Planted by test/unit/contributing.test.ts: the planted page. */
import type { PageContent } from '../shared/webviewDocument';

export const PLANTED_PAGE: PageContent = { title: 'Planted', script: 'planted.js', styles: ['planted.css'], codicons: true };
`;

const PLANTED_REQUESTS = `/** Planted by test/unit/contributing.test.ts: what the planted page is sent, free of vscode. */
import type { HostToPlanted } from '../../protocol/planted';

export function showLine(file: string, line: number): HostToPlanted {
  return { type: 'show', file, line };
}
`;

const PLANTED_VIEW = `/** Planted by test/unit/contributing.test.ts: the host of the planted page. */
import * as vscode from 'vscode';
import { describeRefused } from '../../guards/messageGuard';
import { isPlantedToHost } from '../../guards/planted';
import { DisposableOwner } from '../shared/disposables';
import { openLineOfPage } from '../shared/openRecordedLine';
import type { PathResolver } from '../shared/pathResolver';
import { webviewOptions, webviewPage } from '../shared/webviewHtml';
import { PLANTED_PAGE } from './html';
import { showLine } from './plantedRequests';

export class PlantedView extends DisposableOwner {
  constructor(
    private readonly panel: vscode.WebviewPanel,
    extensionUri: vscode.Uri,
    private readonly resolver: PathResolver,
    private readonly log: vscode.LogOutputChannel,
  ) {
    super();
    panel.webview.options = webviewOptions(extensionUri, PLANTED_PAGE);
    panel.webview.html = webviewPage(panel.webview, extensionUri, PLANTED_PAGE);
    this.own(
      panel.webview.onDidReceiveMessage((m: unknown) => void this.receive(m)),
      panel.onDidDispose(() => this.dispose()),
    );
  }

  show(file: string, line: number): void {
    void this.panel.webview.postMessage(showLine(file, line));
  }

  private async receive(raw: unknown): Promise<void> {
    if (!isPlantedToHost(raw)) {
      this.log.warn(\`Planted: ignored \${describeRefused(raw)}\`);
      return;
    }
    if (raw.type === 'openLine' && !(await openLineOfPage(this.resolver, raw))) this.log.warn(\`Planted: ignored \${describeRefused(raw)}\`);
  }
}
`;

const PLANTED_FEATURE = `/** Planted by test/unit/contributing.test.ts: the planted feature, which brings its panel back after a reload. */
import * as vscode from 'vscode';
import type { Feature } from '../shared/services';
import { PlantedView } from './plantedView';

export const plantedFeature: Feature = ({ context, resolver, log }) => {
  context.subscriptions.push(
    vscode.window.registerWebviewPanelSerializer('vramLens.planted', {
      deserializeWebviewPanel: async (panel) => {
        context.subscriptions.push(new PlantedView(panel, context.extensionUri, resolver, log));
        return Promise.resolve();
      },
    }),
  );
};
`;

function plantPage(tree: ScratchTree): ScratchTree {
  return tree
    .create(1, 'src/protocol/planted.ts', PLANTED_PROTOCOL, 'HostTo<Page>')
    .create(2, 'src/guards/planted.ts', PLANTED_GUARDS, 'messageGuard')
    .create(3, 'webview/planted/main.ts', PLANTED_PAGE, 'onHostMessage')
    .insertAfter(3, 'scripts/build.mjs', 'const webviews = [', "\n  { entryPoints: ['webview/planted/main.ts'], outfile: 'dist/webview/planted.js' },", 'webviews')
    .create(3, 'media/planted.css', 'button { font: inherit; }\n')
    .create(4, 'src/extension/planted/html.ts', PLANTED_HTML, 'PageContent')
    .create(4, 'src/extension/planted/plantedRequests.ts', PLANTED_REQUESTS)
    .create(4, 'src/extension/planted/plantedView.ts', PLANTED_VIEW, 'webviewPage')
    .create(4, 'src/extension/planted/feature.ts', PLANTED_FEATURE, 'Feature')
    .insertAfter(4, 'src/extension/extension.ts', "import { workloadsFeature } from './workloads/feature';", "\nimport { plantedFeature } from './planted/feature';")
    .insertAfter(4, 'src/extension/extension.ts', /const features: Feature\[\] = \[[^\]]*/, ', plantedFeature', 'features')
    .insertAfter(5, 'test/package/vsix.test.ts', "  'extension/dist/webview/summary.js',", "\n  'extension/dist/webview/planted.js',");
}

describe(`recipe: ${WEBVIEW_RECIPE}`, () => {
  const tree = new ScratchTree(repoRoot);
  const pages = bundledPages(tree);

  it('every page the build bundles has what the recipe asks for, and every page folder is bundled', () => {
    assert.ok(['compare', 'summary', 'timeline'].every((p) => pages.includes(p)), `scripts/build.mjs lists the pages: ${pages.join(', ')}`);
    for (const page of pages) assert.deepEqual(pageProblems(tree, page), [], page);
    const folders = readdirSync(path.join(repoRoot, 'webview'), { withFileTypes: true }).filter((d) => d.isDirectory() && d.name !== 'shared').map((d) => d.name);
    assert.deepEqual(folders.sort(), [...pages].sort());
  });

  it("each page's guards refuse unknown messages, and admit the one openLine", () => {
    for (const page of pages) {
      const Page = capitalized(page);
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const guards = require(path.join(__dirname, '..', '..', 'src', 'guards', page)) as Record<string, (m: unknown) => boolean>;
      for (const guard of [`isHostTo${Page}`, `is${Page}ToHost`]) {
        assert.equal(typeof guards[guard], 'function', `${page}: ${guard}`);
        for (const bad of [null, 'openLine', 42, {}, { type: 'noSuchMessage' }, { type: 7 }]) assert.equal(guards[guard](bad), false, `${page}: ${guard}(${JSON.stringify(bad)})`);
      }
      assert.equal(guards[`is${Page}ToHost`](openLine({ file: 'train.py', line: 3 })), true, `${page} opens lines with the one message`);
    }
  });

  it('edits only what its steps name', () => {
    assertRecipeNames(WEBVIEW_RECIPE, plantPage(new ScratchTree(repoRoot)).edits);
  });

  it('a page planted as it says is complete and compiles, with the page under the webviews\' settings', () => {
    const planted = plantPage(new ScratchTree(repoRoot));
    assert.deepEqual(pageProblems(planted, 'planted'), []);
    assert.deepEqual(planted.typeErrors(), [], 'the protocol and the host');
    assert.deepEqual(planted.typeErrors('webview/tsconfig.json'), [], 'the page');
  });

  it('a page missing any one step is found incomplete at that step', () => {
    for (const step of [1, 2, 3, 4, 5]) {
      const problems = pageProblems(plantPage(new ScratchTree(repoRoot, step)), 'planted');
      assert.ok(problems.length > 0 && problems.every((p) => p.startsWith(`step ${step}:`)), `without step ${step}: ${problems.join('; ')}`);
    }
  });
});

// ---- A new request or drawing layer on the timeline ----

describe('recipe: A new request or drawing layer on the timeline', () => {
  it('every request type in REQUEST_TYPES is answered in answerTimelineRequest', () => {
    const types = literalKeys(parse('src/guards/timeline.ts'), 'REQUEST_TYPES');
    assert.ok(types.length >= 7);
    const answered: string[] = [];
    const visit = (n: ts.Node, inside: boolean): void => {
      if (ts.isFunctionDeclaration(n)) inside = n.name?.text === 'answerTimelineRequest';
      if (inside && ts.isCaseClause(n) && ts.isStringLiteral(n.expression)) answered.push(n.expression.text);
      ts.forEachChild(n, (c) => visit(c, inside));
    };
    visit(parse('src/extension/timeline/timelineRequests.ts'), false);
    assert.deepEqual(answered.sort(), [...types].sort());
  });

  it("every layer under webview/timeline/drawing/layers has its place in the Chart's layers", () => {
    const folder = 'webview/timeline/drawing/layers';
    const exported: string[] = [];
    for (const name of readdirSync(path.join(repoRoot, folder))) {
      parse(`${folder}/${name}`).forEachChild((n) => {
        const isExported = ts.canHaveModifiers(n) && ts.getModifiers(n)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
        if (!isExported) return;
        if (ts.isVariableStatement(n)) {
          for (const d of n.declarationList.declarations) if (d.type?.getText() === 'ChartLayer' && ts.isIdentifier(d.name)) exported.push(d.name.text);
        } else if (ts.isClassDeclaration(n) && n.name && n.heritageClauses?.some((h) => h.types.some((t) => t.expression.getText() === 'ChartLayer'))) {
          exported.push(n.name.text);
        }
      });
    }
    assert.ok(exported.length >= 10, exported.join(', '));
    // The names in the Chart's lists of layers (`layers`, `allocatorLayers`: fields typed `readonly ChartLayer[]`),
    // through the fields it keeps some layers in (`this.blocks`).
    const chart = parse('webview/timeline/drawing/chart.ts');
    const fields = new Map<string, ts.Expression>();
    const lists: ts.ArrayLiteralExpression[] = [];
    const visit = (n: ts.Node): void => {
      if (ts.isPropertyDeclaration(n) && ts.isIdentifier(n.name) && n.initializer) {
        fields.set(n.name.text, n.initializer);
        if (n.type?.getText() === 'readonly ChartLayer[]' && ts.isArrayLiteralExpression(n.initializer)) lists.push(n.initializer);
      }
      ts.forEachChild(n, visit);
    };
    visit(chart);
    assert.ok(lists.length > 0, 'chart.ts lists its layers');
    const placed = lists.flatMap((list) => list.elements).map((e) => {
      const field = ts.isPropertyAccessExpression(e) && e.expression.kind === ts.SyntaxKind.ThisKeyword ? fields.get(e.name.text) : e;
      return field && ts.isNewExpression(field) ? field.expression.getText() : field?.getText();
    });
    assert.deepEqual(exported.filter((l) => !placed.includes(l)), []);
  });
});
