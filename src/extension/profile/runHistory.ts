/**
 * The profiled runs of this machine, persisted in globalState, with their files under
 * globalStorage/runs/<id>/. Runs older than `vramLens.profile.keepRunsDays` are deleted at activation.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { RunRecord } from '../../runtime/profile/history';
import { addRun, partitionByAge, readRuns } from '../../runtime/profile/history';
import { RUNS_KEY as KEY } from '../shared/recentRuns';

const DAY_MS = 24 * 60 * 60 * 1000;

export class RunHistory implements vscode.Disposable {
  private runs: RunRecord[];
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChange = this.changed.event;

  constructor(
    private readonly state: vscode.Memento,
    /** globalStorage/runs */
    readonly root: string,
  ) {
    this.runs = readRuns(state.get<unknown>(KEY));
  }

  list(): readonly RunRecord[] {
    return this.runs;
  }

  get(id: string): RunRecord | undefined {
    return this.runs.find((r) => r.id === id);
  }

  folderFor(id: string): string {
    return path.join(this.root, id);
  }

  async put(run: RunRecord): Promise<void> {
    this.runs = addRun(this.runs, run);
    await this.state.update(KEY, this.runs);
    this.changed.fire();
  }

  async delete(id: string): Promise<void> {
    const run = this.get(id);
    this.runs = this.runs.filter((r) => r.id !== id);
    await this.state.update(KEY, this.runs);
    this.changed.fire();
    if (run) await this.removeFolder(run.folder);
  }

  /** Deletes runs older than `keepDays`, and leftover run folders (from a crash) that no run names. */
  async prune(nowMs: number, keepDays: number): Promise<number> {
    const { keep, expired } = partitionByAge(this.runs, nowMs, keepDays);
    if (expired.length > 0) {
      this.runs = keep;
      await this.state.update(KEY, this.runs);
      this.changed.fire();
    }
    for (const run of expired) await this.removeFolder(run.folder);
    if (keepDays > 0) {
      const known = new Set(this.runs.map((r) => path.resolve(r.folder)));
      let entries: string[] = [];
      try {
        entries = await fs.readdir(this.root);
      } catch {
        return expired.length;
      }
      for (const name of entries) {
        const folder = path.resolve(this.root, name);
        if (known.has(folder)) continue;
        const stat = await fs.stat(folder).catch(() => undefined);
        if (stat?.isDirectory() && stat.mtimeMs < nowMs - keepDays * DAY_MS) await this.removeFolder(folder);
      }
    }
    return expired.length;
  }

  private async removeFolder(folder: string): Promise<void> {
    // Only ever inside our own storage folder.
    const resolved = path.resolve(folder);
    if (!resolved.startsWith(path.resolve(this.root) + path.sep)) return;
    await fs.rm(resolved, { recursive: true, force: true });
  }

  dispose(): void {
    this.changed.dispose();
  }
}
