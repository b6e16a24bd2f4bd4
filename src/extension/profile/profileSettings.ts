/**
 * The `vramLens.profile.*` settings as one typed value, read once per run: the one place that reads
 * them and states their defaults. A value of the wrong type, or below its minimum, falls back to the
 * default or the minimum that package.json declares (test/unit/extension/profile/profileSettings.test.ts checks these
 * against package.json). Also what a run derives from them: its recording options and timeouts.
 */
import type { PredictData, RecordingOptions, StackMode } from '../../runtime/profile/command';
import { isPredictData } from '../../runtime/profile/command';
import type { LensPlacement } from '../../runtime/profile/lens';
import type { RunTimeouts } from '../../runtime/profile/runner';

export interface ProfileSettings {
  readonly maxEntries: number;
  readonly stacks: StackMode;
  readonly sampleIntervalMs: number;
  readonly nprocPerNode: number;
  readonly env: Readonly<Record<string, string | null>>;
  readonly cancelGraceSeconds: number;
  readonly dumpGraceSeconds: number;
  readonly keepRunsDays: number;
  /** Backward on the calling thread and module ranges, so backward memory lands on lines. */
  readonly backwardLines: boolean;
  /** Where the "Profile VRAM" code lens goes. */
  readonly codeLens: LensPlacement;
  /** The run configurations described in settings, as written (each is checked when read). */
  readonly configurations: readonly unknown[];
  /** Whether launch.json's Python configurations are offered too. */
  readonly useLaunchConfigurations: boolean;
  /** Predict VRAM's tensors: no data ('fake', fast) or the program's data computed on the CPU ('cpu'). */
  readonly predictData: PredictData;
}

type NumberKey = 'maxEntries' | 'sampleIntervalMs' | 'nprocPerNode' | 'cancelGraceSeconds' | 'dumpGraceSeconds' | 'keepRunsDays';

export const PROFILE_DEFAULTS: ProfileSettings = {
  maxEntries: 1_000_000,
  stacks: 'python',
  sampleIntervalMs: 250,
  nprocPerNode: 1,
  env: {},
  cancelGraceSeconds: 10,
  dumpGraceSeconds: 300,
  keepRunsDays: 14,
  backwardLines: true,
  codeLens: 'mainGuard',
  configurations: [],
  useLaunchConfigurations: true,
  predictData: 'fake',
};

const LENS_PLACEMENTS: readonly LensPlacement[] = ['mainGuard', 'fileTop', 'off'];

/** After the program exits, how long the channel may take to drain (not a setting). */
export const DRAIN_MS = 2000;

export const PROFILE_MINIMUMS: Readonly<Record<NumberKey, number>> = {
  maxEntries: 1000,
  sampleIntervalMs: 50,
  nprocPerNode: 1,
  cancelGraceSeconds: 1,
  dumpGraceSeconds: 60,
  keepRunsDays: 0,
};

const INTEGERS: ReadonlySet<NumberKey> = new Set(['maxEntries', 'sampleIntervalMs', 'nprocPerNode']);

/** The settings from `get` (a `vramLens.profile` configuration section's `get`). */
export function readProfileSettings(get: (key: keyof ProfileSettings) => unknown): ProfileSettings {
  const number = (key: NumberKey): number => {
    const value = get(key);
    if (typeof value !== 'number' || !Number.isFinite(value)) return PROFILE_DEFAULTS[key];
    const whole = INTEGERS.has(key) ? Math.trunc(value) : value;
    return Math.max(PROFILE_MINIMUMS[key], whole);
  };
  const stacks = get('stacks');
  const env = get('env');
  const flag = (key: 'backwardLines' | 'useLaunchConfigurations'): boolean => {
    const value = get(key);
    return typeof value === 'boolean' ? value : PROFILE_DEFAULTS[key];
  };
  const codeLens = get('codeLens');
  const configurations = get('configurations');
  const predictData = get('predictData');
  return {
    maxEntries: number('maxEntries'),
    stacks: stacks === 'python' || stacks === 'all' ? stacks : PROFILE_DEFAULTS.stacks,
    sampleIntervalMs: number('sampleIntervalMs'),
    nprocPerNode: number('nprocPerNode'),
    env: isEnv(env) ? env : PROFILE_DEFAULTS.env,
    cancelGraceSeconds: number('cancelGraceSeconds'),
    dumpGraceSeconds: number('dumpGraceSeconds'),
    keepRunsDays: number('keepRunsDays'),
    backwardLines: flag('backwardLines'),
    codeLens: LENS_PLACEMENTS.find((p) => p === codeLens) ?? PROFILE_DEFAULTS.codeLens,
    configurations: Array.isArray(configurations) ? (configurations as unknown[]) : PROFILE_DEFAULTS.configurations,
    useLaunchConfigurations: flag('useLaunchConfigurations'),
    predictData: isPredictData(predictData) ? predictData : PROFILE_DEFAULTS.predictData,
  };
}

/** What the bootstrap records, from the settings. */
export function recordingOptions(settings: ProfileSettings): RecordingOptions {
  return { maxEntries: settings.maxEntries, stacks: settings.stacks, sampleIntervalMs: settings.sampleIntervalMs, backwardLines: settings.backwardLines };
}

/** How long a cancelled run and its snapshot may take, from the settings. */
export function runTimeouts(settings: ProfileSettings): RunTimeouts {
  return { graceMs: 1000 * settings.cancelGraceSeconds, dumpGraceMs: 1000 * settings.dumpGraceSeconds, drainMs: DRAIN_MS };
}

function isEnv(value: unknown): value is Record<string, string | null> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.values(value).every((v) => typeof v === 'string' || v === null)
  );
}
