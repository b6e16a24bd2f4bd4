/**
 * The `vramLens.profile.*` settings as one typed value, read once per run. A value of the wrong type,
 * or below its minimum, falls back to the default or the minimum that package.json declares
 * (test/unit/profileSettings.test.ts checks these against package.json).
 */
import type { StackMode } from '../../core/profile/command';

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
};

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
  return {
    maxEntries: number('maxEntries'),
    stacks: stacks === 'python' || stacks === 'all' ? stacks : PROFILE_DEFAULTS.stacks,
    sampleIntervalMs: number('sampleIntervalMs'),
    nprocPerNode: number('nprocPerNode'),
    env: isEnv(env) ? env : PROFILE_DEFAULTS.env,
    cancelGraceSeconds: number('cancelGraceSeconds'),
    dumpGraceSeconds: number('dumpGraceSeconds'),
    keepRunsDays: number('keepRunsDays'),
    backwardLines: typeof get('backwardLines') === 'boolean' ? (get('backwardLines') as boolean) : PROFILE_DEFAULTS.backwardLines,
  };
}

function isEnv(value: unknown): value is Record<string, string | null> {
  return (
    typeof value === 'object' &&
    value !== null &&
    !Array.isArray(value) &&
    Object.values(value).every((v) => typeof v === 'string' || v === null)
  );
}
