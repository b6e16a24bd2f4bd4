/**
 * How a profiled run ended, from what the process left behind: the bootstrap's records (the
 * authority when present), its exit code or signal, and whether the user cancelled it.
 */
import type { EnvironmentProblem, ProfileRecord } from '../../protocol/profile';
import { ExitCode } from '../../guards/profile';

export type OutcomeKind =
  | 'completed'
  | 'exit'
  | 'exception'
  | 'oom'
  | 'cancelled'
  | 'killed'
  | 'crashed'
  | 'environment'
  | 'failed-to-start';

export interface RunOutcome {
  readonly kind: OutcomeKind;
  /** One line a person reads first, e.g. "ran out of GPU memory" or "exited with code 3". */
  readonly headline: string;
  /** What to do about it, when there is something to do. */
  readonly advice?: string;
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly problem?: EnvironmentProblem;
  /** The rank whose ending decided the outcome (torchrun jobs). */
  readonly rank?: number;
}

export interface ProcessEnding {
  readonly exitCode: number | null;
  readonly signal: string | null;
  /** The records the bootstrap sent (only `end` and `error` are read here). */
  readonly records: readonly ProfileRecord[];
  readonly cancelRequested: boolean;
  /** The runner killed it after the grace period. */
  readonly killed: boolean;
  /** The interpreter could not be started at all (e.g. ENOENT). */
  readonly spawnError?: { readonly code?: string; readonly message: string; readonly command: string };
}

/** Which ending of several ranks speaks for the job: the most severe. */
const SEVERITY: Record<string, number> = { oom: 5, exception: 4, exit: 3, cancelled: 2, completed: 1 };

const ENVIRONMENT_EXIT: ReadonlyMap<number, { problem: EnvironmentProblem; headline: string; advice: string }> = new Map([
  [
    ExitCode.noTorch,
    {
      problem: 'no-torch' as const,
      headline: 'PyTorch is not installed for the selected interpreter',
      advice: 'Select the environment that has PyTorch (Python: Select Interpreter), or set vramLens.pythonPath.',
    },
  ],
  [
    ExitCode.noCudaBuild,
    {
      problem: 'no-cuda-build' as const,
      headline: 'PyTorch was built without CUDA',
      advice: 'Install a CUDA build of PyTorch in this environment.',
    },
  ],
  [
    ExitCode.noGpu,
    {
      problem: 'no-gpu' as const,
      headline: 'PyTorch sees no GPU',
      advice: 'Check nvidia-smi and CUDA_VISIBLE_DEVICES; on a remote GPU machine, open the folder there (Remote-SSH).',
    },
  ],
  [
    ExitCode.noRecordingApi,
    {
      problem: 'no-recording-api' as const,
      headline: 'this PyTorch cannot record memory history',
      advice: 'Memory snapshots need PyTorch 2.0 or newer (2.1 or newer for free stacks and timestamps).',
    },
  ],
]);

export function classifyOutcome(ending: ProcessEnding): RunOutcome {
  const { exitCode, signal } = ending;
  const base = { exitCode, signal };
  if (ending.spawnError) {
    const e = ending.spawnError;
    return {
      ...base,
      kind: 'failed-to-start',
      headline:
        e.code === 'ENOENT'
          ? `the interpreter ${e.command} was not found`
          : e.code === 'EACCES' || e.code === 'EPERM'
            ? `the interpreter ${e.command} cannot be run (permission denied: is it an executable file?)`
            : `could not start ${e.command}${e.code ? ` (${e.code})` : ''}`,
      advice: 'Select a Python interpreter (Python: Select Interpreter) or set vramLens.pythonPath.',
    };
  }
  const error = ending.records.find((r) => r.type === 'error');
  if (error) return { ...base, kind: 'environment', headline: error.message, advice: error.advice, problem: error.code, rank: error.rank };

  const ends = ending.records.filter((r) => r.type === 'end');
  const worst = ends.reduce<(typeof ends)[number] | undefined>(
    (w, r) => (w === undefined || SEVERITY[r.outcome] > SEVERITY[w.outcome] ? r : w),
    undefined,
  );
  if (ending.killed) {
    return {
      ...base,
      kind: 'killed',
      headline: 'did not stop after Cancel and was killed',
      advice: 'A snapshot is kept if the program wrote one when it was asked to stop.',
      rank: worst?.rank,
    };
  }
  if (worst) {
    const rank = worst.rank;
    switch (worst.outcome) {
      case 'completed':
        return { ...base, kind: 'completed', headline: 'completed', rank };
      case 'exit':
        return { ...base, kind: 'exit', headline: `exited with code ${worst.code}`, rank };
      case 'cancelled':
        return { ...base, kind: 'cancelled', headline: 'cancelled', rank };
      case 'oom':
        return { ...base, kind: 'oom', headline: `ran out of GPU memory${worst.message ? `: ${firstLine(worst.message)}` : ''}`, rank };
      case 'exception':
        return {
          ...base,
          kind: 'exception',
          headline: `raised ${worst.exception ?? 'an exception'}${worst.message ? `: ${firstLine(worst.message)}` : ''}`,
          rank,
        };
    }
  }
  return fromExitStatus(ending);
}

/** No `end` record (the bootstrap never got that far, or the channel was lost): read the exit status. */
function fromExitStatus(ending: ProcessEnding): RunOutcome {
  const { exitCode, signal } = ending;
  const base = { exitCode, signal };
  if (signal !== null) {
    if (ending.cancelRequested) return { ...base, kind: 'cancelled', headline: `cancelled (ended by ${signal})` };
    return {
      ...base,
      kind: 'crashed',
      headline: `ended by ${signal}`,
      advice:
        signal === 'SIGKILL'
          ? 'Something outside killed it: often the system running out of host memory (the Linux OOM killer).'
          : undefined,
    };
  }
  const environment = exitCode === null ? undefined : ENVIRONMENT_EXIT.get(exitCode);
  if (environment) return { ...base, kind: 'environment', ...environment };
  if (exitCode === ExitCode.cancelled || (ending.cancelRequested && exitCode !== 0)) {
    return { ...base, kind: 'cancelled', headline: 'cancelled' };
  }
  if (exitCode === ExitCode.oom) return { ...base, kind: 'oom', headline: 'ran out of GPU memory' };
  if (exitCode === ExitCode.usage) {
    return { ...base, kind: 'crashed', headline: 'the VRAM Lens bootstrap was started with wrong arguments (a bug: please report it)' };
  }
  if (exitCode === 0) return { ...base, kind: 'completed', headline: 'completed' };
  return { ...base, kind: 'exit', headline: `exited with code ${exitCode ?? '?'}` };
}

function firstLine(text: string): string {
  const line = text.split('\n', 1)[0];
  return line.length > 160 ? `${line.slice(0, 157)}...` : line;
}
