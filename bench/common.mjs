// Shared by the bench scripts: where things are, how to bundle the core, how to find python3.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const dataDir = path.join(repoRoot, 'bench', '.data');
export const MB = 1000 * 1000;

/** VRAM_LENS_CORPUS, else `shared/snapshots` beside the checkout (or beside its parent, for worktrees). */
export function corpusDir() {
  if (process.env.VRAM_LENS_CORPUS) return process.env.VRAM_LENS_CORPUS;
  const candidates = [path.resolve(repoRoot, '..', 'shared', 'snapshots'), path.resolve(repoRoot, '..', '..', 'shared', 'snapshots')];
  const found = candidates.find((dir) => existsSync(dir));
  if (found === undefined) throw new Error(`corpus not found (looked in ${candidates.join(', ')}); set VRAM_LENS_CORPUS`);
  return found;
}

/** The real interpreter behind `python3` (a pyenv shim would add a shell script's start-up to every run). */
export function pythonExecutable() {
  return execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).trim();
}

/**
 * Bundles the core's load/analysis entry points from src/ with esbuild (the CLI bundle does not export
 * them) and loads the bundle: { loadSnapshotFile, analyzeSnapshot, toReport, stringifyExact }.
 */
export async function loadCore() {
  const { build } = await import('esbuild');
  mkdirSync(dataDir, { recursive: true });
  const outfile = path.join(dataDir, 'core.cjs');
  await build({
    stdin: {
      contents: [
        "export { loadSnapshotFile } from './src/runtime/input/snapshotFile';",
        "export { analyzeSnapshot } from './src/engine/analysis/analyze';",
        "export { stringifyExact, toReport } from './src/engine/analysis/report';",
      ].join('\n'),
      resolveDir: repoRoot,
      loader: 'ts',
      sourcefile: 'bench-core.ts',
    },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    outfile,
    logLevel: 'warning',
  });
  return createRequire(import.meta.url)(outfile);
}
