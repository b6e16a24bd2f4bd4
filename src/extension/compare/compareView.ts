/**
 * The comparison results panel: device totals, an overlay of both runs' memory over time, and the
 * lines ranked by change in live-at-peak bytes with links that open the source. One panel; it
 * follows compare mode and closes when compare mode ends.
 */
import * as vscode from 'vscode';
import type { LineDelta } from '../../engine/compare/diff';
import { changedLines } from '../../engine/compare/diff';
import type { OverlayAxis } from '../../engine/compare/overlay';
import { alignTotals } from '../../engine/compare/overlay';
import { lineDeltaReport } from '../../engine/compare/report';
import type { SeriesAxis } from '../../engine/compare/totals';
import type { SnapshotStore } from '../shared/snapshotStore';
import type { ActiveComparison, CompareMode } from '../shared/compareMode';
import type { CompareCommand, CompareToHost, ComparisonView, HostToCompare, RowView } from '../../protocol/compare';
import { isCompareToHost } from '../../protocol/compare';
import type { LineAt } from '../../protocol/openLine';
import { describeRefused } from '../../protocol/messageGuard';
import { commandAllowlist } from '../shared/webviewCommands';
import type { PathResolver } from '../shared/pathResolver';
import { DisposableOwner } from '../shared/disposables';
import { webviewOptions, webviewPage } from '../shared/webviewHtml';
import type { PageContent } from '../shared/webviewDocument';
import { errorMessage, userMessage } from '../../engine/base/errors';
import { openLineOfPage } from '../shared/openRecordedLine';
import { lineLabel, placeOf } from '../../engine/paths/places';

const VIEW_TYPE = 'vramLens.compareResults';
const PAGE: PageContent = {
  title: 'VRAM Lens: Compare',
  script: 'compare.js',
  styles: ['compare.css'],
  body: '<main id="root" aria-live="polite"><p class="muted">Loading the comparison…</p></main>',
};
/** Rows sent to the page (the most changed first). */
const MAX_ROWS = 500;
const OVERLAY_POINTS = 400;
const AXES: readonly OverlayAxis[] = ['event', 'time', 'normalized'];

/** The last two components of a recorded path (`cs336_basics/model.py`): short, and the same on any machine. */
function shortPlace(file: string): string {
  return file.replace(/\\/g, '/').split('/').slice(-2).join('/');
}

/** What the page's buttons may run. */
const COMPARE_COMMANDS = commandAllowlist<CompareCommand>(['compareSnapshots', 'exitCompareMode']);

export class ResultsPanel extends DisposableOwner {
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
    panel.webview.html = webviewPage(panel.webview, this.extensionUri, PAGE);
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

  private view(active: ActiveComparison): ComparisonView {
    const c = active.comparison;
    const changed = changedLines(c);
    const changedLineCount = changed.length;
    const rows = changed.slice(0, MAX_ROWS).map((l): RowView => {
      const r = lineDeltaReport(l);
      return {
        place: placeOf(l.file, active.places) ? lineLabel(l.file, l.line, active.places) : `${shortPlace(l.file)}:${String(l.line)}`,
        file: l.file,
        match: r.match,
        baselineLine: l.baseline ? String(l.baseline.line) : null,
        currentLine: l.current ? String(l.current.line) : null,
        baselineAt: lineAt(l.baseline),
        currentAt: lineAt(l.current),
        baseline: l.baseline?.figures ?? null,
        current: l.current?.figures ?? null,
        delta: l.delta,
      };
    });
    const times = [active.baseline, active.current].every((s) => this.store.get(s.snapshotId)?.info.hasTimes === true);
    return { baseline: c.baseline, current: c.current, totalsDelta: c.totalsDelta, rows, changedLineCount, hasTimes: times };
  }

  private async sendComparison(): Promise<void> {
    const active = this.mode.comparison;
    if (!active) return;
    const view = this.view(active);
    if (this.axis === 'time' && !view.hasTimes) this.axis = 'normalized';
    this.post({ type: 'comparison', view });
    await this.sendOverlay();
  }

  private async sendOverlay(): Promise<void> {
    const active = this.mode.comparison;
    if (!active) return;
    const axis: SeriesAxis = this.axis === 'time' ? 'time' : 'event';
    try {
      const series = await Promise.all(
        [active.baseline, active.current].map((s) => {
          const snapshot = this.store.get(s.snapshotId);
          if (!snapshot) throw new Error('a compared snapshot was closed');
          return snapshot.call('totals', { device: s.device, axis, points: OVERLAY_POINTS * 8 });
        }),
      );
      this.post({ type: 'overlay', overlay: alignTotals(series[0], series[1], this.axis, OVERLAY_POINTS) });
    } catch (e) {
      this.log.warn(`compare panel: ${errorMessage(e)}`);
      this.post({ type: 'error', message: userMessage(e) });
    }
  }
}

/** Where a side's line is, for the page's `openLine`; none when the side has no line, or a line number beyond any editor's. */
function lineAt(side: LineDelta['baseline']): LineAt | null {
  return side && typeof side.line === 'number' ? { file: side.file, line: side.line } : null;
}
