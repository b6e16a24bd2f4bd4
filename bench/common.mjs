// Shared by the bench scripts: where things are, how to bundle the core, how to find python3.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** What the bench writes beside the checkout: its results, profiles and the bundled core (git-ignored). */
export const dataDir = path.join(repoRoot, 'bench', '.data');
/**
 * Where generated snapshots go (hundreds of MB each): outside the repository, in `--data DIR`, else
 * `$VRAM_LENS_BENCH_DATA`, else a folder of the system's temporary directory.
 */
export function generatedDir(option) {
  return path.resolve(option ?? process.env.VRAM_LENS_BENCH_DATA ?? path.join(os.tmpdir(), 'vram-lens-bench'));
}
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
 * them) and loads the bundle: { openSnapshot, analyzeSnapshot, toReport, stringifyExact, SnapshotWorker,
 * SpareWorkers, buildFileAnnotations, DEFAULT_ANNOTATION_OPTIONS }.
 */
export async function loadCore() {
  const { build } = await import('esbuild');
  mkdirSync(dataDir, { recursive: true });
  const outfile = path.join(dataDir, 'core.cjs');
  await build({
    stdin: {
      contents: [
        "export { openSnapshot } from './src/runtime/input/snapshotFile';",
        "export { SnapshotWorker } from './src/runtime/worker/client';",
        "export { SpareWorkers } from './src/runtime/worker/spareWorker';",
        "export { buildFileAnnotations, DEFAULT_ANNOTATION_OPTIONS } from './src/engine/annotate/lineAnnotations';",
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
