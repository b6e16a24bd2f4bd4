// Flat config with type-aware typescript-eslint rules; `npm run lint` runs it with zero warnings allowed.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

import { createRequire } from 'node:module';

// The layers and the engine's order come from one table (layers.cjs); test/unit/layerRules.test.ts plants an
// import across every arrow it forbids.
const { LAYERS, PACKAGES, NODE_BUILTINS, ENGINE_RANKS, forbiddenTargets, forbiddenEngineFolders } = createRequire(import.meta.url)('./layers.cjs');

const lastPart = (folder) => folder.split('/').pop();

/** The `paths` and `patterns` of `no-restricted-imports` that keep `layer` from importing `target`. */
function restrictionsOf(layer, target) {
  const who = `${LAYERS[layer].folder}/ (${layer})`;
  if (target in LAYERS) {
    const message = `${who} never imports ${LAYERS[target].folder}/ (${target}): see layers.cjs and CONTRIBUTING.md.`;
    return { paths: [], patterns: [{ group: [`**/${lastPart(LAYERS[target].folder)}/**`], message }] };
  }
  if (target === 'node') {
    const message = `${who} never imports Node's built-in modules: ${LAYERS[layer].what}.`;
    return { paths: NODE_BUILTINS.map((name) => ({ name, message })), patterns: [{ group: ['node:*'], message }] };
  }
  const message = `${who} never imports ${target} packages (${PACKAGES[target].join(', ')}).`;
  return {
    paths: PACKAGES[target].map((name) => ({ name, message })),
    patterns: [{ group: PACKAGES[target].map((name) => `${name}/**`), message }],
  };
}

/**
 * The `no-restricted-syntax` selectors of what a layer's files may hold besides imports: a `typesOnly`
 * layer holds types alone (no running code); a layer imports its `runsOnlyFrom` layers only for code it
 * runs (every import from them takes a value; their types reach it through the protocol).
 */
function syntaxOf(layer) {
  const { typesOnly, runsOnlyFrom = [] } = LAYERS[layer];
  const who = `${LAYERS[layer].folder}/ (${layer})`;
  const selectors = [];
  if (typesOnly) {
    selectors.push({
      selector:
        'Program > :not(ImportDeclaration[importKind="type"], ExportNamedDeclaration[exportKind="type"], ExportAllDeclaration[exportKind="type"], TSInterfaceDeclaration, TSTypeAliasDeclaration)',
      message: `${who} holds types alone (import type, export type, interfaces, type aliases): running code goes in the layer that runs it, a message's checks in src/guards/ (layers.cjs, CONTRIBUTING.md).`,
    });
  }
  for (const target of runsOnlyFrom) {
    // esquery's regular expressions cannot hold a slash: '.' stands for it.
    const source = `[source.value=/${LAYERS[target].folder.split('/').join('.')}./]`;
    const message = `${who} imports ${LAYERS[target].folder}/ only for code it runs: take the types a message carries from src/protocol/, and a type that goes with engine code in the same import as that code (layers.cjs).`;
    selectors.push({ selector: `ImportDeclaration[importKind="type"]${source}`, message });
    selectors.push({ selector: `ImportDeclaration[importKind="value"]${source}:not(:has(ImportSpecifier[importKind="value"], ImportNamespaceSpecifier, ImportDefaultSpecifier))`, message });
  }
  return selectors;
}

function rule(restrictions, syntax = []) {
  const paths = restrictions.flatMap((r) => r.paths);
  const patterns = restrictions.flatMap((r) => r.patterns);
  return { 'no-restricted-imports': ['error', { paths, patterns }], ...(syntax.length > 0 ? { 'no-restricted-syntax': ['error', ...syntax] } : {}) };
}

function layerRules() {
  const blocks = [];
  for (const layer of Object.keys(LAYERS)) {
    const restrictions = forbiddenTargets(layer).map((target) => restrictionsOf(layer, target));
    if (layer !== 'engine') {
      blocks.push({ files: [`${LAYERS[layer].folder}/**/*.ts`], rules: rule(restrictions, syntaxOf(layer)) });
      continue;
    }
    // One block per engine folder, holding the layer's rules and the folder's order (a later block for the
    // same file would replace the rule, not add to it).
    for (const folder of Object.keys(ENGINE_RANKS)) {
      const upstream = forbiddenEngineFolders(folder).map((other) => ({
        paths: [],
        patterns: [
          {
            group: [`**/${other}/**`],
            message: `src/engine/${folder} (rank ${ENGINE_RANKS[folder]}) never imports src/engine/${other} (rank ${ENGINE_RANKS[other]}): in the engine, data flows decoder -> model -> analyses -> views (layers.cjs).`,
          },
        ],
      }));
      blocks.push({ files: [`src/engine/${folder}/**/*.ts`], rules: rule([...restrictions, ...upstream], syntaxOf(layer)) });
    }
  }
  return blocks;
}

export default tseslint.config(
  {
    ignores: ['out/**', 'dist/**', 'node_modules/**', '.e2e/**', 'bench/.data/**', '.vscode-test/**', 'test-results/**', 'test/fixtures/**', 'media/**'],
  },
  js.configs.recommended,
  {
    files: ['**/*.ts'],
    extends: [...tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      // Columnar traces keep `Action` codes in typed arrays: comparing those numbers with the enum is the point.
      '@typescript-eslint/no-unsafe-enum-comparison': 'off',
      eqeqeq: ['error', 'always'],
    },
  },
  // The layers (layers.cjs, CONTRIBUTING.md): the engine is pure and ordered, the runtime beside it, the
  // protocols neutral and types alone (their guards run in src/guards), the webviews see only the engine
  // (for code they run), the protocols and the guards.
  ...layerRules(),
  {
    // node:test's describe/it return promises that the runner awaits.
    files: ['test/**/*.ts'],
    rules: { '@typescript-eslint/no-floating-promises': 'off' },
  },
  {
    files: ['**/*.mjs', '**/*.js', '**/*.cjs'],
    languageOptions: {
      sourceType: 'module',
      globals: {
        process: 'readonly',
        console: 'readonly',
        require: 'readonly',
        __dirname: 'readonly',
        module: 'writable',
        Buffer: 'readonly',
        URL: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
      },
    },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
  },
);
