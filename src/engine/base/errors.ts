/** The one way to turn anything thrown into words for a message or a log. */
export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** What crosses a worker boundary for an error: its class name, its message, and its code when it has one. */
export interface ErrorShape {
  readonly name: string;
  readonly message: string;
  /** A typed error's code (a snapshot's `SnapshotErrorCode`, a file system error's `ENOENT`): what a caller tells errors apart by. */
  readonly code?: string;
}

/** Anything thrown, as it is posted from a worker thread to its host. */
export function errorShape(e: unknown): ErrorShape {
  if (!(e instanceof Error)) return { name: 'Error', message: String(e) };
  const code = (e as { code?: unknown }).code;
  return typeof code === 'string' ? { name: e.name, message: e.message, code } : { name: e.name, message: e.message };
}

/**
 * An error raised inside a worker thread (snapshot analysis or a workload run), rethrown on the host
 * with the worker-side class name (e.g. PickleError, ProviderUnavailableError) as its `name`.
 */
export class RemoteError extends Error {
  readonly errorName: string;
  /** The worker-side error's code, when it had one. */
  readonly code: string | undefined;
  constructor({ name, message, code }: ErrorShape) {
    super(message);
    this.errorName = name;
    this.name = name;
    this.code = code;
  }
}

/**
 * What a reader of the decoded values finds wrong with what a pickle holds (as opposed to how it is
 * encoded): the pickle decoder lets these through from its hooks as they are, where it would wrap
 * any other error in a PickleError at the byte being decoded.
 */
export class ContentError extends Error {}

/**
 * A file that describes more work than its size can hold: objects shared through the pickle's memo
 * (one segment listed 200,000 times, each holding one block 2,000 times) multiply what a reader would
 * build. Every reader of a snapshot works within a budget proportional to the file's bytes
 * (`src/engine/base/workBudget.ts`); this says which structure ran over it.
 */
export class WorkLimitError extends ContentError {
  override readonly name = 'WorkLimitError';
  readonly code = 'work-limit';
}

/**
 * Error classes (by name, so an error rethrown from a worker counts too) whose messages are written for
 * the user: what happened, in words, and where it helps what to do.
 */
const WRITTEN_FOR_USERS: ReadonlySet<string> = new Set([
  'PickleError',
  'WorkLimitError',
  'SnapshotFormatError',
  'SnapshotFileError',
  'OnnxFormatError',
  'JobError',
  'InputSpecError',
  'ConfigurationError',
  'RuntimeUnavailableError',
  'ProviderUnavailableError',
  'SessionRunError',
  'NoTimesError',
  'CancelledError',
  'SourceKeyError',
  'ProfileFormatError',
  'OutOfMemoryError',
  'InputError',
  'UsageError',
  'UserError',
]);

/** An error whose message is written for the user (the extension's own checks: "that snapshot is no longer loaded"). */
export class UserError extends Error {
  override readonly name: string = 'UserError';
}

/** A worker (or this thread) ran out of the memory it may use; the message says what to do. */
export class OutOfMemoryError extends Error {
  override readonly name = 'OutOfMemoryError';
}

/** JavaScript's own words for an allocation that failed: a limit of the engine, not a fault in the input. */
const ALLOCATION_FAILED = /Array buffer allocation failed|Invalid (typed )?array length|Invalid string length|heap out of memory|Cannot create a string longer/i;

/** Whether `e` says that memory ran out (a worker stopped at its limit, or an allocation refused). */
export function isOutOfMemory(e: unknown): boolean {
  if (typeof e !== 'object' || e === null) return false;
  const err = e as { code?: unknown; name?: unknown; errorName?: unknown; message?: unknown };
  if (err.code === 'ERR_WORKER_OUT_OF_MEMORY' || err.name === 'OutOfMemoryError' || err.errorName === 'OutOfMemoryError') return true;
  return (err.name === 'RangeError' || err.errorName === 'RangeError' || err.code === 'ERR_WORKER_OUT_OF_MEMORY') && typeof err.message === 'string' && ALLOCATION_FAILED.test(err.message);
}

/** Text that comes from the engine rather than from us: a stack frame, Node's worker and error codes, V8's phrases. */
const ENGINE_TEXT = [
  /\n\s+at \S/, // a stack frame
  /\bat Object\.|\bat async |\bat new |node:internal/,
  /Worker terminated|JS heap|heap out of memory|ERR_[A-Z_]{4,}|\bspawn \S+ E[A-Z]{3,}/,
  /Cannot read propert(y|ies) of|is not a function|is not defined|is not iterable|Maximum call stack/,
  /Invalid (typed )?array length|Array buffer allocation failed|Invalid string length/,
  /Unexpected token .* in JSON|Unexpected end of JSON input/,
];

/** Whether `text` holds any of the engine's own words (what a user-facing message never shows). */
export function hasEngineText(text: string): boolean {
  return ENGINE_TEXT.some((r) => r.test(text));
}

/** What to say for an error that is a fault of ours, not of the input (the details go to the log). */
export const INTERNAL_ERROR = 'an unexpected error inside VRAM Lens stopped it; please report it (the VRAM Lens log, or the command with VRAM_LENS_DEBUG=1, has the details)';

/** What to say when memory ran out, unless the error says more. */
export const OUT_OF_MEMORY = 'there was not enough memory to finish: close other snapshots or programs and try again';

const FILE_ERRORS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file or folder',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EISDIR: 'it is a folder, not a file',
  ENOTDIR: 'a part of the path is not a folder',
  EMFILE: 'too many files are open; close some programs and try again',
  ENOSPC: 'the disk is full',
  EROFS: 'the file system is read-only',
};

/**
 * The one way to turn anything thrown into words for a user: the message of our own errors as it is,
 * a file system error as what happened to which file, memory that ran out as that, and anything else
 * (a fault of ours) as an internal error, never the engine's text or a stack.
 */
export function userMessage(e: unknown): string {
  const err = typeof e === 'object' && e !== null ? (e as { name?: unknown; errorName?: unknown; message?: unknown; code?: unknown; path?: unknown }) : undefined;
  const name = typeof err?.errorName === 'string' ? err.errorName : typeof err?.name === 'string' ? err.name : undefined;
  const message = typeof err?.message === 'string' ? err.message : typeof e === 'string' ? e : '';
  if (name !== undefined && WRITTEN_FOR_USERS.has(name) && !hasEngineText(message)) return message;
  if (isOutOfMemory(e)) return name === 'OutOfMemoryError' ? message : OUT_OF_MEMORY;
  if (typeof err?.code === 'string' && FILE_ERRORS[err.code] !== undefined) {
    return typeof err.path === 'string' ? `${err.path}: ${FILE_ERRORS[err.code]}` : FILE_ERRORS[err.code];
  }
  // A plain Error with words of ours (`throw new Error('that snapshot is no longer loaded')`) reads as it is;
  // the engine's own errors (TypeError, RangeError, ...) and anything holding its text do not.
  if ((name === 'Error' || name === undefined) && message !== '' && !hasEngineText(message)) return message;
  return INTERNAL_ERROR;
}
