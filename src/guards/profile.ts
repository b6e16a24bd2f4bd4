/**
 * What the runner checks the bootstrap's words against (src/protocol/profile.ts): the numbers of its
 * exit codes, the names records may carry, the fields each record type must have, and `parseRecord`,
 * which turns one channel line into a record or nothing. Each list is a record keyed by its protocol
 * type, so a name added there and not here fails to compile.
 */
import type { DeviceSample, DumpReason, EndOutcome, EnvironmentProblem, ExitCodeName, ProfileRecord, RecordingForm, RecordType } from '../protocol/profile';

/** Exit codes the bootstrap uses for itself; any other code is the program's own. */
export const ExitCode = {
  exception: 1,
  usage: 86,
  noTorch: 87,
  noCudaBuild: 88,
  noGpu: 89,
  noRecordingApi: 90,
  oom: 91,
  cancelled: 130,
} as const satisfies Record<ExitCodeName, number>;

/** The names of a union, from a record listing each once (a name missing or extra fails to compile). */
const names = <N extends string>(all: Record<N, true>): readonly N[] => Object.keys(all) as N[];

export const ENVIRONMENT_PROBLEMS = names<EnvironmentProblem>({
  'no-torch': true,
  'torch-import-failed': true,
  'no-cuda-build': true,
  'no-gpu': true,
  'no-recording-api': true,
  'recording-unsupported': true,
  'cuda-unused': true,
  'no-ipython': true,
});
export const END_OUTCOMES = names<EndOutcome>({ completed: true, exit: true, exception: true, oom: true, cancelled: true });
export const DUMP_REASONS = names<DumpReason>({ end: true, oom: true, cancel: true });
export const RECORDING_FORMS = names<RecordingForm>({ '2.1': true, '2.0': true });

type Json = Record<string, unknown>;

const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isString = (v: unknown): v is string => typeof v === 'string';

function isSample(v: unknown): v is DeviceSample {
  if (typeof v !== 'object' || v === null) return false;
  const s = v as Json;
  return isNumber(s.index) && isNumber(s.allocated) && isNumber(s.peakAllocated) && isNumber(s.reserved) && isNumber(s.peakReserved);
}

const isOneOf =
  (values: readonly string[]) =>
  (v: unknown): boolean =>
    typeof v === 'string' && values.includes(v);

/** Fields each record type must carry, with their checks; anything else is ignored. Its keys are every record type. */
export const REQUIRED_FIELDS: Record<RecordType, Record<string, (v: unknown) => boolean>> = {
  hello: { torch: isString, api: isOneOf(RECORDING_FORMS), devices: isNumber },
  progress: { t: isNumber, devices: (v) => Array.isArray(v) && v.every(isSample) },
  error: { code: isString, message: isString, advice: isString },
  notice: { code: isString, message: isString },
  oom: { device: isNumber, requested: isNumber },
  cancelling: {},
  dumping: { reason: isString },
  dumped: { path: isString, bytes: isNumber },
  'dump-failed': { message: isString },
  end: { outcome: isOneOf(END_OUTCOMES), code: isNumber },
};

/** One channel line as a record, or undefined for a line that is not one we know (never throws). */
export function parseRecord(line: string): ProfileRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const record = value as Json;
  const type = record.type;
  if (!isString(type) || !Object.hasOwn(REQUIRED_FIELDS, type)) return undefined;
  const checks = REQUIRED_FIELDS[type as RecordType];
  for (const [field, ok] of Object.entries(checks)) if (!ok(record[field])) return undefined;
  if (record.rank !== undefined && !isNumber(record.rank)) return undefined;
  return record as unknown as ProfileRecord;
}
