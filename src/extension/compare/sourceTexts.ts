/**
 * The source lines each loaded snapshot's figures point at, as they were when the snapshot was
 * loaded (for a run profiled before an edit, that is the code that ran): read here, kept by the
 * snapshot (`LoadedSnapshot.sourceTexts`). Comparing two runs of an edited file pairs moved lines by
 * this text; the advisor reads the code that ran.
 */
import * as vscode from 'vscode';
import type { LineTextProvider } from '../../engine/paths/sourceText';
import type { LoadedSnapshot, SourceLines } from '../loadedSnapshot';
import type { SnapshotStore } from '../snapshotStore';
import type { PathResolver } from '../paths/pathResolver';
import { errorMessage } from '../../engine/base/errors';
import { DisposableOwner } from '../disposables';

const MAX_FILE_BYTES = 4 * 1024 * 1024;

export class SourceTexts extends DisposableOwner {
  constructor(
    private readonly store: SnapshotStore,
    private readonly files: PathResolver,
    private readonly log: vscode.LogOutputChannel,
  ) {
    super();
    this.own(store.onDidChange(() => this.captureNew()));
    this.captureNew();
  }

  /** The texts of a snapshot's files as a line lookup (captured at load; captured now if it was not). */
  async provider(snapshotId: string): Promise<LineTextProvider> {
    const texts = await this.texts(snapshotId);
    return (file, line) => texts.get(file)?.[line - 1];
  }

  /** The texts of a snapshot's files (file as recorded -> lines), captured at load and kept by the snapshot. */
  texts(snapshotId: string): Promise<SourceLines> {
    const snapshot = this.store.get(snapshotId);
    return snapshot ? this.capture(snapshot) : Promise.resolve(new Map());
  }

  /** Captures the texts of every snapshot just loaded (the snapshot keeps them once; closing it drops them). */
  private captureNew(): void {
    for (const snapshot of this.store.list()) void this.capture(snapshot);
  }

  private capture(snapshot: LoadedSnapshot): Promise<SourceLines> {
    return snapshot.sourceTexts(() =>
      this.read(snapshot).catch((e: unknown) => {
        this.log.warn(`Could not read the sources of a snapshot: ${errorMessage(e)}`);
        return new Map<string, string[]>();
      }),
    );
  }

  private async read(snapshot: LoadedSnapshot): Promise<Map<string, string[]>> {
    const texts = new Map<string, string[]>();
    const files = new Set<string>();
    for (const d of snapshot.info.devices) {
      for (const l of await snapshot.lines(d.device)) files.add(l.file);
    }
    // One resolution for all the files (a workspace search per batch of names), not one per file.
    const { local } = await this.files.resolve([...files]);
    for (const [file, localPath] of local) {
      const uri = vscode.Uri.file(localPath);
      const open = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
      if (open) {
        texts.set(file, open.getText().split(/\r?\n/));
        continue;
      }
      const stat = await vscode.workspace.fs.stat(uri);
      if (stat.size > MAX_FILE_BYTES) continue;
      texts.set(file, new TextDecoder().decode(await vscode.workspace.fs.readFile(uri)).split(/\r?\n/));
    }
    return texts;
  }
}
