/**
 * The snapshots loaded in this window: each lives in its own worker thread (parsing never blocks
 * the extension host, and cancelling a load ends only that worker). One is active for annotations.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { SnapshotFileError } from '../engine/decode/errors';
import { fileProblem, readSnapshotFile } from '../runtime/input/snapshotFile';
import { notificationText } from '../engine/text/plainText';
import type { ExecutionProvider } from '../runtime/ort/providers';
import type { FrameFilterOptions } from '../engine/analysis/frameFilter';
import type { LineFigures } from '../engine/analysis/lines';
import type { WorkerOptions } from '../runtime/worker/client';
import { CancelledError, SnapshotWorker } from '../runtime/worker/client';
import type { SnapshotOrigin } from './loadedSnapshot';
import { LoadedSnapshot } from './loadedSnapshot';

export { LoadedSnapshot, type SnapshotOrigin } from './loadedSnapshot';

export interface LoadRequest {
  readonly label?: string;
  readonly origin?: SnapshotOrigin;
  readonly ranOn?: ExecutionProvider;
  /** Bytes already in memory (an instrumented run); otherwise the file is read through workspace.fs. */
  readonly bytes?: Uint8Array;
  readonly makeActive?: boolean;
}

/** A snapshot file asked for: the loaded one (`reused`), or freshly read; undefined when the user cancelled. */
export interface FileLoad {
  readonly snapshot: LoadedSnapshot | undefined;
  readonly reused: boolean;
}

export class SnapshotStore implements vscode.Disposable {
  private readonly snapshots = new Map<string, LoadedSnapshot>();
  /** File loads in progress by URI: a second request for the same file waits for the first. */
  private readonly fileLoads = new Map<string, Promise<FileLoad>>();
  private activeId: string | undefined;
  private counter = 0;
  private readonly changed = new vscode.EventEmitter<void>();
  /** Fires when a snapshot is added, removed, made active, or its device or filter changes. */
  readonly onDidChange = this.changed.event;

  constructor(
    private readonly workerScript: string,
    private readonly filter: () => FrameFilterOptions,
    /** The analysis worker's memory limit and what to say when it is reached (read at each load). */
    private readonly workerOptions: () => WorkerOptions = () => ({}),
  ) {}

  get active(): LoadedSnapshot | undefined {
    return this.activeId === undefined ? undefined : this.snapshots.get(this.activeId);
  }

  list(): LoadedSnapshot[] {
    return [...this.snapshots.values()];
  }

  get(id: string): LoadedSnapshot | undefined {
    return this.snapshots.get(id);
  }

