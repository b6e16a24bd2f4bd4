/**
 * The next snapshot's worker, started before it is asked for. A worker that has just started spends
 * its first snapshot mostly in V8: loading and compiling the analysis code, and running the decoder and
 * the analysis unoptimised until V8 has compiled them (a 4 MB snapshot takes several times as long in a
 * fresh worker as in one that has read a snapshot before). So once a snapshot has loaded, a spare worker
 * is started and warmed on that snapshot's file (read, analysed, attributed, then dropped: `warmUp`),
 * and the next snapshot opened takes it. Free of `vscode`, so tests drive it with real worker threads.
 */
import type { FrameFilterOptions } from '../../engine/analysis/frameFilter';
import type { SnapshotSource } from '../../protocol/worker';
import type { WorkerOptions } from './client';
import { SnapshotWorker } from './client';

/** How long a spare waits for the next snapshot before it is ended (an idle worker thread holds tens of MB). */
export const SPARE_IDLE_MS = 10 * 60 * 1000;

/** The largest file a spare is warmed on: past it a snapshot's own reading dwarfs V8's warm-up, and the warm-up would hold a second copy. */
export const WARM_UP_MAX_BYTES = 64e6;

interface Spare {
  readonly worker: SnapshotWorker;
  readonly options: WorkerOptions;
  /** The warm-up in flight, if any (its failure only means a colder worker). */
  readonly warming: Promise<void> | undefined;
  readonly idle: ReturnType<typeof setTimeout>;
}

export class SpareWorkers {
  private spare: Spare | undefined;
  private disposed = false;

  constructor(
    private readonly workerScript: string,
    private readonly idleMs = SPARE_IDLE_MS,
  ) {}

  /** A worker for the next snapshot: the spare (warmed, or still warming) when its options are these, else a new one. */
  take(options: WorkerOptions): SnapshotWorker {
    const spare = this.spare;
    this.spare = undefined;
    if (spare !== undefined) clearTimeout(spare.idle);
    if (spare !== undefined && sameOptions(spare.options, options)) return spare.worker;
    void spare?.worker.dispose();
    return new SnapshotWorker(this.workerScript, options);
  }

  /**
   * Starts the spare for the snapshot after this one, warmed on `source` when it is a local file of at
   * most `WARM_UP_MAX_BYTES` (`bytes`: its size); a spare already started is kept.
   */
  prepare(options: WorkerOptions, source: SnapshotSource | undefined, bytes: number, filter: FrameFilterOptions): void {
    if (this.disposed || this.spare !== undefined) return;
    const worker = new SnapshotWorker(this.workerScript, options);
    const warming =
      source?.kind === 'file' && bytes <= WARM_UP_MAX_BYTES
        ? worker.call('warmUp', { source, filter }).then(
            () => undefined,
            () => undefined,
          )
        : undefined;
    const idle = setTimeout(() => {
      if (this.spare?.worker !== worker) return;
      this.spare = undefined;
      void worker.dispose();
    }, this.idleMs);
    idle.unref();
    this.spare = { worker, options, warming, idle };
  }

  /** Whether a spare is started and waiting. */
  get hasSpare(): boolean {
    return this.spare !== undefined;
  }

  /** Resolves once the spare's warm-up has ended (at once without one): for tests and benchmarks. */
  async warmed(): Promise<void> {
    await this.spare?.warming;
  }

  dispose(): void {
    this.disposed = true;
    if (this.spare !== undefined) clearTimeout(this.spare.idle);
    void this.spare?.worker.dispose();
    this.spare = undefined;
  }
}

function sameOptions(a: WorkerOptions, b: WorkerOptions): boolean {
  return a.maxHeapMb === b.maxHeapMb && a.memoryAdvice === b.memoryAdvice;
}
