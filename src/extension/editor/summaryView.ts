/**
 * The snapshot summary: a read-only custom editor for `*.pickle` / `*.pkl` files (offered with
 * priority "option": not every pickle is a memory snapshot) and a panel for snapshots without a file.
 * It shows devices, events, the peak and where it was reached, reserved memory, OOMs and the top
 * lines, and offers to annotate the sources with it.
 */
import * as vscode from 'vscode';
import { errorMessage } from '../../engine/base/errors';
import { topLines } from '../../engine/analysis/summary';
import type { LineFigures } from '../../engine/analysis/lines';
import { figureValues } from '../../engine/analysis/lineFigures';
import type { LoadedSnapshot, SnapshotStore } from '../snapshotStore';
import { webviewOptions, webviewPage } from '../webviewHtml';
import type { Annotator } from './annotator';
import type { PathResolver } from '../paths/pathResolver';
import { cellPlacesOf } from '../paths/pathResolver';
import { describeRefused } from '../../protocol/messageGuard';
import type { HostToSummary, SummaryAdvice, SummaryLine, SummaryModel, SummaryToHost } from '../../protocol/summary';
import type { Finding } from '../../engine/advice/finding';
import type { SourceTexts } from '../compare/sourceTexts';
import { setting } from '../config';
import { isSummaryToHost } from '../../protocol/summary';
import { DisposableOwner } from '../disposables';
import { openLineOfPage } from '../paths/openRecordedLine';

export const SUMMARY_VIEW_TYPE = 'vramLens.snapshotSummary';
/** The page: its script, styles and the codicons its findings' severity icons use. */
const SUMMARY_PAGE = { title: 'VRAM Lens Snapshot', script: 'summary.js', styles: ['summary.css'], codicons: true } as const;
const TOP_LINES = 15;

export interface SummaryDeps {
  readonly extensionUri: vscode.Uri;
  readonly store: SnapshotStore;
  readonly annotator: Annotator;
  readonly resolver: PathResolver;
  readonly log: vscode.LogOutputChannel;
  /** The snapshots' source texts as captured at load (what the advisor reads). */
  readonly sources: SourceTexts;
}

/** The advisor's findings, when they are ready (or undefined while they are worked out). */
type Findings = readonly Finding[] | 'off' | undefined;

async function buildModel(deps: SummaryDeps, snapshot: LoadedSnapshot, findings: Findings): Promise<SummaryModel> {
  const perDevice = await Promise.all(
    snapshot.info.devices.map(async (d) => ({ summary: d, lines: await snapshot.lines(d.device) })),
  );
  const recorded = new Set<string>();
  for (const { lines } of perDevice) for (const l of lines) recorded.add(l.file);
  if (findings !== undefined && findings !== 'off') for (const f of findings) if (f.file !== undefined) recorded.add(f.file);
  const resolved = await deps.resolver.resolve([...recorded]);
  const mapped = (file: string) => resolved.local.has(file) || resolved.cells.has(file);
  const advice: SummaryAdvice =
    findings === 'off'
      ? { state: 'off' }
      : findings === undefined
        ? { state: 'pending' }
        : {
            state: 'ready',
            findings: findings.map((f) => ({
              device: f.device,
              rule: f.rule,
              severity: f.severity,
              title: f.title,
              message: f.message,
              ...(f.file !== undefined && f.line !== undefined ? { at: { file: f.file, line: String(f.line), mapped: mapped(f.file) } } : {}),
            })),
          };
  const line = (l: LineFigures): SummaryLine => ({
    file: l.file,
    line: String(l.line),
    mapped: mapped(l.file),
    figures: figureValues(l),
  });
  return {
    label: snapshot.label,
    path: snapshot.uri?.scheme === 'file' ? snapshot.uri.fsPath : snapshot.uri?.toString(),
    layout: snapshot.info.layout,
    byteLength: snapshot.info.byteLength,
    hasTimes: snapshot.info.hasTimes,
    active: deps.store.active?.id === snapshot.id && deps.annotator.state !== undefined,
    selectedDevice: snapshot.device,
    devices: perDevice.map(({ summary: d, lines }) => ({
      device: d.device,
      events: d.events,
      allocations: d.allocations,
      peakBytes: d.peakBytes,
      peakEventIndex: d.peakEventIndex,
      peakLine: d.peakLine && { file: d.peakLine.file, line: String(d.peakLine.line), mapped: mapped(d.peakLine.file) },
      peakReservedBytes: d.peakReservedBytes,
      finalReservedBytes: d.finalReservedBytes,
      initialActiveBytes: d.initialActiveBytes,
      finalActiveBytes: d.finalActiveBytes,
      oomCount: d.oomCount,
      linesWithFigures: d.linesWithFigures,
      topLines: topLines({ lines }, TOP_LINES).map(line),
      peakBreakdown: d.peakBreakdown,
      ...(d.window === undefined ? {} : { window: d.window }),
    })),
    unmappedFiles: resolved.unmapped,
    advice,
    places: cellPlacesOf(resolved),
  };
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
      deps.annotator.onDidChange(() => void this.post()),
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
        this.deps.annotator.show();
        break;
      case 'selectDevice':
        if (this.snapshot && typeof message.device === 'number') this.deps.store.setDevice(this.snapshot.id, message.device);
        break;
      case 'openLine':
        if (!(await openLineOfPage(this.deps.resolver, message))) this.deps.log.warn(`Summary view: ignored a malformed openLine: ${describeRefused(message)}`);
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
      const message = errorMessage(e);
      this.deps.log.error(`Could not read ${uri.toString()}:`, e);
      void this.send({ type: 'error', message: `This file could not be read as a PyTorch memory snapshot: ${message}` });
    }
  }

  private async post(): Promise<void> {
    const snapshot = this.snapshot;
    if (!this.ready || !snapshot || !this.deps.store.get(snapshot.id)) return;
    try {
      if (!setting('advice.enabled', true)) {
        await this.send({ type: 'summary', model: await buildModel(this.deps, snapshot, 'off') });
        return;
      }
      // The figures at once; the advisor's findings when they are worked out (cached by the snapshot).
      const asked = this.deps.sources.cellPlaces(snapshot.id).then((places) => snapshot.findings(() => this.deps.sources.texts(snapshot.id), places));
      const ready = await Promise.race([asked, new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), 50))]);
      if (ready === undefined) await this.send({ type: 'summary', model: await buildModel(this.deps, snapshot, undefined) });
      const findings = await asked.catch((e: unknown) => {
        this.deps.log.warn(`Summary view: the advisor failed for ${snapshot.label}:`, e);
        return [] as readonly Finding[];
      });
      if (this.snapshot !== snapshot || !this.deps.store.get(snapshot.id)) return;
      await this.send({ type: 'summary', model: await buildModel(this.deps, snapshot, findings) });
    } catch (e) {
      this.deps.log.warn('Summary view: could not build the summary:', e);
    }
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
    await vscode.commands.executeCommand('vscode.openWith', snapshot.uri, SUMMARY_VIEW_TYPE);
    return;
  }
  const panel = vscode.window.createWebviewPanel(SUMMARY_VIEW_TYPE, `VRAM: ${snapshot.label}`, vscode.ViewColumn.Active, webviewOptions(deps.extensionUri, SUMMARY_PAGE));
  new SummaryView(panel, deps, { snapshot });
}
