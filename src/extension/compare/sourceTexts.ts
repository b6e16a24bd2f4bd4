/**
 * The source lines each loaded snapshot's figures point at, as they were when the snapshot was
 * loaded (for a run profiled before an edit, that is the code that ran). Comparing two runs of an
 * edited file pairs moved lines by this text.
 */
import * as vscode from 'vscode';
import type { LineTextProvider } from '../../core/sourceText';
import type { SnapshotStore } from '../snapshotStore';
import type { PathResolver } from '../paths/pathResolver';
import { errorMessage } from '../../core/errors';

const MAX_FILE_BYTES = 4 * 1024 * 1024;

export class SourceTexts implements vscode.Disposable {
  private readonly captured = new Map<string, Promise<Map<string, string[]>>>();
  private readonly subscription: vscode.Disposable;

  constructor(
    private readonly store: SnapshotStore,
    private readonly files: PathResolver,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.subscription = store.onDidChange(() => this.sync());
    this.sync();
  }

  /** The texts of a snapshot's files (captured at load; captured now if it was not). */
  async provider(snapshotId: string): Promise<LineTextProvider> {
    const texts = (await this.captured.get(snapshotId)) ?? (await this.capture(snapshotId));
    return (file, line) => texts.get(file)?.[line - 1];
  }

  /** The texts of a snapshot's files (file as recorded -> lines), captured at load. */
  async texts(snapshotId: string): Promise<ReadonlyMap<string, readonly string[]>> {
    return (await this.captured.get(snapshotId)) ?? (await this.capture(snapshotId));
  }

  private sync(): void {
    const loaded = new Set(this.store.list().map((s) => s.id));
    for (const id of loaded) if (!this.captured.has(id)) void this.capture(id);
    for (const id of [...this.captured.keys()]) if (!loaded.has(id)) this.captured.delete(id);
  }

  private capture(snapshotId: string): Promise<Map<string, string[]>> {
    const work = this.read(snapshotId).catch((e: unknown) => {
      this.log.warn(`Could not read the sources of a snapshot: ${errorMessage(e)}`);
      return new Map<string, string[]>();
    });
    this.captured.set(snapshotId, work);
    return work;
  }

  private async read(snapshotId: string): Promise<Map<string, string[]>> {
    const snapshot = this.store.get(snapshotId);
    const texts = new Map<string, string[]>();
    if (!snapshot) return texts;
    const files = new Set<string>();
    for (const d of snapshot.info.devices) {
      for (const l of await snapshot.lines(d.device)) files.add(l.file);
    }
    for (const file of files) {
      const uri = await this.files.localUri(file);
      if (!uri) continue;
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

  dispose(): void {
    this.subscription.dispose();
    this.captured.clear();
  }
}