  /** Loads with a cancellable progress notification. Resolves undefined when the user cancels. */
  async load(uri: vscode.Uri | undefined, request: LoadRequest = {}): Promise<LoadedSnapshot | undefined> {
    const label = request.label ?? (uri ? path.basename(uri.path) : 'snapshot');
    return vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `VRAM Lens: loading ${notificationText(label)}`, cancellable: true },
      async (progress, token) => {
        const abort = new AbortController();
        const subscription = token.onCancellationRequested(() => abort.abort());
        const worker = new SnapshotWorker(this.workerScript, this.workerOptions());
        try {
          progress.report({ message: 'reading the file' });
          const bytes = request.bytes ?? (await readSnapshotUri(uri!));
          if (abort.signal.aborted) throw new CancelledError();
          // Bytes read here are handed to the worker, not copied: the host does not hold a second copy of the file.
          const own = request.bytes === undefined && bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer;
          const info = await worker.call(
            'load',
            { bytes, filter: this.filter() },
            { signal: abort.signal, onProgress: (message) => progress.report({ message }), transfer: own ? [bytes.buffer] : undefined },
          );
          const loaded = new LoadedSnapshot(`s${++this.counter}`, label, uri, request.origin ?? 'file', worker, info, request.ranOn);
          this.snapshots.set(loaded.id, loaded);
          if (request.makeActive !== false) this.activeId = loaded.id;
          this.changed.fire();
          return loaded;
        } catch (e) {
          await worker.dispose();
          if (e instanceof CancelledError) return undefined;
          throw e;
        } finally {
          subscription.dispose();
        }
      },
    );
  }

  /** The loaded snapshot read from `uri`, if any (whether or not the file changed since). */
  forUri(uri: vscode.Uri): LoadedSnapshot | undefined {
    return this.list().find((s) => s.uri?.toString() === uri.toString());
  }

  /**
   * The snapshot of `uri`: the loaded one while the file is unchanged on disk, else freshly loaded (a
   * program that re-recorded to the same path: the old copy is closed first). A reloaded snapshot stays
   * active if it was; a new one is active only when `request.makeActive` says so.
   */
  loadFile(uri: vscode.Uri, request: LoadRequest = {}): Promise<FileLoad> {
    const key = uri.toString();
    const pending = this.fileLoads.get(key);
    if (pending) return pending.then(({ snapshot }) => ({ snapshot, reused: true }));
    const load = this.loadOrReuse(uri, request).finally(() => this.fileLoads.delete(key));
    this.fileLoads.set(key, load);
    return load;
  }

  private async loadOrReuse(uri: vscode.Uri, request: LoadRequest): Promise<FileLoad> {
    const version = await fileVersion(uri);
    const known = this.forUri(uri);
    if (known && version !== undefined && known.fileVersion === version) return { snapshot: known, reused: true };
    const wasActive = known !== undefined && this.active?.id === known.id;
    if (known) await this.remove(known.id);
    const snapshot = await this.load(uri, { ...request, makeActive: request.makeActive ?? wasActive });
    if (snapshot) snapshot.fileVersion = version;
    return { snapshot, reused: false };
  }

  setActive(id: string | undefined): void {
    if (id !== undefined && !this.snapshots.has(id)) return;
    this.activeId = id;
    this.changed.fire();
  }

  setDevice(id: string, device: number): void {
    const s = this.snapshots.get(id);
    if (!s || s.device === device) return;
    s.device = device;
    this.changed.fire();
  }

  /** Lines with figures for the snapshot's selected device (cached by the snapshot, per device). */
  lines(snapshot: LoadedSnapshot): Promise<readonly LineFigures[]> {
    return snapshot.lines();
  }

  /** Re-attributes every snapshot after a change to the user-frame filter settings. */
  async refilter(): Promise<void> {
    for (const s of this.snapshots.values()) await s.refilter(this.filter());
    this.changed.fire();
  }

  async remove(id: string): Promise<void> {
    const s = this.snapshots.get(id);
    if (!s) return;
    this.snapshots.delete(id);
    if (this.activeId === id) this.activeId = undefined;
    this.changed.fire();
    await s.dispose();
  }

  dispose(): void {
    for (const s of this.snapshots.values()) void s.dispose();
    this.snapshots.clear();
    this.fileLoads.clear();
    this.changed.dispose();
  }
}

/** The file's `mtime:size`, to tell whether it changed since it was read (undefined: cannot stat). */
async function fileVersion(uri: vscode.Uri): Promise<string | undefined> {
  try {
    const stat = await vscode.workspace.fs.stat(uri);
    return `${stat.mtime}:${stat.size}`;
  } catch {
    return undefined;
  }
}

/**
 * A snapshot file's bytes, after the type and size checks (a FIFO or /dev/zero is refused at once):
 * local files through the core reader, other schemes through the workspace file system.
 */
async function readSnapshotUri(uri: vscode.Uri): Promise<Uint8Array> {
  if (uri.scheme === 'file') return readSnapshotFile(uri.fsPath);
  const stat = await vscode.workspace.fs.stat(uri);
  const isFile = (stat.type & vscode.FileType.File) !== 0;
  const problem = fileProblem({ isFile, size: stat.size, kindInWords: (stat.type & vscode.FileType.Directory) !== 0 ? 'a directory' : 'not a regular file' });
  if (problem !== undefined) throw new SnapshotFileError(`${path.basename(uri.path)}: ${problem}`);
  return vscode.workspace.fs.readFile(uri);
}
