/**
 * The comparison results panel: device totals, an overlay of both runs' memory over time, and the
 * lines ranked by change in live-at-peak bytes with links that open the source. One panel; it
 * follows compare mode and closes when compare mode ends. What it posts is built by compareRequests.ts
 * (free of `vscode`); this module owns the panel, its messages and its lifetime.
 */
import * as vscode from 'vscode';
import type { OverlayAxis } from '../../engine/compare/overlay';
import { describeRefused } from '../../guards/messageGuard';
import type { CompareToHost, HostToCompare } from '../../protocol/compare';
import { isCompareToHost } from '../../guards/compare';
import type { WorkerCall } from '../../protocol/worker';
import type { CompareMode } from '../shared/compareMode';
import { DisposableOwner } from '../shared/disposables';
import { openLineOfPage } from '../shared/openRecordedLine';
import type { PathResolver } from '../shared/pathResolver';
import type { SnapshotStore } from '../shared/snapshotStore';
import { webviewOptions, webviewPage } from '../shared/webviewHtml';
import { AXES, COMPARE_COMMANDS, comparisonView, overlayAnswer } from './compareRequests';
import { COMPARE_PAGE } from './html';

const VIEW_TYPE = 'vramLens.compareResults';

export class CompareView extends DisposableOwner {
  private panel: vscode.WebviewPanel | undefined;
  private axis: OverlayAxis = 'normalized';
  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly store: SnapshotStore,
    private readonly mode: CompareMode,
    private readonly files: PathResolver,
    private readonly log: vscode.LogOutputChannel,
  ) {
    super();
    this.own(
      mode.onDidChange((on) => {
        if (!on) this.panel?.dispose();
        else if (this.panel) void this.sendComparison();
      }),
      {
        dispose: () => {
          this.panel?.dispose();
        },
      },
    );
  }

  get visible(): boolean {
    return this.panel?.visible ?? false;
  }

  show(): void {
    if (this.panel) {
      this.panel.reveal(undefined, true);
      return;
    }
    const panel = vscode.window.createWebviewPanel(VIEW_TYPE, 'VRAM Lens: Compare', { viewColumn: vscode.ViewColumn.Beside, preserveFocus: true }, webviewOptions(this.extensionUri));
    panel.iconPath = vscode.Uri.joinPath(this.extensionUri, 'media', 'icon.png');
    panel.webview.html = webviewPage(panel.webview, this.extensionUri, COMPARE_PAGE);
    const subscriptions = vscode.Disposable.from(
      panel.webview.onDidReceiveMessage((m: unknown) => void this.receive(m)),
      panel.onDidDispose(() => {
        subscriptions.dispose();
        this.panel = undefined;
      }),
    );
    this.panel = panel;
  }

  private post(message: HostToCompare): void {
    void this.panel?.webview.postMessage(message);
  }

  private async receive(raw: unknown): Promise<void> {
    if (!isCompareToHost(raw)) {
      this.log.warn(`compare panel: ignored an unknown message: ${describeRefused(raw)}`);
      return;
    }
    const message: CompareToHost = raw;
    switch (message.type) {
      case 'ready':
        await this.sendComparison();
        return;
      case 'openLine':
        if (!(await openLineOfPage(this.files, message, { viewColumn: vscode.ViewColumn.One }))) this.log.warn(`compare panel: ignored a malformed openLine: ${describeRefused(message)}`);
        return;
      case 'setAxis':
        if (!AXES.includes(message.axis)) return;
        this.axis = message.axis;
        await this.sendOverlay();
        return;
      case 'runCommand':
      {
        const command = COMPARE_COMMANDS.commandFor(message.command);
        if (command) await vscode.commands.executeCommand(command);
        else this.log.warn(`compare panel: refused to run ${describeRefused(message.command)}`);
        return;
      }
    }
  }

  private async sendComparison(): Promise<void> {
    const active = this.mode.comparison;
    if (!active) return;
    const view = comparisonView(active, [active.baseline, active.current].every((s) => this.store.get(s.snapshotId)?.info.hasTimes === true));
    if (this.axis === 'time' && !view.hasTimes) this.axis = 'normalized';
    this.post({ type: 'comparison', view });
    await this.sendOverlay();
  }

  private async sendOverlay(): Promise<void> {
    const active = this.mode.comparison;
    if (!active) return;
    const worker = (id: string): WorkerCall | undefined => {
      const snapshot = this.store.get(id);
      return snapshot ? (method, params) => snapshot.call(method, params) : undefined;
    };
    this.post(await overlayAnswer(active, this.axis, worker, (m) => this.log.warn(`compare panel: ${m}`)));
  }
}
