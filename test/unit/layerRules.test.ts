/**
 * The lint config enforces the layers: an import planted across each line fails lint, and the same
 * file with an import its layer may make passes (so the test can tell a rule from no rule).
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { ESLint } from 'eslint';

const root = path.resolve(__dirname, '..', '..', '..');

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

const planted: [file: string, specifier: string][] = [
  ['src/core/analysis/planted.ts', 'vscode'],
  ['src/core/analysis/planted.ts', '../../../webview/timeline/state'],
  ['src/core/analysis/planted.ts', '../../extension/services'],
  ['src/core/analysis/planted.ts', '../../cli/main'],
  ['src/cli/planted.ts', 'vscode'],
  ['src/cli/planted.ts', '../extension/services'],
  ['src/cli/planted.ts', '../../webview/timeline/state'],
  ['src/extension/planted.ts', '../../webview/timeline/state'],
  ['src/extension/editor/planted.ts', '../../cli/main'],
  ['webview/timeline/planted.ts', 'vscode'],
  ['webview/timeline/planted.ts', '../../src/extension/services'],
  ['webview/summary/planted.ts', '../../src/cli/main'],
  ['webview/summary/planted.ts', 'node:fs'],
];

const allowed: [file: string, specifier: string][] = [
  ['src/core/analysis/planted.ts', '../format'],
  ['src/cli/planted.ts', '../core/format'],
  ['src/extension/planted.ts', 'vscode'],
  ['src/extension/planted.ts', '../core/format'],
  ['webview/timeline/planted.ts', '../../src/core/format'],
  ['webview/timeline/planted.ts', '../../src/protocol/timeline'],
  ['webview/timeline/planted.ts', './chart'],
];

describe('lint enforces the layers', () => {
  for (const [file, specifier] of planted) {
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
