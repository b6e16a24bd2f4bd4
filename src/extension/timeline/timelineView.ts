/**
 * The `Timeline` webview view: serves the page, answers its requests from the snapshot workers
 * (the heavy work happens there), opens source files it points at, and re-sends the snapshot list
 * whenever the store changes or the view is shown again (the page is not kept while hidden).
 */
import * as vscode from 'vscode';
import type { WindowRequest } from '../../core/timeline/types';
import type { HostMessage, Target, WebviewMessage } from '../../../webview/timeline/protocol';
import { isAllowedCommand, isWebviewMessage } from '../../../webview/timeline/protocol';
import { setting } from '../config';
import type { Services } from '../services';
import type { LoadedSnapshot } from '../snapshotStore';
import { webviewOptions, webviewPage } from '../webviewHtml';
import { TIMELINE_PAGE } from './html';
import { lineRow, snapshotChoice } from './rows';
import { errorMessage } from '../../core/errors';

export const TIMELINE_VIEW_ID = 'vramLens.timeline';
const MAX_FRAMES = 12;

function isTarget(value: unknown): value is Target {
  if (typeof value !== 'object' || value === null) return false;
  const t = value as Record<string, unknown>;
  return typeof t.snapshotId === 'string' && Number.isInteger(t.device);
}

function isFiniteOrUndefined(value: unknown): boolean {
  return value === undefined || (typeof value === 'number' && Number.isFinite(value));
}

/** Only the fields a window request may have, each of the right type. */
function sanitizeWindowRequest(value: unknown): WindowRequest | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const r = value as Record<string, unknown>;
  if (r.axis !== 'event' && r.axis !== 'time') return undefined;
  if (typeof r.columns !== 'number' || !Number.isFinite(r.columns)) return undefined;
  for (const key of ['x0', 'x1', 'budget', 'runBudget', 'offsetQuantum', 'focusLine', 'statesMargin'] as const) {
    if (!isFiniteOrUndefined(r[key])) return undefined;
  }
  let states: [number, number] | undefined;
  if (r.states !== undefined) {
    if (!Array.isArray(r.states) || r.states.length !== 2 || !r.states.every((s) => Number.isInteger(s))) return undefined;
    states = [r.states[0] as number, r.states[1] as number];
  }
  return {
    axis: r.axis,
    columns: r.columns,
    x0: r.x0 as number | undefined,
    x1: r.x1 as number | undefined,
    states,
    statesMargin: r.statesMargin as number | undefined,
    budget: r.budget as number | undefined,
    runBudget: r.runBudget as number | undefined,
    offsetQuantum: r.offsetQuantum as number | undefined,
    focusLine: r.focusLine as number | undefined,
  };
}

