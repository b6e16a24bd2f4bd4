// Flat config with type-aware typescript-eslint rules; `npm run lint` runs it with zero warnings allowed.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const noVscode = (layer) => ({ name: 'vscode', message: `${layer} never imports vscode.` });
const banned = (group, message) => ({ group, message });
const WEBVIEW = banned(['**/webview/**', '**/webview'], 'Only the webview bundles import webview/; share types through src/protocol.');
const EXTENSION = banned(['**/src/extension/**', '**/extension/**'], 'Only the VS Code adapters import src/extension.');
const CLI = banned(['**/src/cli/**', '**/cli/**'], 'Only the CLI imports src/cli.');

function layerRules() {
  const layer = (files, paths, patterns) => ({
    files,
    rules: { 'no-restricted-imports': ['error', { paths, patterns }] },
  });
  return [
    layer(['src/core/**/*.ts'], [noVscode('The core')], [WEBVIEW, EXTENSION, CLI]),
    layer(['src/protocol/**/*.ts'], [noVscode('A protocol')], [WEBVIEW, EXTENSION, CLI]),
    layer(['src/cli/**/*.ts'], [noVscode('The CLI')], [WEBVIEW, EXTENSION]),
    layer(['src/extension/**/*.ts'], [], [WEBVIEW, CLI]),
    layer(
      ['webview/**/*.ts'],
      [noVscode('A webview')],
      [
        EXTENSION,
        CLI,
        banned(['**/src/python/**'], 'A webview imports only src/core and src/protocol.'),
        banned(['node:*'], 'A webview runs in a browser: no Node modules.'),
      ],
    ),
  ];
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
  // The layers (CONTRIBUTING.md): core is pure, the webviews see only core and the shared protocols,
  // the extension host and the CLI never reach into the webviews. test/unit/layerRules.test.ts plants
  // an import across each line and sees lint fail.
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
