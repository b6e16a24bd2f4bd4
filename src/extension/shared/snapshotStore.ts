/**
 * The snapshots loaded in this window: each lives in its own worker thread (parsing never blocks
 * the extension host, and cancelling a load ends only that worker). One is active for annotations.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { SnapshotFileError } from '../../engine/decode/errors';
import { fileProblem } from '../../runtime/input/snapshotFile';
import { MAX_SNAPSHOT_BYTES } from '../../engine/decode/unpack';
import type { SnapshotSource } from '../../protocol/worker';
import type { PlainValue } from '../../engine/pickle/encoder';
import type { LoadWindow } from '../../engine/snapshot/model';
import type { WindowPrompts } from './loadWindowChoice';
import { WINDOW_CHOICE_BYTES, chooseLoadWindow } from './loadWindowChoice';
import { notificationText } from '../../engine/text/plainText';
import type { ExecutionProvider } from '../../runtime/ort/providers';
import type { FrameFilterOptions } from '../../engine/analysis/frameFilter';
import type { LineFigures } from '../../engine/analysis/lines';
import type { WorkerOptions } from '../../runtime/worker/client';
import { CancelledError } from '../../runtime/worker/client';
import { SpareWorkers } from '../../runtime/worker/spareWorker';
import type { SnapshotOrigin } from './loadedSnapshot';
import { LoadedSnapshot } from './loadedSnapshot';
import { formatFileSize } from '../../engine/text/format';

export { LoadedSnapshot, type SnapshotOrigin } from './loadedSnapshot';

export interface LoadRequest {
  readonly label?: string;
  readonly origin?: SnapshotOrigin;
  readonly ranOn?: ExecutionProvider;
  /** Bytes already in memory (an instrumented run); otherwise the file is read through workspace.fs. */
  readonly bytes?: Uint8Array;
  /** A snapshot built in memory (a built-in workload's run), as the plain values its pickle would hold. */
  readonly value?: PlainValue;
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
  /** The next snapshot's worker, started (and warmed) once a snapshot has loaded. */
  private readonly spares: SpareWorkers;
  private readonly changed = new vscode.EventEmitter<void>();
  /** Fires when a snapshot is added, removed, made active, or its device or filter changes. */
  readonly onDidChange = this.changed.event;

  constructor(
    workerScript: string,
    private readonly filter: () => FrameFilterOptions,
    /** The analysis worker's memory limit and what to say when it is reached (read at each load). */
    private readonly workerOptions: () => WorkerOptions = () => ({}),
  ) {
    this.spares = new SpareWorkers(workerScript);
  }

  get active(): LoadedSnapshot | undefined {
    return this.activeId === undefined ? undefined : this.snapshots.get(this.activeId);
  }

  list(): LoadedSnapshot[] {
    return [...this.snapshots.values()];
  }

  get(id: string): LoadedSnapshot | undefined {
    return this.snapshots.get(id);
  }

  /**
   * Loads with a cancellable progress notification. A file the user opened that is bigger than
   * `WINDOW_CHOICE_BYTES` first offers to load only a window of it. Resolves undefined when the user cancels.
   */
  async load(uri: vscode.Uri | undefined, request: LoadRequest = {}): Promise<LoadedSnapshot | undefined> {
    const label = request.label ?? (uri ? path.basename(uri.path) : 'snapshot');
    let window: LoadWindow | undefined;
    if (uri?.scheme === 'file' && (request.origin ?? 'file') === 'file' && request.bytes === undefined) {
      const size = await fileSize(uri);
      if (size >= WINDOW_CHOICE_BYTES) {
        const choice = await chooseLoadWindow(label, size, WINDOW_PROMPTS);
        if (choice.kind === 'cancel') return undefined;
        if (choice.kind === 'window') window = choice.window;
      }
    }
    return vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `VRAM Lens: loading ${notificationText(label)}`, cancellable: true },
      async (progress, token) => {
        const abort = new AbortController();
        const subscription = token.onCancellationRequested(() => abort.abort());
        const workerOptions = this.workerOptions();
        const worker = this.spares.take(workerOptions);
        try {
          progress.report({ message: 'reading the file' });
          const source: SnapshotSource = request.value !== undefined ? { kind: 'value', value: request.value } : request.bytes ? { kind: 'bytes', bytes: request.bytes } : await snapshotSource(uri!);
          if (abort.signal.aborted) throw new CancelledError();
          // The bar fills as the worker reads the file (`fraction`); the messages say what it does. Bytes
          // read here (another file system) are handed to the worker, not copied: the host keeps no second copy.
          const bytes = source.kind === 'bytes' ? source.bytes : undefined;
          const own = request.bytes === undefined && bytes !== undefined && bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer;
          let shown = 0;
          const info = await worker.call(
            'load',
            { source, filter: this.filter(), ...(window ? { window } : {}) },
            {
              signal: abort.signal,
              onProgress: (message, fraction) => {
                const increment = fraction === undefined ? undefined : Math.max(0, Math.round(100 * fraction) - shown);
                if (increment !== undefined) shown += increment;
                progress.report({ message, increment });
              },
              transfer: own ? [bytes.buffer] : undefined,
            },
          );
          // What ran it: as the caller knows it (a run just made), else as the snapshot says (a VRAM Lens run saved to a file).
          // A prediction says so, and for which GPU, wherever its label shows (summary, hover, status bar, compare, What If).
          const shownLabel = info.prediction ? `${label} (predicted for ${info.prediction.gpu.name})` : label;
          const loaded = new LoadedSnapshot(`s${++this.counter}`, shownLabel, uri, request.origin ?? 'file', worker, info, request.ranOn ?? info.producer?.provider);
          this.snapshots.set(loaded.id, loaded);
          if (request.makeActive !== false) this.activeId = loaded.id;
          this.changed.fire();
          // The next snapshot's worker, warmed on this one's file (a snapshot like the next, most often).
          this.spares.prepare(workerOptions, source, info.byteLength, this.filter());
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
    this.spares.dispose();
    for (const s of this.snapshots.values()) void s.dispose();
    this.snapshots.clear();
    this.fileLoads.clear();
    this.changed.dispose();
  }
}

