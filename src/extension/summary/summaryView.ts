/**
 * The snapshot summary: a read-only custom editor, the default one for `*.pickle` files and offered
 * for `*.pkl` (often other pickles; a file that is not a snapshot says so and reopens in the text
 * editor), and a panel for snapshots without a file.
 * It shows devices, events, the peak and where it was reached, reserved memory, OOMs and the top
 * lines, and offers to annotate the sources with it. What it posts is built by summaryRequests.ts (free
 * of `vscode`); this module owns the editor or panel, its messages and its lifetime.
 */
import * as vscode from 'vscode';
import type { Finding } from '../../engine/advice/finding';
import { userMessage } from '../../engine/base/errors';
import { snapshotLoadMessage } from '../../engine/decode/errors';
import { describeRefused } from '../../guards/messageGuard';
import type { HostToSummary, SummaryToHost } from '../../protocol/summary';
import { isSummaryToHost } from '../../guards/summary';
import { Commands } from '../shared/commandIds';
import { setting } from '../shared/config';
import { DisposableOwner } from '../shared/disposables';
import { openLineOfPage } from '../shared/openRecordedLine';
import type { PathResolver } from '../shared/pathResolver';
import type { LoadedSnapshot, SnapshotStore } from '../shared/snapshotStore';
import type { SourceTexts } from '../shared/sourceTexts';
import { webviewOptions, webviewPage } from '../shared/webviewHtml';
import { SUMMARY_PAGE } from './html';
import type { Findings } from './summaryRequests';
import { allocatorUnavailable, recordedFiles, summaryAllocator, summaryModel } from './summaryRequests';

/** The summary editor: the default editor of `*.pickle` files. */
export const SUMMARY_VIEW_TYPE = 'vramLens.snapshotSummary';
/** The same editor offered (Open With) for `*.pkl`, which are often other pickles. */
export const SUMMARY_VIEW_TYPE_PKL = 'vramLens.snapshotSummaryPkl';

/** The summary's view type for a snapshot file. */
export function summaryViewTypeFor(uri: vscode.Uri): string {
  return uri.path.toLowerCase().endsWith('.pkl') ? SUMMARY_VIEW_TYPE_PKL : SUMMARY_VIEW_TYPE;
}
/** How long the page waits for the recorded files to be found before it shows the figures without links. */
const FIRST_PAINT_MS = 150;

/** What the summary needs of the editor's annotations. */
export interface SummaryAnnotations {
  /** Undefined while no snapshot annotates the editors. */
  readonly state: unknown;
  show(): void;
  readonly onDidChange: vscode.Event<unknown>;
}

export interface SummaryDeps {
  readonly extensionUri: vscode.Uri;
  readonly store: SnapshotStore;
  /** The editor's annotations (the editor feature's annotator): the summary shows whether they are on, and turns them on. */
  readonly annotations: SummaryAnnotations;
  readonly resolver: PathResolver;
  readonly log: vscode.LogOutputChannel;
  /** The snapshots' source texts as captured at load (what the advisor reads). */
  readonly sources: SourceTexts;
}

/** One open summary (custom editor or panel): keeps the page in step with the store. */
class SummaryView extends DisposableOwner {
  private snapshot: LoadedSnapshot | undefined;
  /** This view loaded the snapshot itself: it unloads it on close unless it became the active one. */
  private owned = false;
  private ready = false;

  constructor(
    private readonly panel: vscode.WebviewPanel,
    private readonly deps: SummaryDeps,
    private readonly source: { readonly uri: vscode.Uri } | { readonly snapshot: LoadedSnapshot },
  ) {
    super();
    panel.webview.options = webviewOptions(deps.extensionUri, SUMMARY_PAGE);
    panel.webview.html = webviewPage(panel.webview, deps.extensionUri, SUMMARY_PAGE);
    this.own(
      panel.webview.onDidReceiveMessage((m: unknown) => void this.receive(m)),
      deps.store.onDidChange(() => void this.post()),
      deps.annotations.onDidChange(() => void this.post()),
      panel.onDidDispose(() => this.dispose()),
    );
    if ('snapshot' in source) this.snapshot = source.snapshot;
  }

  private async receive(raw: unknown): Promise<void> {
    if (!isSummaryToHost(raw)) {
      this.deps.log.warn(`Summary view: ignored an unknown message: ${describeRefused(raw)}`);
      return;
    }
    const message: SummaryToHost = raw;
    switch (message.type) {
      case 'ready':
        this.ready = true;
        await this.ensureLoaded();
        await this.post();
        break;
      case 'annotate':
        if (!this.snapshot) return;
        this.deps.store.setActive(this.snapshot.id);
        this.deps.annotations.show();
        break;
      case 'selectDevice':
        if (this.snapshot && typeof message.device === 'number') this.deps.store.setDevice(this.snapshot.id, message.device);
        break;
      case 'whatIf':
        if (this.snapshot && Number.isInteger(message.device)) await vscode.commands.executeCommand(Commands.whatIf, { snapshotId: this.snapshot.id, device: message.device });
        break;
      case 'openLine':
        if (!(await openLineOfPage(this.deps.resolver, message))) this.deps.log.warn(`Summary view: ignored a malformed openLine: ${describeRefused(message)}`);
        break;
      case 'reopenAsText':
        // VS Code's own editor ('default'): text, or its notice for a binary file with a way to open it anyway.
        if ('uri' in this.source) await vscode.commands.executeCommand('vscode.openWith', this.source.uri, 'default');
        break;
    }
  }

