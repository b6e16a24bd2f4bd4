/** The one way to turn anything thrown into words for a message or a log. */
export function errorMessage(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** What crosses a worker boundary for an error: its class name and its message. */
export interface ErrorShape {
  readonly name: string;
  readonly message: string;
}

/** Anything thrown, as it is posted from a worker thread to its host. */
export function errorShape(e: unknown): ErrorShape {
  return e instanceof Error ? { name: e.name, message: e.message } : { name: 'Error', message: String(e) };
}

/**
 * An error raised inside a worker thread (snapshot analysis or a workload run), rethrown on the host
 * with the worker-side class name (e.g. PickleError, ProviderUnavailableError) as its `name`.
 */
export class RemoteError extends Error {
  readonly errorName: string;
  constructor({ name, message }: ErrorShape) {
    super(message);
    this.errorName = name;
    this.name = name;
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
 * (`src/engine/decode/budget.ts`); this says which structure ran over it.
 */
export class WorkLimitError extends ContentError {
  override readonly name = 'WorkLimitError';
}
