/**
 * The list of profiled runs the user can reopen and compare: what each ran, how it ended and where its
 * snapshots are. Plain JSON (kept in VS Code's globalState); retention is decided here.
 */
import type { PredictData } from './command';
import type { ProfileConfiguration } from './configuration';
import type { OutcomeKind } from './outcome';

export interface RunSnapshotFile {
  readonly path: string;
  readonly bytes: number;
  /** The torchrun rank that wrote it; absent for a single-process run. */
  readonly rank?: number;
}

export interface RunRecord {
  readonly id: string;
  /** Epoch milliseconds. */
  readonly startedAt: number;
  readonly endedAt: number;
  readonly configuration: ProfileConfiguration;
  readonly cwd: string;
  readonly interpreter: readonly string[];
  /** The folder that holds this run's files (deleted with the run). */
  readonly folder: string;
  readonly outcome: { readonly kind: OutcomeKind; readonly headline: string; readonly exitCode: number | null };
  /** Highest allocated bytes the sampler or the snapshot saw, if any. */
  readonly peakBytes?: number;
  /** Where the peak was reached (a user line of the loaded snapshot). */
  readonly peakLine?: { readonly file: string; readonly line: number };
  readonly snapshots: readonly RunSnapshotFile[];
  readonly recording: { readonly maxEntries: number; readonly stacks: string };
  readonly torch?: string;
  /** Set for a prediction (Predict VRAM): the GPU it was for; Run Again predicts for it again. */
  readonly predicted?: { readonly gpu: string; readonly memoryBytes: number; readonly capability: string; readonly data?: PredictData };
}

const DAY_MS = 24 * 60 * 60 * 1000;

/** Splits runs into those kept and those older than `keepDays` (0 or less keeps everything). */
export function partitionByAge(
  runs: readonly RunRecord[],
  nowMs: number,
  keepDays: number,
): { keep: RunRecord[]; expired: RunRecord[] } {
  if (!(keepDays > 0)) return { keep: [...runs], expired: [] };
  const cutoff = nowMs - keepDays * DAY_MS;
  const keep: RunRecord[] = [];
  const expired: RunRecord[] = [];
  for (const run of runs) (run.startedAt < cutoff ? expired : keep).push(run);
  return { keep, expired };
}

/** Newest first; a run replaces an older record with the same id. */
export function addRun(runs: readonly RunRecord[], run: RunRecord): RunRecord[] {
  return [run, ...runs.filter((r) => r.id !== run.id)].sort((a, b) => b.startedAt - a.startedAt);
}

/** Reads what globalState holds, dropping anything that is not a run record (a corrupted or older store). */
export function readRuns(stored: unknown): RunRecord[] {
  if (!Array.isArray(stored)) return [];
  return stored.filter(
    (r): r is RunRecord =>
      typeof r === 'object' &&
      r !== null &&
      typeof (r as RunRecord).id === 'string' &&
      typeof (r as RunRecord).startedAt === 'number' &&
      typeof (r as RunRecord).folder === 'string' &&
      Array.isArray((r as RunRecord).snapshots) &&
      typeof (r as RunRecord).configuration === 'object',
  );
}

/** A sortable, file-name-safe run id: local time plus a random suffix, e.g. `20250101-120304-a1b2`. */
export function newRunId(now: Date, random: () => number = Math.random): string {
  const p = (n: number) => String(n).padStart(2, '0');
  const stamp = `${now.getFullYear()}${p(now.getMonth() + 1)}${p(now.getDate())}-${p(now.getHours())}${p(now.getMinutes())}${p(now.getSeconds())}`;
  return `${stamp}-${Math.floor(random() * 0x10000)
    .toString(16)
    .padStart(4, '0')}`;
}