/** The quick pick and input box of the window choice. */
const WINDOW_PROMPTS: WindowPrompts = {
  pick: async (title, items) => {
    const picked = await vscode.window.showQuickPick(
      items.map((item, index) => ({ ...item, index })),
      { title, placeHolder: 'How much of the recording to load' },
    );
    return picked?.index;
  },
  input: (title, prompt, placeHolder, validate) => Promise.resolve(vscode.window.showInputBox({ title, prompt, placeHolder, validateInput: validate })),
};

/** A local file's size in bytes (0 when it cannot be read: the load says why). */
async function fileSize(uri: vscode.Uri): Promise<number> {
  try {
    return (await vscode.workspace.fs.stat(uri)).size;
  } catch {
    return 0;
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
 * Where the worker reads a snapshot: a local file by its path (the worker streams it, whatever its
 * size), a file of another file system as bytes read here (after the type check: a FIFO is refused).
 */
async function snapshotSource(uri: vscode.Uri): Promise<SnapshotSource> {
  if (uri.scheme === 'file') return { kind: 'file', path: uri.fsPath };
  const stat = await vscode.workspace.fs.stat(uri);
  const isFile = (stat.type & vscode.FileType.File) !== 0;
  const problem = fileProblem({ isFile, kindInWords: (stat.type & vscode.FileType.Directory) !== 0 ? 'a directory' : 'not a regular file' });
  if (problem !== undefined) throw new SnapshotFileError('unreadable', `${path.basename(uri.path)}: ${problem}`);
  if (stat.size > MAX_SNAPSHOT_BYTES) {
    throw new SnapshotFileError('over-limit', `${path.basename(uri.path)}: is ${formatFileSize(stat.size)}; VRAM Lens reads files of this file system up to ${formatFileSize(MAX_SNAPSHOT_BYTES)} (local files of any size)`);
  }
  return { kind: 'bytes', bytes: await vscode.workspace.fs.readFile(uri) };
}
