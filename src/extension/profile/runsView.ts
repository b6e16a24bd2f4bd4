/** The "Runs" view: profiled runs, newest first, each with its snapshot file(s) and how it ended. */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { formatBytes, formatCount } from '../../engine/text/format';
import { describeTarget } from '../../runtime/profile/configuration';
import type { RunRecord, RunSnapshotFile } from '../../runtime/profile/history';
import type { OutcomeKind } from '../../runtime/profile/outcome';
import { Commands } from '../shared/commandIds';
import type { SnapshotStore } from '../shared/snapshotStore';
import type { RunHistory } from './runHistory';
import { DisposableOwner } from '../shared/disposables';

export type RunNode = { readonly kind: 'run'; readonly run: RunRecord } | { readonly kind: 'snapshot'; readonly run: RunRecord; readonly file: RunSnapshotFile };

const OUTCOME_ICONS: Record<OutcomeKind, [string, string | undefined]> = {
  completed: ['pass', 'testing.iconPassed'],
  exit: ['warning', 'list.warningForeground'],
  exception: ['error', 'list.errorForeground'],
  oom: ['error', 'list.errorForeground'],
  cancelled: ['circle-slash', undefined],
  killed: ['circle-slash', 'list.warningForeground'],
  crashed: ['error', 'list.errorForeground'],
  environment: ['warning', 'list.warningForeground'],
  'failed-to-start': ['warning', 'list.warningForeground'],
};

export class RunsTreeProvider extends DisposableOwner implements vscode.TreeDataProvider<RunNode> {
  private readonly changed = this.own(new vscode.EventEmitter<RunNode | undefined>());
  readonly onDidChangeTreeData = this.changed.event;

  constructor(
    private readonly history: RunHistory,
    private readonly store: SnapshotStore,
  ) {
    super();
    this.own(history.onDidChange(() => this.changed.fire(undefined)), store.onDidChange(() => this.changed.fire(undefined)));
  }

  getChildren(node?: RunNode): RunNode[] {
    if (!node) return this.history.list().map((run) => ({ kind: 'run', run }));
    if (node.kind === 'run' && node.run.snapshots.length > 1) {
      return node.run.snapshots.map((file) => ({ kind: 'snapshot', run: node.run, file }));
    }
    return [];
  }

  getTreeItem(node: RunNode): vscode.TreeItem {
    return node.kind === 'run' ? this.runItem(node.run) : this.snapshotItem(node.run, node.file);
  }

  private isActive(file: string): boolean {
    const active = this.store.active;
    return active?.uri?.scheme === 'file' && path.normalize(active.uri.fsPath) === path.normalize(file);
  }

  private runItem(run: RunRecord): vscode.TreeItem {
    const several = run.snapshots.length > 1;
    const item = new vscode.TreeItem(run.configuration.name, several ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None);
    item.id = run.id;
    const active = run.snapshots.some((s) => this.isActive(s.path));
    const parts = [run.predicted ? `predicted for ${run.predicted.gpu}: ${run.outcome.headline}` : run.outcome.headline];
    if (run.peakBytes !== undefined) parts.push(`peak ${formatBytes(run.peakBytes)}`);
    parts.push(new Date(run.startedAt).toLocaleString());
    item.description = `${active ? '● ' : ''}${parts.join(' · ')}`;
    const [icon, color] = OUTCOME_ICONS[run.outcome.kind];
    item.iconPath = new vscode.ThemeIcon(icon, color ? new vscode.ThemeColor(color) : undefined);
    item.tooltip = runTooltip(run);
    item.contextValue = run.snapshots.length > 0 ? 'vramLens.run.withSnapshot' : 'vramLens.run';
    if (run.snapshots.length === 1) {
      item.command = { command: Commands.loadRun, title: 'Load Snapshot', arguments: [{ kind: 'run', run } satisfies RunNode] };
    }
    return item;
  }

  private snapshotItem(run: RunRecord, file: RunSnapshotFile): vscode.TreeItem {
    const item = new vscode.TreeItem(file.rank === undefined ? path.basename(file.path) : `rank ${file.rank}`);
    item.id = `${run.id}:${file.path}`;
    item.description = `${this.isActive(file.path) ? '● ' : ''}${formatBytes(file.bytes)}`;
    item.iconPath = new vscode.ThemeIcon('file-binary');
    item.tooltip = file.path;
    item.contextValue = 'vramLens.runSnapshot';
    item.command = { command: Commands.loadRun, title: 'Load Snapshot', arguments: [{ kind: 'snapshot', run, file } satisfies RunNode] };
    return item;
  }

}

function runTooltip(run: RunRecord): vscode.MarkdownString {
  const md = new vscode.MarkdownString();
  const c = run.configuration;
  md.appendMarkdown(`**${escape(c.name)}**: ${escape(run.outcome.headline)}\n\n`);
  const rows: [string, string][] = [
    ['Ran', describeTarget(c)],
    ['Working folder', run.cwd],
    ['Interpreter', run.interpreter.join(' ')],
    ['Started', new Date(run.startedAt).toLocaleString()],
    ['Duration', `${((run.endedAt - run.startedAt) / 1000).toFixed(1)} s`],
    ['Recording', `max ${run.recording.maxEntries} entries, ${run.recording.stacks} stacks`],
  ];
  if (c.nprocPerNode && c.nprocPerNode > 1) rows.push(['Processes', `torchrun, ${c.nprocPerNode} per node`]);
  if (run.torch) rows.push(['PyTorch', run.torch]);
  if (run.predicted) {
    rows.push(['Predicted for', `${run.predicted.gpu} (${formatCount(run.predicted.memoryBytes)} bytes, compute capability ${run.predicted.capability})`]);
    rows.push(['Tensors', run.predicted.data === 'cpu' ? 'the program\'s data, computed on the CPU' : 'fake (shapes, no data)']);
  }
  if (run.peakBytes !== undefined) rows.push(['Peak', formatBytes(run.peakBytes)]);
  if (run.peakLine) rows.push(['Peak at', `${path.basename(run.peakLine.file)}:${run.peakLine.line}`]);
  for (const [k, v] of rows) md.appendMarkdown(`${k}: \`${v.replace(/`/g, "'")}\`  \n`);
  return md;
}

function escape(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!<>|]/g, '\\$&');
}
