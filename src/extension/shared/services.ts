/**
 * What every feature of the extension is given at activation: one instance of each shared service,
 * built in `activate` (src/extension/extension.ts). The services, and everything else features share
 * (settings, command ids, disposables, opening a recorded line, webview page plumbing), live in this
 * folder, src/extension/shared/, and nowhere else: a feature folder imports only from here, never from
 * another feature's folder.
 */
import type * as vscode from 'vscode';
import type { SourceTexts } from './sourceTexts';
import type { CompareMode } from './compareMode';
import type { PathResolver } from './pathResolver';
import type { SnapshotStore } from './snapshotStore';

export interface Services {
  readonly context: vscode.ExtensionContext;
  readonly store: SnapshotStore;
  readonly log: vscode.LogOutputChannel;
  /** Compare mode (on while two runs are compared); features that annotate lines step aside on its `onDidChange`. */
  readonly compareMode: CompareMode;
  /** Where recorded snapshot paths are in this workspace, with the user's remembered root mappings. */
  readonly resolver: PathResolver;
  /** Each loaded snapshot's source texts as at load (kept by the snapshot): compare pairs moved lines by them, the advisor reads them. */
  readonly sources: SourceTexts;
}

/** A feature registers its commands, views and listeners, pushing every disposable on `context.subscriptions`. */
export type Feature = (services: Services) => void;
