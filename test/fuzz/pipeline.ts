/** One fuzz input through the whole pipeline a user's file meets: decode, model, analysis, advice, timeline layout. */
import { SnapshotFileError } from '../../src/engine/decode/errors';
import { snapshotFromBytes } from '../../src/engine/decode/load';
import { PickleError } from '../../src/engine/pickle/errors';
import { SnapshotFormatError } from '../../src/engine/snapshot/errors';
import { findingMarkers } from '../../src/engine/timeline/findingMarkers';
import { SnapshotSession } from '../../src/engine/session/session';

/** How far an input got: rejected with a clear error at a stage, or all the way through. */
export type Reached = 'file' | 'decode' | 'model' | 'done';

/** Runs the pipeline; returns how far it got, throws for anything but the rejections a user may see. */
export function throughPipeline(bytes: Uint8Array): Reached {
  let snapshot;
  try {
    snapshot = snapshotFromBytes(bytes);
  } catch (e) {
    if (e instanceof SnapshotFileError) return 'file';
    if (e instanceof PickleError) return 'decode';
    if (e instanceof SnapshotFormatError) return 'model';
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
      const window = session.timeline.window(d.device, { axis, columns: 300, budget: 500 });
      void window;
      findingMarkers(session.advice(d.device), session.timeline.timeline(d.device).axis(axis));
    }
  }
  return 'done';
}
