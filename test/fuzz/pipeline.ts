/** One fuzz input through the whole pipeline a user's file meets: decode, model, analysis, advice, timeline layout. */
import { SnapshotFileError } from '../../src/engine/decode/errors';
import { isDeepStrictEqual } from 'node:util';
import { WorkLimitError } from '../../src/engine/base/errors';
import { RestartWithoutFastPath, SnapshotReader, readWhole, snapshotFromBytes, withFastPath } from '../../src/engine/decode/load';
import { readInChunks } from '../helpers/chunkedRead';
import { pickleBytesOf } from '../../src/engine/decode/unpack';
import type { Snapshot } from '../../src/engine/snapshot/model';
import { PickleError } from '../../src/engine/pickle/errors';
import { SnapshotFormatError } from '../../src/engine/snapshot/errors';
import { findingMarkers } from '../../src/engine/timeline/findingMarkers';
import { SnapshotSession } from '../../src/engine/session/session';

/** How far an input got: rejected with a clear error at a stage, or all the way through. */
export type Reached = 'file' | 'decode' | 'model' | 'budget' | 'done';

/** An outcome in a failure's message: the refusal, or that a snapshot was read. */
function described(outcome: Snapshot | string): string {
  return typeof outcome === 'string' ? outcome : 'a snapshot';
}

/** The snapshot, or the message it is refused with. */
function outcome(read: () => Snapshot): Snapshot | string {
  try {
    return read();
  } catch (e) {
    if (e instanceof RestartWithoutFastPath) throw new Error('a RestartWithoutFastPath escaped the reader');
    return `${(e as Error).name}: ${(e as Error).message}`;
  }
}

/**
 * A chunk size for `pickle`, from its bytes (so a failure replays): 1 to 4,096 bytes, the small ones
 * often, so that entries, opcodes and the fast path's resumed batches are cut everywhere.
 */
function chunkSizeFor(pickle: Uint8Array): number {
  let h = pickle.length;
  for (let i = 0; i < pickle.length; i += 97) h = Math.imul(h ^ pickle[i], 0x01000193) >>> 0;
  return 1 + (h % (h % 3 === 0 ? 64 : 4096));
}

/**
 * The decoder's fast path changes how fast, never what: the same input read by the general machine
 * alone gives the same snapshot or the same error, read whole or in chunks (as a file is read).
 */
function checkFastPath(bytes: Uint8Array): void {
  const pickle = (() => {
    try {
      return pickleBytesOf(bytes);
    } catch {
      return undefined;
    }
  })();
  if (pickle === undefined) return;
  const fast = outcome(() => readWhole(pickle));
  const general = outcome(() => {
    const reader = new SnapshotReader({ expectedBytes: pickle.length, fastPath: false });
    reader.feed(pickle);
    return reader.finish();
  });
  if (!isDeepStrictEqual(fast, general)) {
    throw new Error(`the fast path and the general machine disagree: ${described(fast)} / ${described(general)}`);
  }
  // In chunks, against the general machine fed the same chunks: a file's work budget grows with the bytes
  // read (`WorkBudget`), so where a file that spends too much is refused depends on the chunks, and the
  // figures of that message with it (the fast path counts an entry cut by a chunk's end once it reads the
  // entry's end): such refusals are compared without their figures.
  const chunk = chunkSizeFor(pickle);
  const fastChunked = outcome(() => withFastPath((fastPath) => readInChunks(pickle, chunk, { fastPath })));
  const generalChunked = outcome(() => readInChunks(pickle, chunk, { fastPath: false }));
  if (!isDeepStrictEqual(withoutFigures(fastChunked), withoutFigures(generalChunked))) {
    throw new Error(`in chunks of ${chunk} bytes, the fast path and the general machine disagree: ${described(fastChunked)} / ${described(generalChunked)}`);
  }
}

/** A refusal for work past the budget without its figures (see `checkFastPath`); anything else as it is. */
function withoutFigures(outcome: Snapshot | string): Snapshot | string {
  return typeof outcome === 'string' && outcome.startsWith('WorkLimitError:') ? outcome.replace(/\d[\d,.]*( kB| MB| GB| bytes)?/g, '#') : outcome;
}

/** Runs the pipeline; returns how far it got, throws for anything but the rejections a user may see. */
export function throughPipeline(bytes: Uint8Array): Reached {
  checkFastPath(bytes);
  let snapshot;
  try {
    snapshot = snapshotFromBytes(bytes);
  } catch (e) {
    if (e instanceof SnapshotFileError) return 'file';
    if (e instanceof PickleError) return 'decode';
    if (e instanceof SnapshotFormatError) return 'model';
    if (e instanceof WorkLimitError) return 'budget';
    throw e;
  }
  const session = new SnapshotSession(snapshot, bytes.length, { includeLibraryFrames: false, extraLibraryPaths: [] });
  const info = session.info();
  session.advice();
  for (const d of info.devices) {
    const device = session.device(d.device);
    void device.lines;
    session.advice(d.device);
    const axes = info.hasTimes ? (['event', 'time'] as const) : (['event'] as const);
    for (const axis of axes) {
      session.timeline.overview(d.device, axis, 200);
      const span = session.timeline.span(d.device, { axis, columns: 300, budget: 500 });
      void span;
      findingMarkers(session.advice(d.device), session.timeline.timeline(d.device).axis(axis));
    }
  }
  return 'done';
}