  private async ensureLoaded(): Promise<void> {
    if (this.snapshot && this.deps.store.get(this.snapshot.id)) return;
    if (!('uri' in this.source)) return;
    const uri = this.source.uri;
    void this.send({ type: 'loading', label: uri.path.split('/').pop() ?? uri.path });
    try {
      const { snapshot, reused } = await this.deps.store.loadFile(uri);
      this.snapshot = snapshot;
      this.owned = snapshot !== undefined && !reused;
      if (!this.snapshot) void this.send({ type: 'error', message: 'Loading was cancelled. Reopen the file to try again.' });
    } catch (e) {
      this.deps.log.error(`Could not read ${uri.toString()}:`, e);
      // A file that is not a snapshot (the summary is the default editor of every .pickle): say so, and offer the text editor.
      void this.send({ type: 'error', message: snapshotLoadMessage('This file', e), reopen: true });
    }
  }

  /**
   * Sends the summary: at once, and again when the recorded files are found on this machine when that
   * takes a while (a snapshot naming 100,000 files); on failure, says so rather than leave the page empty.
   */
  private async post(): Promise<void> {
    const snapshot = this.snapshot;
    if (!this.ready || !snapshot || !this.deps.store.get(snapshot.id)) return;
    try {
      if (!(await this.postSummary(snapshot))) return;
    } catch (e) {
      this.deps.log.warn('Summary view: could not build the summary:', e);
      if (!this.isDisposed) void this.send({ type: 'error', message: `VRAM Lens could not show this snapshot's summary: ${userMessage(e)}` });
      return;
    }
    // Then the allocator replayed for the device shown (its self-check, its OOMs explained).
    const device = snapshot.device;
    if (!snapshot.deviceSummary(device)) return;
    try {
      const allocator = await summaryAllocator(snapshot, device, (files) => this.deps.resolver.resolve(files));
      if (this.snapshot !== snapshot) return;
      await this.send({ type: 'allocator', allocator });
    } catch (e) {
      this.deps.log.warn('Summary view: could not replay the allocator:', e);
      // Said on the page rather than left "replaying".
      if (this.snapshot === snapshot && !this.isDisposed) await this.send({ type: 'allocator', allocator: allocatorUnavailable(device, e) });
    }
  }

  /**
   * Posts the summary: the figures at once, then again with the recorded files found on this machine
   * (that can take a while: a snapshot naming 100,000 files) and the advisor's findings when they are
   * worked out. False when the view moved on.
   */
  private async postSummary(snapshot: LoadedSnapshot): Promise<boolean> {
    const recorded = await recordedFiles(snapshot);
    const advisor = setting('advice.enabled', true)
      ? this.deps.sources.cellPlaces(snapshot.id).then((places) => snapshot.findings(() => this.deps.sources.texts(snapshot.id), places))
      : undefined;
    const soon = <T>(p: Promise<T>, ms: number) => Promise.race([p, new Promise<undefined>((r) => setTimeout(() => r(undefined), ms))]);
    const resolving = this.deps.resolver.resolve(recorded);
    const [firstFindings, firstResolved] = await Promise.all([advisor ? soon(advisor, 50) : Promise.resolve('off' as const), soon(resolving, FIRST_PAINT_MS)]);
    if (firstFindings === undefined || firstResolved === undefined) {
      await this.send({ type: 'summary', model: await summaryModel(snapshot, this.active(snapshot), firstFindings, firstResolved, recorded.length) });
    }
    const findings: Findings = advisor
      ? await advisor.catch((e: unknown) => {
          this.deps.log.warn(`Summary view: the advisor failed for ${snapshot.label}:`, e);
          return [] as readonly Finding[];
        })
      : 'off';
    const named = findings === 'off' ? [] : findings.flatMap((f) => (f.file === undefined ? [] : [f.file]));
    const resolved = await this.deps.resolver.resolve([...recorded, ...named]);
    if (this.snapshot !== snapshot || this.isDisposed || !this.deps.store.get(snapshot.id)) return false;
    await this.send({ type: 'summary', model: await summaryModel(snapshot, this.active(snapshot), findings, resolved, recorded.length) });
    return true;
  }

  /** Whether the snapshot annotates the editors. */
  private active(snapshot: LoadedSnapshot): boolean {
    return this.deps.store.active?.id === snapshot.id && this.deps.annotations.state !== undefined;
  }

  private send(message: HostToSummary): Thenable<boolean> {
    return this.panel.webview.postMessage(message);
  }

  override dispose(): void {
    if (this.isDisposed) return;
    super.dispose();
    const s = this.snapshot;
    if (this.owned && s && this.deps.store.active?.id !== s.id) void this.deps.store.remove(s.id);
  }
}

/** The custom editor for snapshot files. */
export class SnapshotSummaryEditorProvider implements vscode.CustomReadonlyEditorProvider {
  constructor(private readonly deps: SummaryDeps) {}

  openCustomDocument(uri: vscode.Uri): vscode.CustomDocument {
    return { uri, dispose: () => undefined };
  }

  resolveCustomEditor(document: vscode.CustomDocument, panel: vscode.WebviewPanel): void {
    new SummaryView(panel, this.deps, { uri: document.uri });
  }
}

/** Shows the summary of a loaded snapshot: its file in the custom editor, else a panel. */
export async function showSummary(deps: SummaryDeps, snapshot: LoadedSnapshot): Promise<void> {
  if (snapshot.uri) {
    await vscode.commands.executeCommand('vscode.openWith', snapshot.uri, summaryViewTypeFor(snapshot.uri));
    return;
  }
  const panel = vscode.window.createWebviewPanel(SUMMARY_VIEW_TYPE, `VRAM: ${snapshot.label}`, vscode.ViewColumn.Active, webviewOptions(deps.extensionUri, SUMMARY_PAGE));
  new SummaryView(panel, deps, { snapshot });
}
