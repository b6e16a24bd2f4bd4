/**
 * What the Python bootstrap (the package src/python/vram_lens) tells the extension: its exit codes and
 * the JSON-line records it writes to the progress channel. Types only: the values the runner checks
 * against (the exit codes, the name lists, each record's required fields and `parseRecord`) are in
 * src/guards/profile.ts. The bootstrap mirrors these in `vram_lens/protocol.py` (exit codes, names) and
 * `vram_lens/channel.py` (one method per record type); test/unit/protocol/profileAgreement.test.ts
 * reads both sides and compares them.
 */

/** The names of the exit codes the bootstrap uses for itself (their numbers: `ExitCode`, src/guards/profile.ts); any other code is the program's own. */
export type ExitCodeName = 'exception' | 'usage' | 'noTorch' | 'noCudaBuild' | 'noGpu' | 'noRecordingApi' | 'oom' | 'cancelled';

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

/**
 * Why nothing was recorded. Since the bootstrap records lazily, the program still runs in every case but
 * a missing bootstrap. `no-ipython`: a notebook, and no IPython in the interpreter to run its cells in
 * (nothing ran).
 */
export type EnvironmentProblem =
  | 'no-torch'
  | 'torch-import-failed'
  | 'no-cuda-build'
  | 'no-gpu'
  | 'no-recording-api'
  | 'recording-unsupported'
  | 'cuda-unused'
  | 'no-ipython';

export type EndOutcome = 'completed' | 'exit' | 'exception' | 'oom' | 'cancelled';

/** Why a snapshot is written (`dumping`, `dumped`, `dump-failed`). */
export type DumpReason = 'end' | 'oom' | 'cancel';

/** The form of `_record_memory_history` the bootstrap recorded with (`hello.api`). */
export type RecordingForm = '2.1' | '2.0';

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
