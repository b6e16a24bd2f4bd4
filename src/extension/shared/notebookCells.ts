/**
 * The notebooks whose cells a snapshot's cell frames may be: the open ones first (with the text each
 * cell ran with, caught from the notebook's execution events, so a cell edited since it ran still
 * finds its place), then `.ipynb` files of the workspace read from disk when an open notebook does
 * not have the cell. Texts known to have run (the `.cells.json` our kernel extension writes beside a
 * snapshot) are added as snapshots are loaded. The matching itself is the engine's (`NotebookCellIndex`).
 */
import * as vscode from 'vscode';
import { NotebookCellIndex } from '../../engine/notebook/cellIndex';
import type { NotebookSource } from '../../engine/notebook/cellIndex';
import { parseCellName } from '../../engine/notebook/cellNames';
import type { NotebookCellSource } from '../../engine/notebook/ipynb';
import { parseNotebook } from '../../engine/notebook/ipynb';
import { errorMessage } from '../../engine/base/errors';
import { DisposableOwner } from './disposables';

const EXCLUDE = '**/{node_modules,.git,.venv,venv,.tox,site-packages,dist-packages,__pycache__,.ipynb_checkpoints}/**';
const MAX_NOTEBOOKS = 500;
const MAX_NOTEBOOK_BYTES = 64 * 1024 * 1024;
/** How many texts per cell are kept from its runs. */
const MAX_RUNS_PER_CELL = 20;

/** The cell kinds of VS Code, as the engine names them. */
function kindOf(cell: vscode.NotebookCell): NotebookCellSource['kind'] {
  return cell.kind === vscode.NotebookCellKind.Code ? 'code' : 'markdown';
}

/** A cell of an open notebook, or a cell of a notebook file that is not open. */
export interface CellLocation {
  readonly notebookUri: vscode.Uri;
  /** 0-based index among all the notebook's cells. */
  readonly index: number;
  /** The cell, when its notebook is open. */
  readonly cell?: vscode.NotebookCell;
}

export class NotebookCells extends DisposableOwner {
  private readonly changed = this.own(new vscode.EventEmitter<void>());
  /** Fires when what cell names can match changed: a notebook opened or closed, a cell ran, texts were added. */
  readonly onDidChange = this.changed.event;
  /** The texts each open cell ran with, newest first. */
  private readonly runs = new WeakMap<vscode.NotebookCell, string[]>();
  private readonly knownTexts = new Set<string>();
  /** Notebook files read from disk, by URI, with the `mtime:size` they were read at. */
  private readonly disk = new Map<string, { version: string; cells: NotebookCellSource[] }>();
  /** The workspace's `.ipynb` files, found once until one is created, changed or deleted. */
  private diskList: Promise<NotebookSource[]> | undefined;

  constructor(private readonly log: vscode.LogOutputChannel) {
    super();
    this.own(
      vscode.workspace.onDidOpenNotebookDocument((nb) => {
        this.rememberTexts(nb);
        this.changed.fire();
      }),
      vscode.workspace.onDidCloseNotebookDocument(() => this.changed.fire()),
      vscode.workspace.onDidChangeNotebookDocument((e) => this.onNotebookChange(e)),
    );
    const watcher = this.own(vscode.workspace.createFileSystemWatcher('**/*.ipynb'));
    const forget = () => (this.diskList = undefined);
    this.own(watcher.onDidCreate(forget), watcher.onDidChange(forget), watcher.onDidDelete(forget), vscode.workspace.onDidChangeWorkspaceFolders(forget));
    for (const nb of vscode.workspace.notebookDocuments) this.rememberTexts(nb);
  }

  /** Texts known to have run in some kernel (a snapshot's `.cells.json`). */
  addRanTexts(texts: Iterable<string>): void {
    let added = false;
    for (const t of texts) {
      if (this.knownTexts.has(t)) continue;
      this.knownTexts.add(t);
      added = true;
    }
    if (added) this.changed.fire();
  }

