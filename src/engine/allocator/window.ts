/**
 * Whether the allocator replay applies to a snapshot loaded as a window of its recording. The replay
 * starts from the segments PyTorch had when recording began (worked out from the whole trace and the
 * `segments` at the dump) and checks itself against every segment event and address PyTorch recorded;
 * a window holds only some of those events, so the replay, its self-check and its predictions need the
 * whole recording. A window that holds every event of its trace is the whole recording.
 */
import type { DeviceReplay } from '../analysis/replay';
import { replayDevice } from '../analysis/replay';
import { shortfallWords } from '../analysis/summary';
import type { Snapshot, TraceWindow } from '../snapshot/model';
import { formatCount } from '../text/format';

/** Whether a trace's window leaves out some of the recorded events. */
export function isPartialWindow(window: TraceWindow | undefined, length: number): boolean {
  return window !== undefined && (window.firstEvent > 0 || length < window.recordedEvents);
}

/**
 * Why the allocator replay does not apply to this device of the snapshot (a window of its recording
 * was loaded), in words for the user; undefined when it applies.
 */
export function allocatorOutOfWindow(snapshot: Snapshot, device: number): string | undefined {
  return windowReplayProblem(snapshot, device)?.words;
}

/**
 * Why the allocator replay does not apply to a window of the recording: `partialWindow` (load all of the
 * file), or `reservedUnknown` where the window allocates more than the recording's segments reserve,
 * said first because loading all of the file would not help. Undefined when it applies.
 */
export function windowReplayProblem(
  snapshot: Snapshot,
  device: number,
  /** The device's replay, when the caller has it (its `reservedShortfall` is read; else the window is replayed). */
  replay?: Pick<DeviceReplay, 'reservedShortfall'>,
): { readonly kind: 'partialWindow' | 'reservedUnknown'; readonly words: string } | undefined {
  const trace = snapshot.traces[device];
  if (!trace || !isPartialWindow(trace.window, trace.length)) return undefined;
  const w = trace.window!;
  const shortfall = (replay ?? replayDevice(snapshot, device)).reservedShortfall;
  if (shortfall !== undefined) {
    return {
      kind: 'reservedUnknown',
      words:
        `the snapshot does not record this device's reserved memory (${shortfallWords(shortfall, w.firstEvent)}): ` +
        'the caching allocator cannot be replayed on it, from a window of the recording or from all of it',
    };
  }
  const span = trace.length === 0 ? 'no events' : `events ${formatCount(w.firstEvent)} to ${formatCount(w.firstEvent + trace.length - 1)}`;
  return {
    kind: 'partialWindow',
    words:
      `the caching allocator replay needs the whole recording, and this snapshot was loaded as a window of it (${span} of ` +
      `${formatCount(w.recordedEvents)} on device ${device}): open the file again and load all of it to see the allocator's self-check, its view and its predictions`,
  };
}
