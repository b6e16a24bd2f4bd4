/**
 * The what-if panel beside the summary: one panel that shows one loaded snapshot's device at a time
 * (VRAM Lens: What If... or the summary's button picks which). The page's requests are answered by
 * whatIfRequests.ts (free of `vscode`); this module owns the panel, its messages and its lifetime.
 */
import * as vscode from 'vscode';
import { errorMessage } from '../../engine/base/errors';
import { describeRefused } from '../../guards/messageGuard';
import type { HostToWhatIf, WhatIfToHost } from '../../protocol/whatIf';
import { isWhatIfToHost } from '../../guards/whatIf';
import { DisposableOwner } from '../shared/disposables';
import type { PathResolver } from '../shared/pathResolver';
import { openLineOfPage } from '../shared/openRecordedLine';
import type { SnapshotStore } from '../shared/snapshotStore';
import { webviewOptions, webviewPage } from '../shared/webviewHtml';
import { WHAT_IF_PAGE } from './html';
import type { WhatIfBackend, WhatIfSubject } from './whatIfRequests';
import { answerPredict, describeSubject } from './whatIfRequests';

export const WHAT_IF_VIEW_TYPE = 'vramLens.whatIf';

export class WhatIfView extends DisposableOwner {
  private panel: vscode.WebviewPanel | undefined;
  private subject: WhatIfSubject | undefined;
  private ready = false;
  private readonly backend: WhatIfBackend;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly store: SnapshotStore,
    private readonly resolver: PathResolver,
    private readonly log: vscode.LogOutputChannel,
  ) {
    super();
    this.backend = {
      worker: (id) => {
        const s = store.get(id);
        return s ? (method, params) => s.call(method, params) : undefined;
      },
      mapped: async (files) => {
        if (files.length === 0) return [];
        const resolved = await resolver.resolve(files);
        return files.filter((f) => resolved.local.has(f));
      },
    };
    this.own(
      store.onDidChange(() => {
        // The snapshot shown was closed: say so.
        if (this.subject && !store.get(this.subject.snapshotId)) {
          this.subject = undefined;
          this.post({ type: 'empty', message: 'The snapshot was closed. Run VRAM Lens: What If... to choose another.' });
        }
      }),
      {
        dispose: () => {
          this.panel?.dispose();
        },
      },
    );
  }

  /** Shows the panel for a snapshot's device (by default the device the editor shows), beside the active editor. */
  show(subject: WhatIfSubject): void {
    this.subject = subject;
    if (!this.panel) {
      const panel = vscode.window.createWebviewPanel(
        WHAT_IF_VIEW_TYPE,
        'VRAM Lens: What If',
        { viewColumn: vscode.ViewColumn.Beside, preserveFocus: false },
        { ...webviewOptions(this.extensionUri, WHAT_IF_PAGE), retainContextWhenHidden: false },
      );
      panel.iconPath = vscode.Uri.joinPath(this.extensionUri, 'media', 'icon.png');
      panel.webview.html = webviewPage(panel.webview, this.extensionUri, WHAT_IF_PAGE);
      const subscriptions = vscode.Disposable.from(
        panel.webview.onDidReceiveMessage((m: unknown) => void this.receive(m)),
        panel.onDidDispose(() => {
          subscriptions.dispose();
          this.panel = undefined;
          this.ready = false;
        }),
      );
      this.panel = panel;
      return;
    }
    this.panel.reveal(undefined, false);
    if (this.ready) void this.describe();
  }

  private post(message: HostToWhatIf): void {
    void this.panel?.webview.postMessage(message);
  }

  private async receive(raw: unknown): Promise<void> {
    if (!isWhatIfToHost(raw)) {
      this.log.warn(`What-if panel: ignored an unknown message: ${describeRefused(raw)}`);
      return;
    }
    const message: WhatIfToHost = raw;
    switch (message.type) {
      case 'ready':
        this.ready = true;
        await this.describe();
        return;
      case 'selectDevice': {
        const s = this.subject && this.store.get(this.subject.snapshotId);
        if (!s || !Number.isInteger(message.device) || !s.deviceSummary(message.device)) return;
        this.subject = { snapshotId: s.id, device: message.device };
        await this.describe();
        return;
      }
      case 'predict': {
        const subject = this.subject;
        if (!subject) return;
        const requestId = Number.isInteger(message.requestId) ? message.requestId : -1;
        if (requestId < 0) return;
        this.post(await answerPredict(requestId, message.question, subject, this.backend));
        return;
      }
      case 'openLine':
        if (!(await openLineOfPage(this.resolver, message, { viewColumn: vscode.ViewColumn.One }))) this.log.warn(`What-if panel: ignored a malformed openLine: ${describeRefused(message)}`);
        return;
    }
  }

  /** Sends the page the subject, its self-check and its table. */
  private async describe(): Promise<void> {
    const subject = this.subject;
    const snapshot = subject && this.store.get(subject.snapshotId);
    if (!subject || !snapshot) {
      this.post({ type: 'empty', message: 'No snapshot is loaded. Open one, then run VRAM Lens: What If...' });
      return;
    }
    this.post({
      type: 'target',
      target: {
        snapshotId: snapshot.id,
        label: snapshot.label,
        device: subject.device,
        devices: snapshot.info.devices.map((d) => ({ device: d.device, peakReservedBytes: d.peakReservedBytes, ...(d.reservedUnknown === undefined ? {} : { reservedUnknown: true as const }) })),
      },
    });
    try {
      await describeSubject(subject, this.backend, (m) => {
        // Only for the subject still shown.
        if (this.subject === subject) this.post(m);
      });
    } catch (e) {
      this.log.warn('What-if panel: could not replay the allocator:', e);
      if (this.subject === subject) this.post({ type: 'error', requestId: -1, message: `The allocator could not be replayed: ${errorMessage(e)}` });
    }
  }
}
