/**
 * The snapshot summary feature: the summary editor of snapshot files (the default editor of `*.pickle`
 * files, offered for `*.pkl`) and `Show Summary`, which opens a loaded snapshot's file in it, or a panel
 * for a snapshot without a file. It shows whether the editor's annotations are on and turns them on, so
 * it is given them (the editor feature's annotator) beside the shared services.
 */
import * as vscode from 'vscode';
import { Commands } from '../shared/commandIds';
import type { Services } from '../shared/services';
import type { SummaryAnnotations, SummaryDeps } from './summaryView';
import { SUMMARY_VIEW_TYPE, SUMMARY_VIEW_TYPE_PKL, SnapshotSummaryEditorProvider, showSummary, summaryViewTypeFor } from './summaryView';

export function summaryFeature(services: Services, annotations: SummaryAnnotations): void {
  const { context, store, log, resolver, sources } = services;
  const deps: SummaryDeps = { extensionUri: context.extensionUri, store, annotations, resolver, log, sources };

  /** `Show Summary`: of a file (the Explorer), of a loaded snapshot by id, else of the active one. */
  const summaryOf = async (target?: string | vscode.Uri): Promise<void> => {
    if (target instanceof vscode.Uri) {
      await vscode.commands.executeCommand('vscode.openWith', target, summaryViewTypeFor(target));
      return;
    }
    const snapshot = typeof target === 'string' ? store.get(target) : store.active;
    if (snapshot) await showSummary(deps, snapshot);
    else void vscode.window.showInformationMessage('VRAM Lens: open a snapshot first (VRAM Lens: Open Snapshot...).');
  };

  context.subscriptions.push(
    ...[SUMMARY_VIEW_TYPE, SUMMARY_VIEW_TYPE_PKL].map((viewType) =>
      vscode.window.registerCustomEditorProvider(viewType, new SnapshotSummaryEditorProvider(deps), { supportsMultipleEditorsPerDocument: true }),
    ),
    vscode.commands.registerCommand(Commands.showSummary, summaryOf),
  );
}
