/**
 * The profiled runs' snapshot files, for pickers outside the Runs view (Compare Snapshots' sides): read from
 * the globalState key the profile feature's run history keeps them under (`RUNS_KEY`).
 */
import type * as vscode from 'vscode';
import { readRuns } from '../../runtime/profile/history';

/** The globalState key of the profiled runs (profile/runHistory.ts writes it). */
export const RUNS_KEY = 'vramLens.profile.runs';

/** A recent run's snapshot file. */
export interface RunFile {
  readonly path: string;
  /** The run's name (its configuration's). */
  readonly run: string;
  /** Epoch milliseconds. */
  readonly startedAt: number;
  readonly rank?: number;
}

/** The snapshot files of the profiled runs kept in `state` (globalState). */
export function runSnapshotFiles(state: vscode.Memento): RunFile[] {
  return readRuns(state.get<unknown>(RUNS_KEY)).flatMap((r) =>
    r.snapshots.map((s) => ({ path: s.path, run: r.configuration.name, startedAt: r.startedAt, ...(s.rank === undefined ? {} : { rank: s.rank }) })),
  );
}
