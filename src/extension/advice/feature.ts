/**
 * The advisor in the Problems panel: the active snapshot's findings as diagnostics on the lines they
 * are about (findings that name no line of this workspace are on the snapshot's summary instead),
 * with the evidence in the message and quick fixes where the fix is mechanical and safe; the
 * diagnostics follow the user's edits (`AdviceDiagnostics`).
 */
import * as vscode from 'vscode';
import { Commands } from '../shared/commandIds';
import { setting } from '../shared/config';
import type { Feature } from '../shared/services';
import { errorMessage } from '../../engine/base/errors';
import { AdviceDiagnostics } from './diagnostics';
import { AdviceQuickFixes } from './quickFixes';

export const adviceFeature: Feature = ({ context, store, log, resolver: files, sources }) => {
  const diagnostics = new AdviceDiagnostics(files, log);
  /** The snapshot and attribution (`revision`) the diagnostics were made for. */
  let shown: { id: string; revision: number } | undefined;
  let generation = 0;

  const refresh = async (force = false) => {
    const snapshot = setting('advice.enabled', true) ? store.active : undefined;
    if (!force && shown?.id === snapshot?.id && shown?.revision === snapshot?.revision) return;
    const another = shown?.id !== snapshot?.id;
    shown = snapshot ? { id: snapshot.id, revision: snapshot.revision } : undefined;
    const mine = ++generation;
    // Another snapshot: the previous one's findings go at once, not when the new ones are ready.
    if (!snapshot || another) diagnostics.clear();
    if (!snapshot) return;
    try {
      // The texts the advisor reads: captured once, sent to the snapshot's worker once (LoadedSnapshot).
      const texts = await sources.texts(snapshot.id);
      // The notebook cells of its recorded cell files: the findings name their lines by cell.
      const findings = await snapshot.findings(() => sources.texts(snapshot.id), await sources.cellPlaces(snapshot.id));
      const elsewhere = await diagnostics.show(findings, texts, () => mine === generation);
      if (mine !== generation) return;
      log.info(`Advisor: ${findings.length} finding(s) for ${snapshot.label}, ${elsewhere.length} of them on the snapshot's summary (no line in this workspace)`);
    } catch (e) {
      log.warn(`Advisor failed for ${snapshot.label}: ${errorMessage(e)}`);
    }
  };

  context.subscriptions.push(
    diagnostics,
    store.onDidChange(() => void refresh()),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('vramLens.advice.enabled')) void refresh(true);
    }),
    vscode.workspace.onDidChangeWorkspaceFolders(() => void refresh(true)),
    files.onDidChange(() => void refresh(true)),
    vscode.languages.registerCodeActionsProvider({ language: 'python' }, new AdviceQuickFixes(diagnostics.index, files, log), {
      providedCodeActionKinds: AdviceQuickFixes.kinds,
    }),
    vscode.commands.registerCommand(Commands.showAdvice, async () => {
      await refresh(true);
      await vscode.commands.executeCommand('workbench.actions.view.problems');
    }),
  );
  void refresh();
};
