/**
 * The source files each loaded snapshot's figures point at, as they were when the snapshot was
 * loaded (for a run profiled before an edit, that is the code that ran): read here, held by the
 * snapshot once (`LoadedSnapshot.sourceTexts`), which sends them to its worker once. Comparing two
 * runs of an edited file pairs moved lines by this text; the advisor reads the code that ran. Files
 * that could not be found at load are read when the path mapping changes (an update: only they go to
 * the worker).
 */
import * as vscode from 'vscode';
import type { LineTextProvider } from '../../engine/paths/sourceText';
import type { LoadedSnapshot, SourceFiles, SourceReading } from './loadedSnapshot';
import type { SnapshotStore } from './snapshotStore';
import type { PathResolver } from './pathResolver';
import { cellPlacesOf } from './pathResolver';
import type { CellPlaces } from '../../engine/paths/places';
import { errorMessage } from '../../engine/base/errors';
import { cellLines } from '../../engine/notebook/cellLines';
import { DisposableOwner } from './disposables';

const MAX_FILE_BYTES = 4 * 1024 * 1024;

export class SourceTexts extends DisposableOwner {
  constructor(
    private readonly store: SnapshotStore,
    private readonly files: PathResolver,
    private readonly log: vscode.LogOutputChannel,
  ) {
    super();
    this.own(store.onDidChange(() => this.captureNew()));
    this.own(files.onDidChange(() => this.readMissing()));
    this.captureNew();
  }

  /** The texts of a snapshot's files as a line lookup (captured at load; captured now if it was not). */
  async provider(snapshotId: string): Promise<LineTextProvider> {
    const snapshot = this.store.get(snapshotId);
    if (!snapshot) return () => undefined;
    await this.capture(snapshot);
    return snapshot.lineText();
  }

  /** The texts of a snapshot's files (file as recorded -> text), captured at load and held by the snapshot. */
  texts(snapshotId: string): Promise<SourceFiles> {
    const snapshot = this.store.get(snapshotId);
    return snapshot ? this.capture(snapshot) : Promise.resolve(new Map());
  }

  /**
   * The notebook cells of the snapshot's recorded cell files whose texts are held (the advisor names their
   * lines by cell: the Problems panel and the summary ask with the same cells, and share the findings).
   */
  async cellPlaces(snapshotId: string): Promise<CellPlaces> {
    const texts = await this.texts(snapshotId);
    return cellPlacesOf(await this.files.resolve([...texts.keys()]));
  }

  /** Captures the texts of every snapshot just loaded (the snapshot keeps them once; closing it drops them). */
  private captureNew(): void {
    for (const snapshot of this.store.list()) void this.capture(snapshot);
  }

  /** After the path mapping changed: reads the files of each captured snapshot that were not found before. */
  private readMissing(): void {
    for (const snapshot of this.store.list()) {
      if (!snapshot.held().sources) continue;
      void snapshot.updateSourceTexts((held) => this.reading(snapshot, held));
    }
  }

  private capture(snapshot: LoadedSnapshot): Promise<SourceFiles> {
    return snapshot.sourceTexts(() => this.reading(snapshot, new Map()));
  }

  private reading(snapshot: LoadedSnapshot, held: SourceFiles): Promise<SourceReading> {
    return this.read(snapshot, held).catch((e: unknown) => {
      this.log.warn(`Could not read the sources of a snapshot: ${errorMessage(e)}`);
      return new Map<string, string>();
    });
  }

  /** The texts of the snapshot's files not in `held`. */
  private async read(snapshot: LoadedSnapshot, held: SourceFiles): Promise<Map<string, string>> {
    const texts = new Map<string, string>();
    const files = new Set<string>();
    for (const d of snapshot.info.devices) {
      for (const l of await snapshot.lines(d.device)) if (!held.has(l.file)) files.add(l.file);
    }
    if (files.size === 0) return texts;
    // One resolution for all the files (a workspace search per batch of names), not one per file.
    const { local, cells } = await this.files.resolve([...files]);
    // A notebook cell's code as it ran, numbered as recorded (from its first non-blank line).
    for (const [file, cell] of cells) texts.set(file, cellLines(cell.target.ranSource).slice(cell.target.lineOffset).join('\n'));
    for (const [file, localPath] of local) {
      const uri = vscode.Uri.file(localPath);
      const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
      if (open) {
        texts.set(file, open.getText());
        continue;
      }
      const stat = await vscode.workspace.fs.stat(uri);
      if (stat.size > MAX_FILE_BYTES) continue;
      texts.set(file, new TextDecoder().decode(await vscode.workspace.fs.readFile(uri)));
    }
    return texts;
  }
}
