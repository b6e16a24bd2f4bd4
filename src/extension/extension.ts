/**
 * Activation: builds the shared services and lets each feature register itself.
 * Features live in their own modules and only meet through `Services`.
 */
import * as vscode from 'vscode';
import { adviceFeature } from './advice/feature';
import { whatIfFeature } from './whatIf/feature';
import { CompareMode } from './shared/compareMode';
import { compareFeature } from './compare/feature';
import { SourceTexts } from './shared/sourceTexts';
import { affects, analysisWorkerOptions, frameFilter } from './shared/config';
import type { EditorApi } from './editor/feature';
import { registerEditor } from './editor/feature';
import { PathResolver } from './shared/pathResolver';
import { NotebookCells } from './shared/notebookCells';
import { notebookFeature } from './notebook/feature';
import { profileFeature } from './profile/feature';
import type { Feature, Services } from './shared/services';
import { SnapshotStore } from './shared/snapshotStore';
import { summaryFeature } from './summary/feature';
import { timelineFeature } from './timeline/feature';
import { workloadsFeature } from './workloads/feature';

const features: Feature[] = [profileFeature, compareFeature, adviceFeature, timelineFeature, workloadsFeature, notebookFeature, whatIfFeature];

export interface ExtensionApi {
  readonly services: Services;
  readonly editor: EditorApi;
}

export function activate(context: vscode.ExtensionContext): ExtensionApi {
  const log = vscode.window.createOutputChannel('VRAM Lens', { log: true });
  const store = new SnapshotStore(vscode.Uri.joinPath(context.extensionUri, 'dist', 'analysisWorker.js').fsPath, frameFilter, analysisWorkerOptions);
  context.subscriptions.push(log, store);
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (affects(e, 'annotateLibraryFrames') || affects(e, 'libraryPaths')) void store.refilter();
    }),
  );
  const compareMode = new CompareMode();
  context.subscriptions.push(compareMode);
  const notebooks = new NotebookCells(log);
  const resolver = new PathResolver(context.workspaceState, log, notebooks);
  context.subscriptions.push(notebooks, resolver);
  const sources = new SourceTexts(store, resolver, log);
  context.subscriptions.push(sources);
  const services: Services = { context, store, log, compareMode, resolver, sources };
  for (const feature of features) feature(services);
  const editor = registerEditor(services);
  // The summary shows and turns on the editor's annotations: it is given them.
  summaryFeature(services, editor.annotator);
  return { services, editor };
}

export function deactivate(): void {
  // Everything is disposed through context.subscriptions.
}
