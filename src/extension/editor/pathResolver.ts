/**
 * Finds the files a snapshot recorded (paths of the machine that ran the program) in this
 * workspace: remembered root mappings, then the longest matching path suffix among the workspace's
 * files, then the same path on this machine. Unmapped folders are asked about once each.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { RootMapping } from '../../core/paths/pathMapper';
import { LocalFiles, resolveRecordedPaths, unmappedRoots } from '../../core/paths/pathMapper';
import { baseName, isWindowsPath, normaliseRecordedPath } from '../../core/paths/recordedPath';
import { notificationText } from '../../core/text/plainText';

const MAPPINGS_KEY = 'vramLens.pathMappings';
const IGNORED_KEY = 'vramLens.ignoredRoots';
const EXCLUDE = '**/{node_modules,.git,.venv,venv,.tox,site-packages,dist-packages,__pycache__}/**';
const MAX_CANDIDATES = 20000;

/** A comparable form of a local file path (case-folded where the file system is). */
export function localKey(fsPath: string): string {
  const normal = path.normalize(fsPath);
  return process.platform === 'win32' || process.platform === 'darwin' ? normal.toLowerCase() : normal;
}

export interface ResolvedPaths {
  /** Recorded path -> local file path. */
  readonly local: ReadonlyMap<string, string>;
  /** Recorded paths found nowhere (or in several places). */
  readonly unmapped: readonly string[];
}

export class PathResolver implements vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  /** Fires when a root mapping is added or forgotten. */
  readonly onDidChange = this.changed.event;
  private readonly askedThisSession = new Set<string>();
  /** `localUri` answers, dropped when a mapping or the workspace folders change. */
  private readonly uris = new Map<string, Promise<vscode.Uri | undefined>>();
  private readonly subscriptions: vscode.Disposable[];
  private asking = false;

  constructor(
    private readonly state: vscode.Memento,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.subscriptions = [
      this.changed,
      this.changed.event(() => this.uris.clear()),
      vscode.workspace.onDidChangeWorkspaceFolders(() => this.uris.clear()),
    ];
  }

  get mappings(): readonly RootMapping[] {
    return this.state.get<RootMapping[]>(MAPPINGS_KEY, []);
  }

  async addMapping(mapping: RootMapping): Promise<void> {
    const others = this.mappings.filter((m) => m.from !== mapping.from);
    await this.state.update(MAPPINGS_KEY, [...others, mapping]);
    this.log.info(`Path mapping: ${mapping.from} -> ${mapping.to}`);
    this.changed.fire();
  }

  async forgetMappings(): Promise<void> {
    await this.state.update(MAPPINGS_KEY, []);
    await this.state.update(IGNORED_KEY, []);
    this.askedThisSession.clear();
    this.changed.fire();
  }

  /** Maps every recorded path it can. */
  async resolve(recorded: readonly string[]): Promise<ResolvedPaths> {
    const candidates = await this.localCandidates(recorded);
    const resolutions = resolveRecordedPaths(recorded, new LocalFiles(candidates), this.mappings);
    const local = new Map<string, string>();
    const unmapped: string[] = [];
    for (const [file, resolution] of resolutions) {
      if (resolution.kind === 'mapped') local.set(file, resolution.local);
      else if (await this.existsHere(file)) local.set(file, normaliseRecordedPath(file));
      else unmapped.push(file);
    }
    return { local, unmapped };
  }

  /** The local file of one recorded path (remembered until the mappings or workspace folders change). */
  localUri(recorded: string): Promise<vscode.Uri | undefined> {
    let found = this.uris.get(recorded);
    if (!found) {
      found = this.resolve([recorded]).then((r) => {
        const local = r.local.get(recorded);
        return local === undefined ? undefined : vscode.Uri.file(local);
      });
      this.uris.set(recorded, found);
    }
    return found;
  }

  /**
   * Asks where one unmapped recorded folder is (the one with the most files first), unless it was
   * asked about already. Resolves true when the user chose a folder.
   */
  async askAboutUnmapped(unmapped: readonly string[]): Promise<boolean> {
    if (this.asking) return false;
    const ignored = new Set(this.state.get<string[]>(IGNORED_KEY, []));
    const roots = unmappedRoots(unmapped)
      .filter((r) => !ignored.has(r.root) && !this.askedThisSession.has(r.root))
      .sort((a, b) => b.files.length - a.files.length);
    const next = roots[0];
    if (!next) return false;
    this.askedThisSession.add(next.root);
    this.asking = true;
    try {
      return await this.askAbout(next.root, next.files.length);
    } finally {
      this.asking = false;
    }
  }

  /** Asks where recorded folder `root` is on this machine and remembers the answer. */
  async askAbout(root: string, files: number): Promise<boolean> {
    const choose = 'Choose Folder...';
    const skip = 'Not on This Machine';
    const answer = await vscode.window.showInformationMessage(
      `VRAM Lens: where is ${notificationText(root)} on this machine? The snapshot has memory on ${files} file${files === 1 ? '' : 's'} under it.`,
      choose,
      skip,
    );
    if (answer === skip) {
      await this.state.update(IGNORED_KEY, [...this.state.get<string[]>(IGNORED_KEY, []), root]);
      return false;
    }
    if (answer !== choose) return false;
    const picked = await vscode.window.showOpenDialog({
      canSelectFiles: false,
      canSelectFolders: true,
      canSelectMany: false,
      defaultUri: vscode.workspace.workspaceFolders?.[0]?.uri,
      openLabel: 'Use This Folder',
      title: `Where is ${root} on this machine?`,
    });
    if (!picked?.[0]) return false;
    await this.addMapping({ from: root, to: picked[0].fsPath });
    return true;
  }

  /** Workspace files named like a recorded file, and open documents. */
  private async localCandidates(recorded: readonly string[]): Promise<string[]> {
    const names = [...new Set(recorded.map(baseName))].filter((n) => /^[\w.-]+$/.test(n));
    const found: string[] = vscode.workspace.textDocuments.filter((d) => d.uri.scheme === 'file').map((d) => d.uri.fsPath);
    if (names.length > 0 && vscode.workspace.workspaceFolders?.length) {
      // A brace list longer than a few hundred names is split: globs have limits of their own.
      for (let i = 0; i < names.length; i += 200) {
        const glob = `**/{${names.slice(i, i + 200).join(',')}}`;
        const uris = await vscode.workspace.findFiles(glob, EXCLUDE, MAX_CANDIDATES);
        for (const uri of uris) found.push(uri.fsPath);
      }
    }
    return found;
  }

  /** The recorded path names a file on this machine (a snapshot recorded here). */
  private async existsHere(recorded: string): Promise<boolean> {
    const native = process.platform === 'win32' ? isWindowsPath(recorded) : recorded.startsWith('/');
    if (!native) return false;
    try {
      const stat = await vscode.workspace.fs.stat(vscode.Uri.file(normaliseRecordedPath(recorded)));
      return (stat.type & vscode.FileType.File) !== 0;
    } catch {
      return false;
    }
  }

  dispose(): void {
    for (const d of this.subscriptions) d.dispose();
  }
}
