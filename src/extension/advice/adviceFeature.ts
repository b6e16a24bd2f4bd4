/**
 * The advisor in the Problems panel: the active snapshot's findings as diagnostics on the lines
 * they are about (or on the snapshot file when they name no line of this workspace), with the
 * evidence in the message and quick fixes where the fix is mechanical.
 */
import * as vscode from 'vscode';
import { Commands } from '../commandIds';
import { setting } from '../config';
import type { Feature } from '../services';
import { errorMessage } from '../../engine/base/errors';
import { FindingIndex, diagnosticsFor } from './diagnostics';
import { AdviceQuickFixes } from './quickFixes';

export const adviceFeature: Feature = ({ context, store, log, resolver: files, sources }) => {
  const collection = vscode.languages.createDiagnosticCollection('vramLens.advice');
  const index = new FindingIndex();
  /** The snapshot and attribution (`revision`) the diagnostics were made for. */
  let shown: { id: string; revision: number } | undefined;
  let generation = 0;

  const refresh = async (force = false) => {
    const snapshot = setting('advice.enabled', true) ? store.active : undefined;
    if (!force && shown?.id === snapshot?.id && shown?.revision === snapshot?.revision) return;
    shown = snapshot ? { id: snapshot.id, revision: snapshot.revision } : undefined;
    const mine = ++generation;
    if (!snapshot) {
      collection.clear();
      index.clear();
      return;
    }
    try {
      // The texts the advisor reads: captured once, sent to the snapshot's worker once (LoadedSnapshot).
      await sources.texts(snapshot.id);
      const findings = await snapshot.call('advice', {});
      const fresh = new FindingIndex();
      const byFile = await diagnosticsFor(snapshot, findings, files, fresh);
      if (mine !== generation) return;
      collection.clear();
      index.clear();
      for (const { uri, diagnostics } of byFile.values()) collection.set(uri, diagnostics);
      fresh.copyInto(index);
      log.info(`Advisor: ${findings.length} finding(s) for ${snapshot.label}`);
      log.trace(`Advisor: diagnostics at ${index.keys().join(', ')}`);
    } catch (e) {
      log.warn(`Advisor failed for ${snapshot.label}: ${errorMessage(e)}`);
    }
  };

  context.subscriptions.push(
    collection,
    store.onDidChange(() => void refresh()),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('vramLens.advice.enabled')) void refresh(true);
    }),
    vscode.workspace.onDidChangeWorkspaceFolders(() => void refresh(true)),
    files.onDidChange(() => void refresh(true)),
    vscode.languages.registerCodeActionsProvider({ language: 'python' }, new AdviceQuickFixes(index, files, log), {
      providedCodeActionKinds: AdviceQuickFixes.kinds,
    }),
    vscode.commands.registerCommand(Commands.showAdvice, async () => {
      await refresh(true);
      await vscode.commands.executeCommand('workbench.actions.view.problems');
    }),
  );
  void refresh();
};
