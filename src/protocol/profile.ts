/**
 * What the Python bootstrap (the package src/python/vram_lens) tells the extension: its exit codes and
 * the JSON-line records it writes to the progress channel. The bootstrap mirrors these in
 * `vram_lens/protocol.py` (exit codes, names) and `vram_lens/channel.py` (one method per record type);
 * test/unit/protocol/profileAgreement.test.ts reads both sides and compares them.
 */

/** Exit codes the bootstrap uses for itself; any other code is the program's own. */
export const ExitCode = {
  exception: 1,
  usage: 86,
  noTorch: 87,
  noCudaBuild: 88,
  noGpu: 89,
  noRecordingApi: 90,
  oom: 91,
  /** Predict VRAM cannot run in this environment (an `error` record says what is missing); the program did not run. */
  predictUnavailable: 92,
  cancelled: 130,
} as const;

/** Memory of one GPU as the sampler saw it (bytes, from torch.cuda.memory_allocated & co). */
export interface DeviceSample {
  readonly index: number;
  readonly allocated: number;
  readonly peakAllocated: number;
  readonly reserved: number;
  readonly peakReserved: number;
}

interface RecordBase {
  readonly pid?: number;
  /** Present when the process runs as one rank of torchrun. */
  readonly rank?: number;
}

/** Why nothing was recorded. Since the bootstrap records lazily, the program still runs in every case but a missing bootstrap. */
export const ENVIRONMENT_PROBLEMS = [
  'no-torch',
  'torch-import-failed',
  'no-cuda-build',
  'no-gpu',
  'no-recording-api',
  'recording-unsupported',
  'cuda-unused',
  /** A notebook, and no IPython in the interpreter to run its cells in (nothing ran). */
  'no-ipython',
  /** Predict VRAM cannot run here: no C++ compiler or no PyTorch headers for its native piece, or PyTorch too old. */
  'predict-unavailable',
] as const;
export type EnvironmentProblem = (typeof ENVIRONMENT_PROBLEMS)[number];

export const END_OUTCOMES = ['completed', 'exit', 'exception', 'oom', 'cancelled'] as const;
export type EndOutcome = (typeof END_OUTCOMES)[number];

/** Why a snapshot is written (`dumping`, `dumped`, `dump-failed`). */
export const DUMP_REASONS = ['end', 'oom', 'cancel', 'program'] as const;
export type DumpReason = (typeof DUMP_REASONS)[number];

/** The form of `_record_memory_history` the bootstrap recorded with (`hello.api`). */
export const RECORDING_FORMS = ['2.1', '2.0'] as const;
export type RecordingForm = (typeof RECORDING_FORMS)[number];

export type ProfileRecord =
  | (RecordBase & {
      readonly type: 'hello';
      readonly python: string;
      readonly torch: string;
      readonly cuda: string | null;
      readonly api: RecordingForm;
      readonly devices: number;
      readonly snapshot: string;
    })
  | (RecordBase & {
      /** A prediction started (Predict VRAM): the program runs on fake 'cuda' tensors for this GPU. */
      readonly type: 'predicting';
      readonly gpu: string;
      readonly memory: number;
      readonly capability: string;
      readonly torch: string;
      readonly python: string;
      readonly data: string;
      readonly snapshot: string;
    })
  | (RecordBase & { readonly type: 'progress'; readonly t: number; readonly devices: readonly DeviceSample[] })
  | (RecordBase & { readonly type: 'error'; readonly code: EnvironmentProblem; readonly message: string; readonly advice: string })
  | (RecordBase & { readonly type: 'notice'; readonly code: string; readonly message: string })
  | (RecordBase & { readonly type: 'oom'; readonly device: number; readonly requested: number; readonly t: number })
  | (RecordBase & { readonly type: 'cancelling'; readonly t: number })
  | (RecordBase & { readonly type: 'dumping'; readonly reason: DumpReason; readonly t: number })
  | (RecordBase & { readonly type: 'dumped'; readonly reason: string; readonly path: string; readonly bytes: number; readonly seconds: number })
  | (RecordBase & { readonly type: 'dump-failed'; readonly reason: string; readonly message: string })
  | (RecordBase & {
      readonly type: 'end';
      readonly outcome: EndOutcome;
      readonly code: number;
      readonly snapshot: string;
      /** False when no snapshot was written (recording never started: see the `error` record). */
      readonly recorded?: boolean;
      readonly t: number;
      readonly exception?: string;
      readonly message?: string;
    });

export type RecordType = ProfileRecord['type'];

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
  predicting: { gpu: isString, memory: isNumber, torch: isString },
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

/** Splits a byte stream into lines however the chunks fall; a line longer than `maxLine` is dropped. */
export class LineSplitter {
  private pending = '';
  private readonly decoder = new TextDecoder();
  private skipping = false;

  constructor(private readonly maxLine = 1 << 20) {}

  /** The complete lines in this chunk (without their newline). */
  push(chunk: Uint8Array): string[] {
    const text = this.pending + this.decoder.decode(chunk, { stream: true });
    const parts = text.split('\n');
    this.pending = parts.pop() ?? '';
    const lines: string[] = [];
    for (const part of parts) {
      if (this.skipping) {
        this.skipping = false;
        continue;
      }
      lines.push(part.endsWith('\r') ? part.slice(0, -1) : part);
    }
    if (this.pending.length > this.maxLine) {
      this.pending = '';
      this.skipping = true;
    }
    return lines;
  }
}
