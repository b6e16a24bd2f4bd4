/**
 * The `Timeline` webview view: serves the page, answers its requests from the snapshot workers
 * (the heavy work happens there), opens source files it points at, and re-sends the snapshot list
 * whenever the store changes or the view is shown again (the page is not kept while hidden).
 */
import * as vscode from 'vscode';
import { errorMessage, userMessage } from '../../engine/base/errors';
import type { LineBlock } from '../../engine/timeline/types';
import { describeRefused } from '../../guards/messageGuard';
import type { HostToTimeline, Target, TimelineToHost } from '../../protocol/timeline';
import { isTarget, isTimelineRequest, isTimelineToHost } from '../../guards/timeline';
import { setting } from '../shared/config';
import { DisposableOwner } from '../shared/disposables';
import type { Services } from '../shared/services';
import type { LoadedSnapshot } from '../shared/snapshotStore';
import { webviewOptions, webviewPage } from '../shared/webviewHtml';
import { TIMELINE_PAGE } from './html';
import { snapshotChoice } from './rows';
import type { TimelineBackend } from './timelineRequests';
import { answerTimelineRequest, LINE_BLOCK_LIMIT, requestIdOf, TIMELINE_COMMANDS } from './timelineRequests';
import { openLineOfPage } from '../shared/openRecordedLine';
import { cellPlacesOf } from '../shared/pathResolver';

export const TIMELINE_VIEW_ID = 'vramLens.timeline';

export class TimelineView extends DisposableOwner implements vscode.WebviewViewProvider {
  private view: vscode.WebviewView | undefined;
  private ready = false;
  /** Messages for a page that is not ready yet (a `showLine` sent while the view opens). */
  private queued: HostToTimeline[] = [];
  /** The snapshot and device the page showed last. */
  private target: Target | undefined;
  private readonly backend: TimelineBackend;

  constructor(private readonly services: Services) {
    super();
    this.own(services.store.onDidChange(() => this.postSnapshots()));
    this.backend = {
      worker: (snapshotId) => {
        const snapshot = services.store.get(snapshotId);
        return snapshot ? (method, params) => snapshot.call(method, params) : undefined;
      },
      adviceEnabled: () => setting('advice.enabled', true),
      places: async (snapshotId, device) => {
        const snapshot = services.store.get(snapshotId);
        if (!snapshot) return {};
        const files = [...new Set((await snapshot.lines(device)).map((l) => l.file))];
        return cellPlacesOf(await services.resolver.resolve(files));
      },
    };
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
    const subscriptions = vscode.Disposable.from(
      webview.onDidReceiveMessage((m: unknown) => void this.receive(m)),
      // The page is dropped while hidden; when shown again it says `ready` and gets everything anew.
      view.onDidChangeVisibility(() => {
        if (!view.visible) this.ready = false;
      }),
    );
    view.onDidDispose(() => {
      subscriptions.dispose();
      if (this.view === view) {
        this.view = undefined;
        this.ready = false;
      }
    });
  }

  /**
   * Shows `snapshot` and `device` in the timeline, selects `file:line` (a snapshot path) and zooms
   * to its block `record` when given (and it is one of the line's), else to its largest block.
   */
  async showLine(snapshot: LoadedSnapshot, device: number, file: string, line: number, record?: number): Promise<boolean> {
    const found = await snapshot.call('lineBlocks', { device, file, line, limit: LINE_BLOCK_LIMIT });
    if (!found || found.blocks.length === 0) return false;
    let blocks = found;
    if (record !== undefined && Number.isInteger(record)) {
      // The page zooms to the first block: put the block asked for first (a hover's block may be one
      // made through the line, not by it, and so not among the line's own).
      const own = found.blocks.find((b) => b.record === record);
      const chosen = own ?? (await this.blockOf(snapshot, device, record));
      if (chosen) blocks = { ...found, blocks: [chosen, ...found.blocks.filter((b) => b.record !== chosen.record)] };
    }
    await vscode.commands.executeCommand(`${TIMELINE_VIEW_ID}.focus`);
    this.target = { snapshotId: snapshot.id, device };
    this.post({ type: 'showLine', target: this.target, blocks });
    return true;
  }

  private async blockOf(snapshot: LoadedSnapshot, device: number, record: number): Promise<LineBlock | undefined> {
    try {
      const d = await snapshot.call('timelineBlock', { device, record, maxFrames: 0 });
      return { record: d.record, size: d.size, firstState: d.firstState, lastState: d.lastState };
    } catch (e) {
      this.services.log.info(`Show Line in Timeline: no block ${record} on device ${device} of ${snapshot.label}: ${errorMessage(e)}`);
      return undefined;
    }
  }

  private post(message: HostToTimeline): void {
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

  private async receive(raw: unknown): Promise<void> {
    if (!isTimelineToHost(raw)) {
      this.services.log.warn(`Timeline: ignored an unknown message from the view: ${describeRefused(raw)}`);
      return;
    }
    const message: TimelineToHost = raw;
    const requestId = isTimelineRequest(message) ? requestIdOf(message) : -1;
    try {
      if (!(await this.handle(message))) this.services.log.warn(`Timeline: ignored a malformed '${message.type}' message from the view.`);
    } catch (e) {
      this.services.log.error(`Timeline: ${message.type} failed: ${errorMessage(e)}`);
      if (requestId >= 0) this.post({ type: 'error', requestId, message: userMessage(e) });
    }
  }

  /** Handles one message; false when its fields are malformed. */
  private async handle(message: TimelineToHost): Promise<boolean> {
    if (isTimelineRequest(message)) {
      if (isTarget(message.target)) this.target = message.target;
      const answer = await answerTimelineRequest(message, this.backend);
      if (answer) this.post(answer);
      return answer !== undefined;
    }
    switch (message.type) {
      case 'ready': {
        this.ready = true;
        this.postSnapshots();
        const queued = this.queued;
        this.queued = [];
        for (const q of queued) this.post(q);
        return true;
      }
      case 'showing':
        if (!isTarget(message.target) || !this.services.store.get(message.target.snapshotId)) return false;
        this.target = message.target;
        return true;
      case 'openLine':
        return openLineOfPage(this.services.resolver, message, { viewColumn: vscode.ViewColumn.One });
      case 'runCommand': {
        const command = TIMELINE_COMMANDS.commandFor(message.command);
        if (!command) return false;
        await vscode.commands.executeCommand(command);
        return true;
      }
      case 'log': {
        const text = `Timeline view: ${String(message.message).slice(0, 2000)}`;
        if (message.level === 'error') this.services.log.error(text);
        else if (message.level === 'warn') this.services.log.warn(text);
        else this.services.log.info(text);
        return true;
      }
    }
    return false;
  }
}
