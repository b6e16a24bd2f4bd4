// Compiles the tests into out/: `node scripts/compile-tests.mjs` the unit, fuzz and suite tests
// (tsc -p tsconfig.test.json, after out/test/unit is removed so that a deleted test does not linger),
// `node scripts/compile-tests.mjs browser` the Chromium tests (tsc -p test/browser).
// With VRAM_LENS_PREBUILT=1 it does nothing: .ci/run sets it once it has built and compiled everything,
// so that the suites it runs side by side never rewrite the files the others are reading.
import { rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const browser = process.argv.includes('browser');
if (process.env.VRAM_LENS_PREBUILT === '1') {
  console.log(`compile-tests: ${browser ? 'browser tests ' : ''}already compiled (VRAM_LENS_PREBUILT=1)`);
  process.exit(0);
}
if (!browser) rmSync(path.join(root, 'out', 'test', 'unit'), { recursive: true, force: true });
const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
const result = spawnSync(process.execPath, [tsc, '-p', browser ? 'test/browser' : 'tsconfig.test.json'], { cwd: root, stdio: 'inherit' });
process.exit(result.status ?? 1);
