/**
 * The argv that starts a profiled run: the interpreter, the bootstrap and its options, then the program
 * and its arguments. Always an argv array for `spawn` with `shell: false`; nothing is ever joined into a
 * shell string.
 */
import type { ProfileConfiguration } from './configuration';

export type StackMode = 'python' | 'all';

export interface RecordingOptions {
  /** `max_entries` of `_record_memory_history`: how many trace events PyTorch keeps (oldest dropped). */
  readonly maxEntries: number;
  /** `stacks`: 'python' (fast dumps) or 'all' (C++ frames too; dumps can take minutes). */
  readonly stacks: StackMode;
  /** How often the bootstrap samples memory for the live display. */
  readonly sampleIntervalMs: number;
  /** Backward on the calling thread and per-module backward ranges (PyTorch 2.0+); default on. */
  readonly backwardLines?: boolean;
  /** Predict VRAM: run on fake 'cuda' tensors and write the snapshot this GPU would record, instead of recording. */
  readonly predict?: PredictFor;
}

/** The GPU a prediction is for, and where the bootstrap caches the native piece it builds once per PyTorch. */
export interface PredictFor {
  readonly gpuName: string;
  readonly memoryBytes: number;
  /** CUDA compute capability, "8.0". */
  readonly capability: string;
  /** Outside every project (the extension's global storage; the CLI leaves it to the bootstrap's default). */
  readonly nativeCache?: string;
  /** 'cpu': the program's own data, computed on the CPU beside the fake tensors (values read from data are then known). */
  readonly data?: PredictData;
}

/** What a prediction's tensors hold: nothing ('fake': values read from data are assumed) or the program's data ('cpu'). */
export type PredictData = 'fake' | 'cpu';

/** Whether a value from a setting, a command argument or the command line names what a prediction's tensors hold. */
export function isPredictData(value: unknown): value is PredictData {
  return value === 'fake' || value === 'cpu';
}

/**
 * The bootstrap's entry, relative to the extension's (or this checkout's) root: the package
 * src/python/vram_lens, started as a file so that Python needs nothing on its path to find it.
 */
export const BOOTSTRAP_ENTRY: readonly string[] = ['src', 'python', 'vram_lens', '__main__.py'];

export interface RunPaths {
  /** The interpreter command: an executable and any arguments that must precede the script (e.g. `conda run ...`). */
  readonly interpreter: readonly string[];
  readonly bootstrap: string;
  readonly snapshot: string;
  readonly channel: string;
  readonly cancelFile: string;
}

export interface ProfileCommand {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  /** Whether it runs through torch.distributed.run (one snapshot per rank). */
  readonly distributed: boolean;
}

/** Options that `torch.distributed.run` gets for a single-node job of `n` processes. */
export function torchrunArgs(n: number): string[] {
  return ['-m', 'torch.distributed.run', '--standalone', '--nnodes', '1', '--nproc_per_node', String(n)];
}

export function buildProfileCommand(
  config: ProfileConfiguration,
  cwd: string,
  recording: RecordingOptions,
  paths: RunPaths,
  baseEnv: Readonly<Record<string, string | undefined>>,
): ProfileCommand {
  if (paths.interpreter.length === 0 || paths.interpreter[0] === '') throw new Error('no Python interpreter');
  const [command, ...prefix] = paths.interpreter;
  const nproc = config.nprocPerNode ?? 1;
  const distributed = nproc > 1;
  const bootstrapOptions = [
    '--snapshot',
    paths.snapshot,
    '--channel',
    paths.channel,
    '--cancel-file',
    paths.cancelFile,
    '--max-entries',
    String(Math.max(1, Math.floor(recording.maxEntries))),
    '--stacks',
    recording.stacks,
    '--interval',
    String(Math.max(20, recording.sampleIntervalMs) / 1000),
    ...(recording.backwardLines === false ? ['--backward-lines', 'off'] : []),
    ...(distributed ? ['--per-rank'] : []),
    ...(recording.predict ? predictOptions(recording.predict) : []),
  ];
  const target =
    config.target.kind === 'module' ? ['--module', config.target.name] : [config.target.kind === 'notebook' ? '--notebook' : '--script', config.target.path];
  const args = [
    ...prefix,
    ...(distributed ? torchrunArgs(nproc) : []),
    paths.bootstrap,
    ...bootstrapOptions,
    ...target,
    '--',
    ...config.args,
  ];
  return { command, args, cwd, env: mergeEnv(baseEnv, config.env), distributed };
}

function predictOptions(p: PredictFor): string[] {
  return [
    '--predict-memory',
    String(Math.floor(p.memoryBytes)),
    '--predict-gpu',
    p.gpuName,
    '--predict-capability',
    p.capability,
    ...(p.nativeCache !== undefined ? ['--native-cache', p.nativeCache] : []),
    ...(p.data === 'cpu' ? ['--predict-data', 'cpu'] : []),
  ];
}

/** The child's environment: the host's, then the configuration's (null removes), then unbuffered output. */
export function mergeEnv(
  base: Readonly<Record<string, string | undefined>>,
  overrides: Readonly<Record<string, string | null>>,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(base)) if (v !== undefined) env[k] = v;
  for (const [k, v] of Object.entries(overrides)) {
    if (v === null) delete env[k];
    else env[k] = v;
  }
  env.PYTHONUNBUFFERED = '1';
  return env;
}

/** The file a rank's snapshot is written to (the bootstrap's `_rank_path`): `snapshot.rank3.pickle`. */
export function rankSnapshotPath(snapshot: string, rank: number): string {
  const m = /^(.*?)(\.[^./\\]*)?$/.exec(snapshot)!;
  return `${m[1]}.rank${rank}${m[2] ?? '.pickle'}`;
}