  /**
   * The index that matches `recorded` cell names: open notebooks, and notebook files from disk when
   * some cell name is not matched by an open one.
   */
  async index(recorded: readonly string[]): Promise<NotebookCellIndex> {
    const names = recorded.filter((r) => parseCellName(r) !== undefined);
    const open = this.openSources();
    let index = new NotebookCellIndex(open, this.knownTexts);
    if (names.length === 0 || names.every((n) => index.resolve(n) !== undefined)) return index;
    const openUris = new Set(open.map((o) => o.path));
    this.diskList ??= this.diskSources();
    const fromDisk = (await this.diskList).filter((d) => !openUris.has(d.path));
    if (fromDisk.length > 0) index = new NotebookCellIndex([...open, ...fromDisk], this.knownTexts);
    return index;
  }

  /** Where a matched cell is now: its open cell, else its notebook file and index. */
  locate(notebook: string, index: number): CellLocation {
    const notebookUri = vscode.Uri.parse(notebook);
    const open = vscode.workspace.notebookDocuments.find((nb) => nb.uri.toString() === notebook);
    const cell = open && index < open.cellCount ? open.cellAt(index) : undefined;
    return { notebookUri, index, ...(cell ? { cell } : {}) };
  }

  /** The open notebook cell whose document `document` is. */
  static cellOf(document: vscode.TextDocument): vscode.NotebookCell | undefined {
    if (document.uri.scheme !== 'vscode-notebook-cell') return undefined;
    for (const nb of vscode.workspace.notebookDocuments) {
      for (const cell of nb.getCells()) if (cell.document === document) return cell;
    }
    return undefined;
  }

  private openSources(): NotebookSource[] {
    return vscode.workspace.notebookDocuments
      .filter((nb) => nb.notebookType === 'jupyter-notebook' || nb.uri.path.toLowerCase().endsWith('.ipynb'))
      .map((nb) => ({
        path: nb.uri.toString(),
        cells: nb.getCells().map((cell): NotebookCellSource => {
          const order = cell.executionSummary?.executionOrder;
          const runs = this.runs.get(cell);
          return {
            index: cell.index,
            kind: kindOf(cell),
            source: cell.document.getText(),
            ...(order !== undefined ? { executionCount: order } : {}),
            ...(runs && runs.length > 0 ? { ranSources: runs } : {}),
          };
        }),
      }));
  }

  private async diskSources(): Promise<NotebookSource[]> {
    if (!vscode.workspace.workspaceFolders?.length) return [];
    const uris = await vscode.workspace.findFiles('**/*.ipynb', EXCLUDE, MAX_NOTEBOOKS);
    uris.sort((a, b) => (a.toString() < b.toString() ? -1 : 1));
    const out: NotebookSource[] = [];
    for (const uri of uris) {
      const key = uri.toString();
      try {
        const stat = await vscode.workspace.fs.stat(uri);
        if (stat.size > MAX_NOTEBOOK_BYTES) continue;
        const version = `${stat.mtime}:${stat.size}`;
        let entry = this.disk.get(key);
        if (entry?.version !== version) {
          entry = { version, cells: parseNotebook(new TextDecoder().decode(await vscode.workspace.fs.readFile(uri))) };
          this.disk.set(key, entry);
        }
        out.push({ path: key, cells: entry.cells });
      } catch (e) {
        this.log.info(`Notebook ${uri.fsPath} not read: ${errorMessage(e)}`);
      }
    }
    return out;
  }

  /** A cell that ran (its execution summary changed): its text now is the text it ran with. */
  private onNotebookChange(e: vscode.NotebookDocumentChangeEvent): void {
    let ran = false;
    for (const change of e.cellChanges) {
      if (change.executionSummary === undefined || change.cell.kind !== vscode.NotebookCellKind.Code) continue;
      ran = this.rememberRun(change.cell) || ran;
    }
    if (ran) this.changed.fire();
  }

  private rememberTexts(nb: vscode.NotebookDocument): void {
    for (const cell of nb.getCells()) if (cell.kind === vscode.NotebookCellKind.Code && cell.executionSummary?.executionOrder !== undefined) this.rememberRun(cell);
  }

  /** Remembers the cell's text as one it ran with; true when it is new. */
  private rememberRun(cell: vscode.NotebookCell): boolean {
    const text = cell.document.getText();
    const runs = this.runs.get(cell) ?? [];
    if (runs[0] === text) return false;
    this.runs.set(cell, [text, ...runs.filter((r) => r !== text)].slice(0, MAX_RUNS_PER_CELL));
    return true;
  }
}
