/**
 * The editor feature: annotations of the active snapshot on the source files (heat marks, inline
 * figures, hovers, code lenses), the status bar item and the commands that open, switch and close
 * snapshots. The snapshot summary is its own feature (src/extension/summary), given this annotator.
 */
import * as vscode from 'vscode';
import { Commands } from '../shared/commandIds';
import type { Services } from '../shared/services';
import type { LoadedSnapshot } from '../shared/snapshotStore';
import { Annotator } from './annotator';
import { FunctionCodeLensProvider } from './codeLens';
import type { CommandDeps } from './commands';
import { closeSnapshot, openFrame, openSnapshot, switchSnapshot } from './commands';
import { AnnotationHoverProvider } from './hover';
import type { OpenFrameArgs } from './hoverMarkdown';
import type { PathResolver } from '../shared/pathResolver';
import { SnapshotStatusBar } from './statusBar';

/** What the editor feature offers to tests (through the extension's API) and to other features. */
export interface EditorApi {
  readonly annotator: Annotator;
  readonly resolver: PathResolver;
  openSnapshot(target?: vscode.Uri | string): Promise<LoadedSnapshot | undefined>;
}

/** Python files, and the code cells of Jupyter notebooks (their documents are `vscode-notebook-cell:` URIs). */
const PYTHON: vscode.DocumentSelector = [
  { language: 'python' },
  { pattern: '**/*.py' },
  { scheme: 'vscode-notebook-cell', language: 'python' },
  { notebookType: 'jupyter-notebook', language: 'python' },
];

export function registerEditor(services: Services): EditorApi {
  const { context, store, log, compareMode, resolver } = services;
  const annotator = new Annotator(store, resolver, compareMode, log, context.extensionUri);
  const codeLens = new FunctionCodeLensProvider(annotator, log);
  const deps: CommandDeps = { store, annotator, resolver, log };

  context.subscriptions.push(
    annotator,
    codeLens,
    new SnapshotStatusBar(store, annotator),
    vscode.languages.registerHoverProvider(PYTHON, new AnnotationHoverProvider(annotator, log)),
    vscode.languages.registerCodeLensProvider(PYTHON, codeLens),
    vscode.commands.registerCommand(Commands.openSnapshot, (target?: vscode.Uri | string) => openSnapshot(deps, target)),
    vscode.commands.registerCommand(Commands.switchSnapshot, () => switchSnapshot(deps)),
    vscode.commands.registerCommand(Commands.closeSnapshot, () => closeSnapshot(deps)),
    vscode.commands.registerCommand(Commands.clearAnnotations, () => annotator.hide()),
    vscode.commands.registerCommand(Commands.openFrame, (args?: OpenFrameArgs) => openFrame(deps, args)),
    vscode.commands.registerCommand(Commands.forgetPathMappings, () => resolver.forgetMappings()),
  );

  return { annotator, resolver, openSnapshot: (target) => openSnapshot(deps, target) };
}
