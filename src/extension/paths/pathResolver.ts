/**
 * Finds the files a snapshot recorded (paths of the machine that ran the program) in this
 * workspace: remembered root mappings, then the longest matching path suffix among the workspace's
 * files, then the same path on this machine. Unmapped folders are asked about once each, one
 * question per folder at a time, and a chosen folder must hold at least one of the recorded files.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { RootMapping } from '../../engine/paths/pathMapper';
import { LocalFiles, applyRootMappings, resolveRecordedPaths, unmappedRoots } from '../../engine/paths/pathMapper';
import { baseName, isWindowsPath, normaliseRecordedPath } from '../../engine/paths/recordedPath';
import { filesUnderRoot } from '../../engine/paths/recordedLines';
import { notificationText, plainText } from '../../engine/text/plainText';
import { DisposableOwner } from '../disposables';

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

export class PathResolver extends DisposableOwner {
  private readonly changed = this.own(new vscode.EventEmitter<void>());
  /** Fires when a root mapping is added or forgotten. */
  readonly onDidChange = this.changed.event;
  private readonly askedThisSession = new Set<string>();
  /** `localUri` answers, dropped when a mapping or the workspace folders change. */
  private readonly uris = new Map<string, Promise<vscode.Uri | undefined>>();
  /** The question being asked about each recorded folder: a second caller waits for the same answer. */
  private readonly asking = new Map<string, Promise<boolean>>();

  constructor(
    private readonly state: vscode.Memento,
    private readonly log: vscode.LogOutputChannel,
  ) {
    super();
    this.own(
      this.changed.event(() => this.uris.clear()),
      vscode.workspace.onDidChangeWorkspaceFolders(() => this.uris.clear()),
    );
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
    if (this.asking.size > 0) return false;
    const ignored = new Set(this.state.get<string[]>(IGNORED_KEY, []));
    const roots = unmappedRoots(unmapped)
      .filter((r) => !ignored.has(r.root) && !this.askedThisSession.has(r.root))
      .sort((a, b) => b.files.length - a.files.length);
    const next = roots[0];
    if (!next) return false;
    this.askedThisSession.add(next.root);
    return this.askAbout(next.root, next.files);
  }

  /**
   * Asks where recorded folder `root` is on this machine and remembers the answer. `files` are the
   * recorded files under it; a chosen folder that holds none of them is refused, naming the files
   * expected, and the question is asked again. Resolves true when a folder was mapped.
   */
  askAbout(root: string, files: readonly string[], why?: string): Promise<boolean> {
    let question = this.asking.get(root);
    if (!question) {
      question = this.ask(root, files, why).finally(() => this.asking.delete(root));
      this.asking.set(root, question);
    }
    return question;
  }

  private async ask(root: string, files: readonly string[], why: string | undefined): Promise<boolean> {
    const choose = 'Choose Folder...';
    const skip = 'Not on This Machine';
    const count = `${files.length} file${files.length === 1 ? '' : 's'}`;
    const answer = await vscode.window.showInformationMessage(
      `VRAM Lens: ${why ?? ''}where is ${notificationText(root)} on this machine? The snapshot has memory on ${count} under it.`,
      choose,
      skip,
    );
    if (answer === skip) {
      await this.state.update(IGNORED_KEY, [...this.state.get<string[]>(IGNORED_KEY, []), root]);
      return false;
    }
    if (answer !== choose) return false;
    let defaultUri = vscode.workspace.workspaceFolders?.[0]?.uri;
    for (;;) {
      const picked = await vscode.window.showOpenDialog({
        canSelectFiles: false,
        canSelectFolders: true,
        canSelectMany: false,
        defaultUri,
        openLabel: 'Use This Folder',
        title: `Where is ${plainText(root)} on this machine?`,
      });
      const folder = picked?.[0];
      if (!folder) return false;
      const mapping: RootMapping = { from: root, to: folder.fsPath };
      if (await this.holdsAny(mapping, files)) {
        await this.addMapping(mapping);
        return true;
      }
      this.log.warn(`Path mapping refused: ${folder.fsPath} holds none of the files recorded under ${root}.`);
      const again = 'Choose Another Folder...';
      const retry = await vscode.window.showWarningMessage(
        `VRAM Lens: ${notificationText(folder.fsPath)} holds none of the files recorded under ${notificationText(root)}; expected ${expectedFiles(root, files)}.`,
        again,
      );
      if (retry !== again) return false;
      defaultUri = folder;
    }
  }

  /** Whether `mapping` finds at least one of `files` on this machine. */
  private async holdsAny(mapping: RootMapping, files: readonly string[]): Promise<boolean> {
    for (const file of files.slice(0, 200)) {
      const local = applyRootMappings(file, [mapping]);
      if (local !== undefined && (await isFile(vscode.Uri.file(local)))) return true;
    }
    return false;
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
    return isFile(vscode.Uri.file(normaliseRecordedPath(recorded)));
  }

}

async function isFile(uri: vscode.Uri): Promise<boolean> {
  try {
    return ((await vscode.workspace.fs.stat(uri)).type & vscode.FileType.File) !== 0;
  } catch {
    return false; // absent or unreadable: not a file we can open
  }
}

/** The first few recorded files under `root`, relative to it, for a message. */
function expectedFiles(root: string, files: readonly string[]): string {
  const { names, more } = filesUnderRoot(root, files);
  return `${names.map((name) => notificationText(name)).join(', ')}${more > 0 ? ` and ${String(more)} more` : ''}`;
}
