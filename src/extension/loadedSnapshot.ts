/**
 * One snapshot loaded in this window, with everything that belongs to it: its worker thread (which
 * holds the decoded snapshot), the device shown, and the caches of what was asked of the worker.
 * Views ask it, not the worker, for per-line figures, so every view shares one answer per device.
 */
import type * as vscode from 'vscode';
import type { FrameFilterOptions } from '../core/analysis/frameFilter';
import type { LineFigures } from '../core/analysis/lines';
import type { DeviceSummary } from '../core/analysis/summary';
import type { ExecutionProvider } from '../core/ort/providers';
import type { SnapshotWorker } from '../core/worker/client';
import type { MethodName, ParamsOf, ResultOf, SnapshotInfo } from '../core/worker/protocol';

export type SnapshotOrigin = 'file' | 'profile' | 'workload';

export class LoadedSnapshot {
  /** The device whose figures are shown (the one with the highest peak by default). */
  device: number;
  /** The file's `mtime:size` when it was read (undefined for bytes that came from memory). */
  fileVersion: string | undefined;
  private readonly lineCache = new Map<number, Promise<readonly LineFigures[]>>();

  constructor(
    readonly id: string,
    readonly label: string,
    readonly uri: vscode.Uri | undefined,
    readonly origin: SnapshotOrigin,
    readonly worker: SnapshotWorker,
    public info: SnapshotInfo,
    /** The execution provider that ran a workload (undefined: a PyTorch snapshot, on CUDA devices). */
    readonly ranOn?: ExecutionProvider,
  ) {
    this.device = highestPeakDevice(info);
  }

  /** The summary of `device` (by default the one shown), if the snapshot recorded it. */
  deviceSummary(device: number = this.device): DeviceSummary | undefined {
    return this.info.devices.find((d) => d.device === device);
  }

  /** Lines with figures for `device` (by default the one shown), asked of the worker once per device. */
  lines(device: number = this.device): Promise<readonly LineFigures[]> {
    let cached = this.lineCache.get(device);
    if (!cached) {
      cached = this.worker.call('lines', { device });
      // A failed answer is not kept: the next caller asks again.
      void cached.catch(() => this.lineCache.delete(device));
      this.lineCache.set(device, cached);
    }
    return cached;
  }

  /** Any worker query; `lines` is answered from the cache. */
  call<M extends MethodName>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>> {
    if (method === 'lines') return this.lines((params as ParamsOf<'lines'>).device);
    return this.worker.call(method, params);
  }

  /** Re-attributes the snapshot after a change to the user-frame filter settings. */
  async refilter(filter: FrameFilterOptions): Promise<void> {
    this.lineCache.clear();
    this.info = await this.worker.call('setFilter', { filter });
  }

  /** Ends the worker and drops the caches. */
  async dispose(): Promise<void> {
    this.lineCache.clear();
    await this.worker.dispose();
  }
}

function highestPeakDevice(info: SnapshotInfo): number {
  let best = info.devices[0];
  for (const d of info.devices) if (best === undefined || d.peakBytes > best.peakBytes) best = d;
  return best?.device ?? 0;
}
