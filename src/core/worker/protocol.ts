/**
 * The typed RPC between the extension host (or any Node caller) and a snapshot worker.
 * One worker holds one loaded snapshot; every query about it is a method here.
 * Add a method by extending `WorkerMethods` and implementing it in `methods.ts`.
 */
import type { Finding } from '../advice/finding';
import type { FrameFilterOptions } from '../analysis/frameFilter';
import type { LineFigures } from '../analysis/lines';
import type { DeviceSummary } from '../analysis/summary';
import type { SeriesAxis, TotalsSeries } from '../compare/totals';
import type { SnapshotLayout } from '../snapshot/model';

export interface SnapshotInfo {
  readonly layout: SnapshotLayout;
  readonly byteLength: number;
  readonly devices: readonly DeviceSummary[];
  readonly frames: number;
  readonly stacks: number;
  readonly externalAnnotations: number;
  /** Whether trace entries carry `time_us` (PyTorch 2.1+), so a wall-time axis exists. */
  readonly hasTimes: boolean;
}

export interface WorkerMethods {
  /** Decode and analyse a snapshot file's bytes; must be the first call. */
  load: { params: { bytes: Uint8Array; filter: FrameFilterOptions }; result: SnapshotInfo };
  /** Re-run the attribution with another user-frame filter. */
  setFilter: { params: { filter: FrameFilterOptions }; result: SnapshotInfo };
  /** Every line with figures on one device, sorted by file then line. */
  lines: { params: { device: number }; result: readonly LineFigures[] };
  /** One device's active and reserved totals, max-downsampled to at most `points` buckets (overlays, sparklines). */
  totals: { params: { device: number; axis: SeriesAxis; points: number }; result: TotalsSeries };
  /** The advisor's findings for one device (or every device), without quick fixes (they need source text). */
  advice: { params: { device?: number }; result: readonly Finding[] };
}

export type MethodName = keyof WorkerMethods;
export type ParamsOf<M extends MethodName> = WorkerMethods[M]['params'];
export type ResultOf<M extends MethodName> = WorkerMethods[M]['result'];

export interface RequestMessage<M extends MethodName = MethodName> {
  readonly kind: 'request';
  readonly id: number;
  readonly method: M;
  readonly params: ParamsOf<M>;
}

export interface ProgressMessage {
  readonly kind: 'progress';
  readonly id: number;
  readonly message: string;
}

export interface ResponseMessage {
  readonly kind: 'response';
  readonly id: number;
  readonly result?: unknown;
  readonly error?: { readonly name: string; readonly message: string };
}

export type WorkerToHost = ProgressMessage | ResponseMessage;
