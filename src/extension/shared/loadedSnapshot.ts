/**
 * One snapshot loaded in this window, with everything that belongs to it: its worker thread (which
 * holds the decoded snapshot), the device shown, and every cache of what was asked about it (per-line
 * figures, line details, function names, the source texts captured at load). Views ask it, not the
 * worker, so every view shares one answer; closing or re-attributing the snapshot drops them here,
 * in one place. The source texts are held here once, each file at a revision, and sent to the worker
 * once per revision, before the first question that reads them (the advisor's). Free of `vscode` at
 * run time, so unit tests drive it with an in-process worker.
 */
import type * as vscode from 'vscode';
import type { Finding } from '../../engine/advice/finding';
import type { CellPlaces } from '../../engine/paths/places';
import type { FrameFilterOptions } from '../../engine/analysis/frameFilter';
import type { LineDetail } from '../../engine/analysis/lineDetail';
import type { LineFigures } from '../../engine/analysis/lines';
import type { DeviceSummary } from '../../engine/analysis/summary';
import type { LineTextProvider } from '../../engine/paths/sourceText';
import { SourceText } from '../../engine/paths/sourceText';
import type { ExecutionProvider } from '../../runtime/ort/providers';
import type { SnapshotWorker } from '../../runtime/worker/client';
import type { MethodName, ParamsOf, ResultOf, SnapshotInfo, SourceUpdate } from '../../protocol/worker';

export type SnapshotOrigin = 'file' | 'profile' | 'workload';

/** What a loaded snapshot needs of its worker (a `SnapshotWorker`; tests pass one that answers in-process). */
export type SnapshotWorkerPort = Pick<SnapshotWorker, 'call' | 'dispose'>;

/** A snapshot's source files as they were read (at load): file as recorded -> its text. */
export type SourceFiles = ReadonlyMap<string, SourceText>;

/** Texts read for a snapshot's files (file as recorded -> text; undefined: forget the file). */
export type SourceReading = ReadonlyMap<string, string | undefined>;

/** The worker questions whose answers read the source texts: the texts are sent before them. */
const READS_SOURCES: ReadonlySet<MethodName> = new Set<MethodName>(['advice', 'timelineFindings']);

/** How many line details (hovers) one snapshot keeps; the oldest asked goes first. */
export const LINE_DETAIL_CACHE_SIZE = 256;

/** How much a snapshot holds besides its worker (tests check that closing it holds nothing). */
export interface HeldState {
  readonly lineDevices: number;
  readonly lineDetails: number;
  readonly lineFunctions: boolean;
  readonly sources: boolean;
  readonly findings: boolean;
}

export class LoadedSnapshot {
  /** The device whose figures are shown (the one with the highest peak by default). */
  device: number;
  /** The file's `mtime:size` when it was read (undefined for bytes that came from memory). */
  fileVersion: string | undefined;
  #revision = 0;
  #disposed = false;
  readonly #lines = new Map<number, Promise<readonly LineFigures[]>>();
  readonly #details = new Map<string, Promise<LineDetail>>();
  readonly #functions = new Map<'all', Promise<readonly string[]>>();
  readonly #sources = new Map<string, SourceText>();
  /** Per file, the revision of its text here, and the revision the worker holds. */
  readonly #revisions = new Map<string, number>();
  readonly #sent = new Map<string, number>();
  #lastRevision = 0;
  /** The capture of the texts and any update after it, in order; undefined until the first capture. */
  #reading: Promise<void> | undefined;
  /** The advisor's findings, keyed by the texts' revision (and the notebook cells) they were asked with. */
  readonly #findings = new Map<string, Promise<readonly Finding[]>>();

  constructor(
    readonly id: string,
    readonly label: string,
    readonly uri: vscode.Uri | undefined,
    readonly origin: SnapshotOrigin,
    private readonly worker: SnapshotWorkerPort,
    public info: SnapshotInfo,
    /** The execution provider that ran a workload (undefined: a PyTorch snapshot, on CUDA devices). */
    readonly ranOn?: ExecutionProvider,
  ) {
    this.device = highestPeakDevice(info);
  }

