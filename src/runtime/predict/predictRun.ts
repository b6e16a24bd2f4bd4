/**
 * A prediction from start to placed snapshots, for the CLI (the extension runs the same command through its
 * Profiler, with progress and cancellation of its own): the program runs under the bootstrap as Profile VRAM
 * runs it, with `--predict-*` options, then every snapshot it wrote is placed by the caching allocator's
 * replay (`placeFile.ts`). The snapshots are those the program dumped itself (its own
 * `torch.cuda.memory._dump_snapshot(path)`), else the whole run's at `snapshot`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { errorMessage } from '../../engine/base/errors';
import type { ProfileRecord } from '../../protocol/profile';
import type { RecordingOptions } from '../profile/command';
import { buildProfileCommand } from '../profile/command';
import type { ProfileConfiguration } from '../profile/configuration';
import type { RunOutcome } from '../profile/outcome';
import { classifyOutcome } from '../profile/outcome';
import type { RunListener, RunResult } from '../profile/runner';
import { ProfileRun, channelAddress } from '../profile/runner';
import type { PlacedFile } from './placeFile';
import { placePredictedFile } from './placeFile';

export interface PredictionRequest {
  readonly configuration: ProfileConfiguration;
  readonly cwd: string;
  /** The interpreter command (an executable and any arguments before the script). */
  readonly interpreter: readonly string[];
  /** The bootstrap's entry (src/python/vram_lens/__main__.py of this checkout or the extension). */
  readonly bootstrap: string;
  /** Where the whole run's snapshot goes when the program dumps none itself. */
  readonly snapshot: string;
  /** Recording options with `predict` set. */
  readonly recording: RecordingOptions;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly listener?: RunListener;
}

export interface PredictionOutcome {
  readonly result: RunResult;
  readonly outcome: RunOutcome;
  /** The snapshots written and placed, in the order the program wrote them. */
  readonly files: readonly PlacedFile[];
  /** Snapshots that were written but could not be placed, and why. */
  readonly failures: readonly { readonly path: string; readonly message: string }[];
}

/** The paths of the snapshots a run wrote, as its `dumped` records say, in order, each once (the last write wins). */
export function dumpedPaths(records: readonly ProfileRecord[]): string[] {
  const paths: string[] = [];
  for (const r of records) {
    if (r.type !== 'dumped') continue;
    const at = paths.indexOf(r.path);
    if (at >= 0) paths.splice(at, 1);
    paths.push(r.path);
  }
  return paths;
}

/** Places every snapshot a run wrote (each file once). */
export async function placeDumpedFiles(records: readonly ProfileRecord[]): Promise<{ files: PlacedFile[]; failures: { path: string; message: string }[] }> {
  const files: PlacedFile[] = [];
  const failures: { path: string; message: string }[] = [];
  for (const file of dumpedPaths(records)) {
    try {
      const placed = await placePredictedFile(file);
      if (placed) files.push(placed);
    } catch (e) {
      failures.push({ path: file, message: errorMessage(e) });
    }
  }
  return { files, failures };
}

export async function runPrediction(request: PredictionRequest): Promise<PredictionOutcome> {
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'vram-lens-predict-'));
  try {
    const id = path.basename(scratch).replace(/[^A-Za-z0-9-]/g, '');
    const channel = channelAddress(id);
    const cancelFile = path.join(scratch, 'cancel');
    const command = buildProfileCommand(request.configuration, request.cwd, request.recording, {
      interpreter: request.interpreter,
      bootstrap: request.bootstrap,
      snapshot: request.snapshot,
      channel,
      cancelFile,
    }, request.env);
    const run = new ProfileRun(command, channel, cancelFile, { graceMs: 10_000, dumpGraceMs: 60_000, drainMs: 2_000 }, request.listener ?? {});
    const stop = (): void => run.cancel();
    process.once('SIGINT', stop);
    let result: RunResult;
    try {
      result = await run.done;
    } finally {
      process.removeListener('SIGINT', stop);
    }
    const { files, failures } = await placeDumpedFiles(result.records);
    return { result, outcome: classifyOutcome(result), files, failures };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}