export class TimelineView implements vscode.WebviewViewProvider, vscode.Disposable {
  private view: vscode.WebviewView | undefined;
  private ready = false;
  /** Messages for a page that is not ready yet (a `showLine` sent while the view opens). */
  private queued: HostMessage[] = [];
  /** The snapshot and device the page showed last. */
  private target: Target | undefined;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly services: Services) {
    this.disposables.push(services.store.onDidChange(() => this.postSnapshots()));
  }

  /** The snapshot and device the timeline shows (or the active snapshot when it shows none). */
  currentTarget(): { snapshot: LoadedSnapshot; device: number } | undefined {
    const store = this.services.store;
    const chosen = this.target ? store.get(this.target.snapshotId) : undefined;
    if (chosen && this.target) return { snapshot: chosen, device: this.target.device };
    const active = store.active;
    return active ? { snapshot: active, device: active.device } : undefined;
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    const extensionUri = this.services.context.extensionUri;
    this.view = view;
    this.ready = false;
    view.webview.options = webviewOptions(extensionUri, TIMELINE_PAGE);
    const webview = view.webview;
    view.webview.html = webviewPage(webview, extensionUri, TIMELINE_PAGE);
    const subscriptions = [
      webview.onDidReceiveMessage((m: unknown) => void this.receive(m)),
      // The page is dropped while hidden; when shown again it says `ready` and gets everything anew.
      view.onDidChangeVisibility(() => {
        if (!view.visible) this.ready = false;
      }),
    ];
    view.onDidDispose(() => {
      for (const s of subscriptions) s.dispose();
      if (this.view === view) {
        this.view = undefined;
        this.ready = false;
      }
    });
  }

  /** Selects `file:line` (a snapshot path) in the timeline and zooms to its largest block. */
  async showLine(snapshot: LoadedSnapshot, device: number, file: string, line: number): Promise<boolean> {
    const blocks = await snapshot.worker.call('lineBlocks', { device, file, line, limit: 500 });
    if (!blocks || blocks.blocks.length === 0) return false;
    await vscode.commands.executeCommand(`${TIMELINE_VIEW_ID}.focus`);
    this.post({ type: 'showLine', target: { snapshotId: snapshot.id, device }, blocks });
    return true;
  }

  private post(message: HostMessage): void {
    if (!this.view || !this.ready) {
      if (message.type === 'showLine') this.queued = [message];
      return;
    }
    void this.view.webview.postMessage(message);
  }

  private postSnapshots(): void {
    const store = this.services.store;
    this.post({ type: 'snapshots', snapshots: store.list().map(snapshotChoice), activeId: store.active?.id });
  }

  private snapshotFor(target: Target): LoadedSnapshot {
    const s = this.services.store.get(target.snapshotId);
    if (!s) throw new Error('This snapshot is no longer loaded.');
    this.target = target;
    return s;
  }

  private async receive(raw: unknown): Promise<void> {
    if (!isWebviewMessage(raw)) {
      this.services.log.warn(`Timeline: ignored an unknown message from the view: ${JSON.stringify(raw)?.slice(0, 200)}`);
      return;
    }
    const message: WebviewMessage = raw;
    const requestId = 'requestId' in message && Number.isInteger(message.requestId) ? message.requestId : -1;
    try {
      await this.handle(message, requestId);
    } catch (e) {
      const text = errorMessage(e);
      this.services.log.error(`Timeline: ${message.type} failed: ${text}`);
      if (requestId >= 0) this.post({ type: 'error', requestId, message: text });
    }
  }

  private async handle(message: WebviewMessage, requestId: number): Promise<void> {
    switch (message.type) {
      case 'ready': {
        this.ready = true;
        this.postSnapshots();
        const queued = this.queued;
        this.queued = [];
        for (const q of queued) this.post(q);
        return;
      }
      case 'overview': {
        if (!isTarget(message.target) || (message.axis !== 'event' && message.axis !== 'time')) break;
        const s = this.snapshotFor(message.target);
        const columns = Math.max(1, Math.min(8192, Math.round(Number(message.columns)) || 1));
        const overview = await s.worker.call('timelineOverview', { device: message.target.device, axis: message.axis, columns });
        this.post({ type: 'overview', requestId, overview });
        return;
      }
      case 'findings': {
        if (!isTarget(message.target) || (message.axis !== 'event' && message.axis !== 'time')) break;
        const s = this.snapshotFor(message.target);
        // The advisor turned off: no markers either.
        const markers = setting('advice.enabled', true) ? await s.worker.call('timelineFindings', { device: message.target.device, axis: message.axis }) : [];
        this.post({ type: 'findings', requestId, markers });
        return;
      }
      case 'window': {
        const request = sanitizeWindowRequest(message.request);
        if (!isTarget(message.target) || !request) break;
        const s = this.snapshotFor(message.target);
        const window = await s.worker.call('timelineWindow', { device: message.target.device, request });
        this.post({ type: 'window', requestId, window });
        return;
      }
      case 'block': {
        if (!isTarget(message.target) || !Number.isInteger(message.record)) break;
        const s = this.snapshotFor(message.target);
        const detail = await s.worker.call('timelineBlock', { device: message.target.device, record: message.record, maxFrames: MAX_FRAMES });
        this.post({ type: 'block', requestId, detail });
        return;
      }
      case 'lines': {
        if (!isTarget(message.target)) break;
        const s = this.snapshotFor(message.target);
        const lines = await s.worker.call('lines', { device: message.target.device });
        this.post({ type: 'lines', requestId, rows: lines.map(lineRow) });
        return;
      }
      case 'stackFilter': {
        if (!isTarget(message.target) || typeof message.text !== 'string') break;
        const s = this.snapshotFor(message.target);
        const lineIds = await s.worker.call('linesMatchingStack', { text: message.text.slice(0, 500) });
        this.post({ type: 'stackFilter', requestId, lineIds });
        return;
      }
      case 'lineBlocks': {
        if (!isTarget(message.target) || typeof message.file !== 'string' || !Number.isInteger(message.line)) break;
        const s = this.snapshotFor(message.target);
        const blocks = await s.worker.call('lineBlocks', { device: message.target.device, file: message.file, line: message.line, limit: 500 });
        this.post({ type: 'lineBlocks', requestId, blocks });
        return;
      }
      case 'showing': {
        if (!isTarget(message.target)) break;
        this.snapshotFor(message.target);
        return;
      }
      case 'openSource': {
        if (typeof message.file !== 'string' || !Number.isInteger(message.line)) break;
        await this.openSource(message.file, message.line);
        return;
      }
      case 'runCommand': {
        if (!isAllowedCommand(message.command)) break;
        await vscode.commands.executeCommand(message.command);
        return;
      }
      case 'log': {
        const text = `Timeline view: ${String(message.message).slice(0, 2000)}`;
        if (message.level === 'error') this.services.log.error(text);
        else if (message.level === 'warn') this.services.log.warn(text);
        else this.services.log.info(text);
        return;
      }
    }
    this.services.log.warn(`Timeline: ignored a malformed '${message.type}' message from the view.`);
  }

  private async openSource(file: string, line: number): Promise<void> {
    const uri = await this.services.resolver.localUri(file);
    if (!uri) {
      void vscode.window.showWarningMessage(`VRAM Lens: cannot find ${file} on this machine or in the workspace.`);
      return;
    }
    const position = new vscode.Position(Math.max(0, line - 1), 0);
    await vscode.window.showTextDocument(uri, {
      selection: new vscode.Range(position, position),
      preview: true,
      viewColumn: vscode.ViewColumn.One,
    });
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}
