/**
 * Recording from the user's own Jupyter kernel: `Record in Notebook Kernel...` puts the cell that loads
 * our kernel extension (`src/python/vram_lens/notebook.py`: `%%vram`, `%vram start` / `%vram stop`) on
 * the clipboard or into the active notebook; the snapshots it writes land in a folder watched here,
 * and each is loaded and annotates the cells at once. For every snapshot loaded from a file (whoever
 * wrote it), the cell texts written beside it (`<snapshot>.cells.json`) are read, so a cell edited since
 * it ran still finds its place.
 */
import * as vscode from 'vscode';
import { CELL_TEXTS_SUFFIX, parseCellTexts } from '../../engine/notebook/cellTexts';
import { errorMessage } from '../../engine/base/errors';
import { notificationText } from '../../engine/text/plainText';
import { Commands } from '../shared/commandIds';
import { DisposableOwner } from '../shared/disposables';
import type { Services } from '../shared/services';
import type { NotebookCells } from '../shared/notebookCells';
import { loadExtensionCell } from './loadCell';

const MAX_CELL_TEXTS_BYTES = 64 * 1024 * 1024;

export class NotebookRecordings extends DisposableOwner {
  /** Where the kernel extension writes snapshots (the workspace's storage, else the extension's). */
  readonly folder: vscode.Uri;
  private readonly read = new Set<string>();

  constructor(
    private readonly services: Services,
    private readonly notebooks: NotebookCells,
  ) {
    super();
    const { context } = services;
    this.folder = vscode.Uri.joinPath(context.storageUri ?? context.globalStorageUri, 'notebook-snapshots');
    this.own(
      services.store.onDidChange(() => void this.readCellTexts()),
      vscode.commands.registerCommand(Commands.recordInKernel, () => this.offerLoadCell()),
    );
    void this.watch();
  }

  /**
   * Watches the folder once it exists: the workbench does not see files appear in a folder outside the
   * workspace that did not exist when the watch began, so the folder is made first.
   */
  private async watch(): Promise<void> {
    try {
      await vscode.workspace.fs.createDirectory(this.folder);
    } catch (e) {
      this.services.log.warn(`Could not make the folder for notebook recordings ${this.folder.fsPath}: ${errorMessage(e)}`);
      return;
    }
    if (this.isDisposed) return;
    const watcher = this.own(vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(this.folder, '*.pickle')));
    this.own(
      watcher.onDidCreate((uri) => void this.recorded(uri)),
      watcher.onDidChange((uri) => void this.recorded(uri)),
    );
  }

  /** A snapshot the kernel extension wrote: load it, make it active, annotate. */
  async recorded(uri: vscode.Uri): Promise<void> {
    const { store, log } = this.services;
    try {
      await this.addCellTexts(uri);
      const { snapshot } = await store.loadFile(uri, { makeActive: true });
      if (snapshot) {
        store.setActive(snapshot.id);
        log.info(`Notebook recording loaded: ${uri.fsPath}`);
      }
    } catch (e) {
      log.warn(`Could not load the notebook recording ${uri.fsPath}: ${errorMessage(e)}`);
      void vscode.window.showWarningMessage(`VRAM Lens: could not load the recording ${notificationText(uri.path.split('/').pop() ?? '')}: ${notificationText(errorMessage(e))}`);
    }
  }

  /** The cell texts beside each snapshot loaded from a file, read once per file. */
  private async readCellTexts(): Promise<void> {
    for (const snapshot of this.services.store.list()) {
      if (snapshot.uri && !this.read.has(snapshot.uri.toString())) await this.addCellTexts(snapshot.uri);
    }
  }

  private async addCellTexts(snapshot: vscode.Uri): Promise<void> {
    this.read.add(snapshot.toString());
    const beside = snapshot.with({ path: snapshot.path + CELL_TEXTS_SUFFIX });
    let bytes: Uint8Array;
    try {
      const stat = await vscode.workspace.fs.stat(beside);
      if (stat.size > MAX_CELL_TEXTS_BYTES) return;
      bytes = await vscode.workspace.fs.readFile(beside);
    } catch {
      return; // no cell texts beside this snapshot
    }
    const cells = parseCellTexts(new TextDecoder().decode(bytes));
    if (cells.length > 0) this.notebooks.addRanTexts(cells.map((c) => c.source));
  }

  /** `Record in Notebook Kernel...`: the load cell into the active notebook, or on the clipboard. */
  private async offerLoadCell(): Promise<void> {
    await vscode.workspace.fs.createDirectory(this.folder);
    const pythonDir = vscode.Uri.joinPath(this.services.context.extensionUri, 'src', 'python').fsPath;
    const cell = loadExtensionCell(pythonDir, this.folder.fsPath);
    const editor = vscode.window.activeNotebookEditor;
    const insert = 'Insert a Cell at the Top';
    const copy = 'Copy to Clipboard';
    const choice = await vscode.window.showInformationMessage(
      'VRAM Lens: run this cell in your notebook once, then put %%vram on the first line of a cell to record it (or %vram start ... %vram stop around several). Each recording annotates the cells at once.',
      { modal: false, detail: cell },
      ...(editor ? [insert] : []),
      copy,
    );
    if (choice === copy) {
      await vscode.env.clipboard.writeText(cell);
      void vscode.window.showInformationMessage('VRAM Lens: the cell that loads %%vram is on the clipboard.');
    } else if (choice === insert && editor) {
      const edit = new vscode.WorkspaceEdit();
      edit.set(editor.notebook.uri, [vscode.NotebookEdit.insertCells(0, [new vscode.NotebookCellData(vscode.NotebookCellKind.Code, cell, 'python')])]);
      await vscode.workspace.applyEdit(edit);
    }
  }
}