  /** What names this snapshot across sessions (its file, else its label), for answers remembered about it. */
  get persistentKey(): string {
    return this.uri?.toString() ?? `label:${this.label}`;
  }

  /** Bumped by every re-attribution: anything made from the snapshot at an older revision is stale. */
  get revision(): number {
    return this.#revision;
  }

  get isDisposed(): boolean {
    return this.#disposed;
  }

  /** The summary of `device` (by default the one shown), if the snapshot recorded it. */
  deviceSummary(device: number = this.device): DeviceSummary | undefined {
    return this.info.devices.find((d) => d.device === device);
  }

  /** Lines with figures for `device` (by default the one shown), asked of the worker once per device. */
  lines(device: number = this.device): Promise<readonly LineFigures[]> {
    return this.remember(this.#lines, device, () => this.worker.call('lines', { device }));
  }

  /** One line's details (a hover), asked of the worker once per line, device and limits. */
  lineDetail(params: ParamsOf<'lineDetail'>): Promise<LineDetail> {
    const key = [params.device, params.file, String(params.line), params.maxSizes ?? '', params.maxStacks ?? ''].join('\u0000');
    const answer = this.remember(this.#details, key, () => this.worker.call('lineDetail', params));
    while (this.#details.size > LINE_DETAIL_CACHE_SIZE) this.#details.delete(this.#details.keys().next().value!);
    return answer;
  }

  /** Per line id, the function its frames name ('' when none); asked once per attribution. */
  lineFunctions(): Promise<readonly string[]> {
    return this.remember(this.#functions, 'all', () => this.worker.call('lineFunctions', {}));
  }

  /**
   * The advisor's findings on every device, asked once per attribution, texts' revision and `places` (the
   * notebook cells of recorded cell files), after `capture` (the texts captured at load): the Problems
   * panel and the summary share them.
   */
  async findings(capture: () => Promise<unknown>, places: CellPlaces = {}): Promise<readonly Finding[]> {
    await capture();
    // The notebook cells of its recorded cell files name lines in the messages: findings per texts and cells.
    const key = `${this.#lastRevision}\u0000${JSON.stringify(places)}`;
    for (const k of this.#findings.keys()) if (k !== key) this.#findings.delete(k);
    return this.remember(this.#findings, key, () => this.askReadingSources('advice', Object.keys(places).length > 0 ? { places } : {}));
  }

  /**
   * The texts of the snapshot's source files, captured once by `capture` (the first caller's, at load:
   * for a run profiled before an edit, that is the code that ran), after any update in flight. They
   * outlive a re-attribution.
   */
  async sourceTexts(capture: (snapshot: LoadedSnapshot) => Promise<SourceReading>): Promise<SourceFiles> {
    if (this.#disposed) return new Map();
    this.#reading ??= capture(this).then((texts) => this.setTexts(texts));
    await this.#reading;
    return this.#sources;
  }

  /**
   * Sets or updates some files' texts after the capture (`read` gets the texts held): a file whose text
   * changed gets a new revision, and only such files go to the worker again.
   */
  async updateSourceTexts(read: (held: SourceFiles) => Promise<SourceReading>): Promise<SourceFiles> {
    if (this.#disposed) return new Map();
    this.#reading = (this.#reading ?? Promise.resolve()).catch(() => undefined).then(async () => this.setTexts(await read(this.#sources)));
    await this.#reading;
    return this.#sources;
  }

  /** The text of a line of the captured sources (the code that ran). */
  lineText(): LineTextProvider {
    return (file, line) => this.#sources.get(file)?.line(line);
  }

  private setTexts(texts: SourceReading): void {
    if (this.#disposed) return;
    for (const [file, text] of texts) {
      if (text === undefined) {
        this.#sources.delete(file);
        this.#revisions.delete(file);
      } else if (this.#sources.get(file)?.text !== text) {
        this.#sources.set(file, new SourceText(text));
        this.#revisions.set(file, ++this.#lastRevision);
      }
    }
  }

  /** Sends the worker the texts whose revision it does not hold (after a capture in flight), and forgets the dropped ones. */
  private async syncSources(): Promise<void> {
    if (this.#reading) await this.#reading.catch(() => undefined);
    const files: SourceUpdate[] = [];
    for (const [file, revision] of this.#revisions) {
      if (this.#sent.get(file) !== revision) files.push({ file, revision, text: this.#sources.get(file)!.text });
    }
    for (const [file, revision] of this.#sent) if (!this.#revisions.has(file)) files.push({ file, revision, text: null });
    if (files.length === 0) return;
    // Marked as sent before the answer: questions asked meanwhile reach the worker after this message.
    for (const f of files) {
      if (f.text === null) this.#sent.delete(f.file);
      else this.#sent.set(f.file, f.revision);
    }
    try {
      await this.worker.call('setSources', { files });
    } catch (e) {
      for (const f of files) this.#sent.delete(f.file);
      throw e;
    }
  }

  /** Any worker query; the cached ones (`lines`, `lineDetail`, `lineFunctions`) are answered from the caches. */
  call<M extends MethodName>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>> {
    switch (method) {
      case 'lines':
        return this.lines((params as ParamsOf<'lines'>).device);
      case 'lineDetail':
        return this.lineDetail(params as ParamsOf<'lineDetail'>);
      case 'lineFunctions':
        return this.lineFunctions();
      default:
        if (READS_SOURCES.has(method)) return this.askReadingSources(method, params);
        return this.worker.call(method, params);
    }
  }

  private async askReadingSources<M extends MethodName>(method: M, params: ParamsOf<M>): Promise<ResultOf<M>> {
    if (this.#disposed) throw new Error(`${this.label} was closed`);
    await this.syncSources();
    return this.worker.call(method, params);
  }

  /** Re-attributes the snapshot after a change to the user-frame filter settings. */
  async refilter(filter: FrameFilterOptions): Promise<void> {
    this.dropAnswers();
    this.info = await this.worker.call('setFilter', { filter });
    // Answers asked for while the worker re-attributed are of the old attribution.
    this.dropAnswers();
    this.#revision++;
  }

  /** What it holds besides the worker. */
  held(): HeldState {
    return {
      lineDevices: this.#lines.size,
      lineDetails: this.#details.size,
      lineFunctions: this.#functions.size > 0,
      sources: this.#reading !== undefined || this.#sources.size > 0,
      findings: this.#findings.size > 0,
    };
  }

  /** Ends the worker and drops everything it held; later questions are refused. */
  async dispose(): Promise<void> {
    this.#disposed = true;
    this.dropAnswers();
    this.#reading = undefined;
    this.#sources.clear();
    this.#revisions.clear();
    this.#sent.clear();
    await this.worker.dispose();
  }

  private dropAnswers(): void {
    this.#lines.clear();
    this.#details.clear();
    this.#functions.clear();
    this.#findings.clear();
  }

  /** The cached answer for `key`, else `ask()`'s, kept unless it fails (the next caller asks again). */
  private remember<K, V>(cache: Map<K, Promise<V>>, key: K, ask: () => Promise<V>): Promise<V> {
    if (this.#disposed) return Promise.reject(new Error(`${this.label} was closed`));
    const cached = cache.get(key);
    if (cached) return cached;
    const asked = ask();
    cache.set(key, asked);
    void asked.catch(() => {
      if (cache.get(key) === asked) cache.delete(key);
    });
    return asked;
  }
}

function highestPeakDevice(info: SnapshotInfo): number {
  let best = info.devices[0];
  for (const d of info.devices) if (best === undefined || d.peakBytes > best.peakBytes) best = d;
  return best?.device ?? 0;
}
