/**
 * V8's optimizing compiler, tuned to what one run of the command line reads.
 *
 * TurboFan compiles a hot function together with the functions it calls (inlining). On a small
 * snapshot the decoder's and the replay's loops spend most of their run in the interpreter and
 * baseline code while those compile jobs are in flight (15-35 ms each on a 2-core machine), and some
 * jobs are thrown away and done again when a callee meets a case it had not seen. Without inlining
 * each job is smaller and done sooner, and the loops run optimised for more of their short life.
 * Measured side by side (`farm-bench`, A/B pairs against `VRAM_LENS_V8_TUNING=0`, 2 cores;
 * docs/benchmarks.md): `analyze` of a 3.9 MB corpus snapshot 0.79x the time as typed and 0.82x with
 * `--json`, `whatif` 0.77x, a 10 MB file 0.88x, 20 MB 0.94-0.97x; but 40 MB 1.07x, 60 MB 1.21x and
 * 100 MB 1.30x, where the loops run long enough for inlined code to pay for its compiling. So: no
 * inlining up to {@link SMALL_INPUT_BYTES} of pickle, V8's defaults above, and for a gzip'd file (its
 * pickle's length is not its own).
 *
 * Only the command line does this: a V8 flag holds for the whole process, and the extension's
 * process (VS Code's extension host) is shared with other extensions. Nothing a program computes
 * depends on it. `VRAM_LENS_V8_TUNING=0` leaves V8's defaults.
 */
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { MAGIC_BYTES, formatOf } from '../engine/decode/unpack';

/** Bytes of pickle up to which a run compiles without inlining (between the 20 MB and 40 MB measured). */
export const SMALL_INPUT_BYTES = 24e6;

/** The commands whose work is reading the snapshots named by their positionals. */
export const TUNED_COMMANDS: ReadonlySet<string> = new Set(['analyze', 'advise', 'diff', 'whatif']);

/** A file a command reads: its length, and whether it is gzip'd. */
export interface InputFile {
  readonly bytes: number;
  readonly gzip: boolean;
}

/** True when the run reads plain pickles of at most {@link SMALL_INPUT_BYTES} in all. */
export function compilesBetterWithoutInlining(inputs: readonly InputFile[]): boolean {
  if (inputs.length === 0 || inputs.some((f) => f.gzip)) return false;
  return inputs.reduce((sum, f) => sum + f.bytes, 0) <= SMALL_INPUT_BYTES;
}

/** The files at `paths`, or undefined when one is not a readable file (the command then says why). */
export function inputFiles(paths: readonly string[]): InputFile[] | undefined {
  const files: InputFile[] = [];
  for (const path of paths) {
    let fd: number | undefined;
    try {
      const stats = statSync(path);
      if (!stats.isFile()) return undefined;
      fd = openSync(path, 'r');
      const head = new Uint8Array(MAGIC_BYTES);
      const read = readSync(fd, head, 0, MAGIC_BYTES, 0);
      files.push({ bytes: stats.size, gzip: formatOf(head.subarray(0, read)) === 'gzip' });
    } catch {
      return undefined;
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }
  return files;
}

/**
 * Tunes this process's compiler for `command` reading the files at `paths` (its positionals); returns
 * how to set V8's default back, or undefined when it left the defaults. Called before the command's work
 * starts, so its hot code is compiled under it; the default is set back once the work is done, before
 * the launcher writes V8's code cache: V8 keeps with a cache a hash of the flags it was made under and
 * rejects it under others, so a cache made under this flag would be rejected by the next run (which
 * loads it before any tuning) and the CLI compiled from source every time.
 */
export function tuneCompiler(command: string, paths: readonly string[], env: NodeJS.ProcessEnv = process.env): (() => void) | undefined {
  if (env.VRAM_LENS_V8_TUNING === '0' || !TUNED_COMMANDS.has(command)) return undefined;
  const files = inputFiles(paths);
  if (files === undefined || !compilesBetterWithoutInlining(files)) return undefined;
  setFlagsFromString('--no-turbo-inlining');
  return () => setFlagsFromString('--turbo-inlining');
}
