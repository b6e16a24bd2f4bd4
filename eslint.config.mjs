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

function rule(restrictions) {
  const paths = restrictions.flatMap((r) => r.paths);
  const patterns = restrictions.flatMap((r) => r.patterns);
  return { 'no-restricted-imports': ['error', { paths, patterns }] };
}

function layerRules() {
  const blocks = [];
  for (const layer of Object.keys(LAYERS)) {
    const restrictions = forbiddenTargets(layer).map((target) => restrictionsOf(layer, target));
    if (layer !== 'engine') {
      blocks.push({ files: [`${LAYERS[layer].folder}/**/*.ts`], rules: rule(restrictions) });
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
      blocks.push({ files: [`src/engine/${folder}/**/*.ts`], rules: rule([...restrictions, ...upstream]) });
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
  // protocols neutral, the webviews see only the engine and the protocols.
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
