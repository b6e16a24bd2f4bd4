/**
 * Finds the files a snapshot recorded (paths of the machine that ran the program) in this
 * workspace: remembered root mappings, then the longest matching path suffix among the workspace's
 * files, then the same path on this machine. The temporary file a notebook cell ran as is found as
 * that cell of a notebook (`NotebookCells`), with the line offset of its code. Every recorded path is
 * resolved once (all the views of a snapshot share one answer, until a mapping, the workspace
 * folders, the notebooks or the workspace's files change), in batches: one workspace search for all
 * the names, and folders listed from the top down to find files recorded on this machine. Unmapped
 * folders are asked about once each, one question per folder at a time, never about a folder a
 * resolved file already places; a chosen folder must hold at least one of the recorded files.
 * "Not on This Machine" covers the folder and everything under it, and the snapshot it was asked for
 * (no other folder of it is asked about), remembered for the workspace until Forget Path Mappings.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { RootMapping } from '../../engine/paths/pathMapper';
import type { CellTarget } from '../../engine/notebook/cellIndex';
import { isCellName } from '../../engine/notebook/cellNames';
import type { CellPlace, CellPlaces } from '../../engine/paths/places';
import { cellLine, cellPlace } from '../../engine/paths/places';
import type { CellLocation, NotebookCells } from './notebookCells';
import type { ListFolder } from '../../engine/paths/existingFiles';
import { existingFiles } from '../../engine/paths/existingFiles';
import { LocalFiles, applyRootMappings, isInsideAny, mappedFolders, nextFolderToAsk, resolveRecordedPaths } from '../../engine/paths/pathMapper';
import { baseName, normaliseRecordedPath } from '../../engine/paths/recordedPath';
import { filesUnderRoot } from '../../engine/paths/recordedLines';
import { notificationText, plainText } from '../../engine/text/plainText';
import { DisposableOwner } from './disposables';
import { formatCount } from '../../engine/text/format';

const MAPPINGS_KEY = 'vramLens.pathMappings';
const IGNORED_KEY = 'vramLens.ignoredRoots';
/** Snapshots (by `snapshotKey`) whose folders the user said are not on this machine: asked about no more. */
const DECLINED_SNAPSHOTS_KEY = 'vramLens.declinedSnapshots';
const EXCLUDE = '**/{node_modules,.git,.venv,venv,.tox,site-packages,dist-packages,__pycache__}/**';
const MAX_CANDIDATES = 20000;
/** Names searched for in one brace glob; more names than a few globs hold list the files by extension instead. */
const NAMES_PER_GLOB = 200;
const MAX_NAME_GLOBS = 2;
/** Workspace files listed (by extension) when a snapshot names more files than the name globs hold. */
const MAX_LISTED = 200_000;
/** Batches of more recorded paths than this show a progress indicator in the status bar. */
const PROGRESS_FROM = 500;

/** One recorded path's answer: a local file, a notebook cell, or not found. */
type Answer = { readonly local: string } | { readonly cell: ResolvedCell } | undefined;

/** A comparable form of a local file path (case-folded where the file system is). */
export function localKey(fsPath: string): string {
  const normal = path.normalize(fsPath);
  return process.platform === 'win32' || process.platform === 'darwin' ? normal.toLowerCase() : normal;
}

/** A recorded cell file found as a notebook cell. */
export interface ResolvedCell {
  readonly target: CellTarget;
  readonly location: CellLocation;
  /** For naming its lines (the notebook as a local path). */
  readonly place: CellPlace;
}

export interface ResolvedPaths {
  /** Recorded path -> local file path. */
  readonly local: ReadonlyMap<string, string>;
  /** Recorded cell file -> its notebook cell. */
  readonly cells: ReadonlyMap<string, ResolvedCell>;
  /** Recorded paths found nowhere (or in several places). */
  readonly unmapped: readonly string[];
}

/** The cells of resolved paths, for naming lines (`lineLabel`) in views and messages. */
export function cellPlacesOf(resolved: Pick<ResolvedPaths, 'cells'>): CellPlaces {
  const places: Record<string, CellPlace> = {};
  for (const [file, cell] of resolved.cells) places[file] = cell.place;
  return places;
}

/** Where a recorded line is here: a file's line, or a line of a notebook cell. */
export interface LocalLine {
  readonly uri: vscode.Uri;
  /** 1-based line in the document `uri` names (a cell's own document when its notebook is open). */
  readonly line: number;
  /** The notebook cell, for a cell's code. */
  readonly cell?: CellLocation;
}

/** The key of the document a recorded file's lines go on: a file's path, or an open notebook cell's document. */
export function documentKey(document: { readonly uri: vscode.Uri }): string {
  return document.uri.scheme === 'file' ? localKey(document.uri.fsPath) : document.uri.toString();
}

export class PathResolver extends DisposableOwner {
  private readonly changed = this.own(new vscode.EventEmitter<void>());
  /** Fires when a root mapping is added or forgotten. */
  readonly onDidChange = this.changed.event;
  private readonly askedThisSession = new Set<string>();
  /** Snapshots whose question was closed without an answer: not asked about again this session. */
  private readonly dismissedThisSession = new Set<string>();
  /** Each recorded path's answer, asked once; dropped when a mapping, the workspace folders, the notebooks or the files change. */
  private readonly answers = new Map<string, Promise<Answer>>();
  /** The answers that arrived (read without waiting: a snapshot's views ask about the same 100,000 paths). */
  private readonly settled = new Map<string, Answer>();
  /** Bumped when the answers are dropped: a batch that was running then keeps its answers to itself. */
  private generation = 0;
  /** The question being asked about each recorded folder: a second caller waits for the same answer. */
  private readonly asking = new Map<string, Promise<boolean>>();

  constructor(
    private readonly state: vscode.Memento,
    private readonly log: vscode.LogOutputChannel,
    /** The notebooks a recorded cell file may be a cell of. */
    readonly notebooks: NotebookCells,
  ) {
    super();
    const forget = () => {
      this.generation++;
      this.answers.clear();
      this.settled.clear();
    };
    const watcher = this.own(vscode.workspace.createFileSystemWatcher('**/*', false, true, false));
    this.own(
      this.changed.event(forget),
      vscode.workspace.onDidChangeWorkspaceFolders(forget),
      notebooks.onDidChange(() => this.changed.fire()),
      // A file created or deleted may be the one a recorded path names.
      watcher.onDidCreate(forget),
      watcher.onDidDelete(forget),
      // A file opened from outside the workspace (a shipped sample) is a candidate from now on.
      vscode.workspace.onDidOpenTextDocument((d) => {
        if (d.uri.scheme === 'file' && !vscode.workspace.getWorkspaceFolder(d.uri)) forget();
      }),
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
    await this.state.update(DECLINED_SNAPSHOTS_KEY, []);
    this.askedThisSession.clear();
    this.dismissedThisSession.clear();
    this.changed.fire();
  }

  /** Maps every recorded path it can (each path resolved once, the new ones in one batch). */
  async resolve(recorded: readonly string[]): Promise<ResolvedPaths> {
    const unique = [...new Set(recorded)];
    const missing = unique.filter((f) => !this.answers.has(f));
    if (missing.length > 0) {
      const generation = this.generation;
      const batch = this.resolveBatch(missing).then((found) => {
        // Kept only while these answers are still the current ones (no mapping or file changed meanwhile).
        if (this.generation === generation) for (const [f, answer] of found) this.settled.set(f, answer);
        return found;
      });
      // A failed batch is asked again by the next caller.
      void batch.catch(() => {
        for (const f of missing) this.answers.delete(f);
      });
      for (const f of missing) this.answers.set(f, batch.then((found) => found.get(f)));
    }
    const pending = unique.filter((f) => !this.settled.has(f));
    const waited = new Map<string, Answer>();
    if (pending.length > 0) {
      const answers = await Promise.all(pending.map((f) => this.answers.get(f)!));
      pending.forEach((f, i) => waited.set(f, answers[i]));
    }
    const local = new Map<string, string>();
    const cells = new Map<string, ResolvedCell>();
    const unmapped: string[] = [];
    for (const file of unique) {
      const answer = this.settled.has(file) ? this.settled.get(file) : waited.get(file);
      if (answer === undefined) unmapped.push(file);
      else if ('local' in answer) local.set(file, answer.local);
      else cells.set(file, answer.cell);
    }
    return { local, cells, unmapped };
  }

  /** Resolves `recorded` (none resolved before): the workspace's files and notebooks, then this machine's, with progress for large batches. */
  private resolveBatch(recorded: readonly string[]): Promise<Map<string, Answer>> {
    const work = async () => {
      const started = Date.now();
      const candidates = await this.localCandidates(recorded);
      const cellIndex = await this.notebooks.index(recorded);
      const resolutions = resolveRecordedPaths(recorded, new LocalFiles(candidates), this.mappings, cellIndex);
      const found = new Map<string, Answer>();
      const rest: string[] = [];
      for (const [file, resolution] of resolutions) {
        if (resolution.kind === 'mapped') found.set(file, { local: resolution.local });
        else if (resolution.kind === 'cell') found.set(file, { cell: this.cellOf(resolution.cell) });
        // A cell's temporary file may exist here (ipykernel's debugger writes them): it is not the user's source.
        else if (!isCellName(file)) rest.push(file);
        else found.set(file, undefined);
      }
      const here = await existingFiles(rest, listFolder, process.platform === 'win32');
      for (const file of rest) found.set(file, here.has(file) ? { local: normaliseRecordedPath(file) } : undefined);
      if (recorded.length >= PROGRESS_FROM) {
        const mapped = [...found.values()].filter((v) => v !== undefined).length;
        this.log.info(`Resolved ${recorded.length} recorded files in ${Date.now() - started} ms: ${mapped} found.`);
      }
      return found;
    };
    if (recorded.length < PROGRESS_FROM) return work();
    return Promise.resolve(
      vscode.window.withProgress(
        { location: vscode.ProgressLocation.Window, title: `VRAM Lens: finding ${formatCount(recorded.length)} recorded files` },
        work,
      ),
    );
  }

  private cellOf(target: CellTarget): ResolvedCell {
    const location = this.notebooks.locate(target.notebook, target.cell);
    const notebook = location.notebookUri.scheme === 'file' ? location.notebookUri.fsPath : location.notebookUri.path;
    return { target, location, place: cellPlace(target, notebook) };
  }

  /**
   * Where recorded `file`'s 1-based `line` is here: the same line of its local file, or the line of its
   * notebook cell (the cell's document when the notebook is open, else the notebook file).
   */
  async localLine(file: string, line: number): Promise<LocalLine | undefined> {
    const resolved = await this.resolve([file]);
    const cell = resolved.cells.get(file);
    if (cell) {
      const uri = cell.location.cell?.document.uri ?? cell.location.notebookUri;
      return { uri, line: cellLine(cell.place, line), cell: cell.location };
    }
    const local = resolved.local.get(file);
    return local === undefined ? undefined : { uri: vscode.Uri.file(local), line };
  }

  /**
   * The local file of one recorded path (remembered until the mappings, the workspace folders or the
   * notebooks change); a cell's document when it is a cell of an open notebook, else its notebook.
   */
  async localUri(recorded: string): Promise<vscode.Uri | undefined> {
    return (await this.localLine(recorded, 1))?.uri;
  }

  /**
   * Asks where one unmapped recorded folder of a snapshot is (the one with the most files first),
   * unless the snapshot's folders were declined or its question closed, the folder was asked about
   * already, lies in a declined folder, or a resolved file places it. `snapshot` identifies the
   * snapshot (`snapshotKey`). Resolves true when the user chose a folder.
   */
  async askAboutUnmapped(resolved: Pick<ResolvedPaths, 'local' | 'unmapped'>, snapshot?: string): Promise<boolean> {
    if (this.asking.size > 0 || resolved.unmapped.length === 0) return false;
    if (snapshot !== undefined && (this.dismissedThisSession.has(snapshot) || this.declinedSnapshots().includes(snapshot))) return false;
    // A folder a found file places (its file found by suffix, or under a remembered mapping) is not asked about:
    // the files under it that were not found are not in this workspace.
    const placed = [...mappedFolders(resolved.local), ...this.mappings.map((m) => m.from)];
    const next = nextFolderToAsk(resolved.unmapped, { declined: this.declinedFolders(), asked: [...this.askedThisSession], placed });
    if (!next) return false;
    this.askedThisSession.add(next.root);
    return this.askAbout(next.root, next.files, undefined, snapshot);
  }

  private declinedFolders(): string[] {
    return this.state.get<string[]>(IGNORED_KEY, []);
  }

  private declinedSnapshots(): string[] {
    return this.state.get<string[]>(DECLINED_SNAPSHOTS_KEY, []);
  }

  /**
   * Asks where recorded folder `root` is on this machine and remembers the answer. `files` are the
   * recorded files under it; a chosen folder that holds none of them is refused, naming the files
   * expected, and the question is asked again. A folder in one the user declined is not asked about.
   * `snapshot`: the snapshot it is asked for, which "Not on This Machine" covers too. Resolves true
   * when a folder was mapped.
   */
  askAbout(root: string, files: readonly string[], why?: string, snapshot?: string): Promise<boolean> {
    if (isInsideAny(root, this.declinedFolders()) || (snapshot !== undefined && this.declinedSnapshots().includes(snapshot))) return Promise.resolve(false);
    let question = this.asking.get(root);
    if (!question) {
      question = this.ask(root, files, why, snapshot).finally(() => this.asking.delete(root));
      this.asking.set(root, question);
    }
    return question;
  }

  private async ask(root: string, files: readonly string[], why: string | undefined, snapshot: string | undefined): Promise<boolean> {
    const choose = 'Choose Folder...';
    const skip = 'Not on This Machine';
    const count = `${files.length} file${files.length === 1 ? '' : 's'}`;
    const answer = await vscode.window.showInformationMessage(
      `VRAM Lens: ${why ?? ''}where is ${notificationText(root)} on this machine? The snapshot has memory on ${count} under it.`,
      choose,
      skip,
    );
    if (answer === skip) {
      // One answer: this folder and everything under it, and the snapshot's other folders.
      await this.state.update(IGNORED_KEY, [...this.declinedFolders(), root]);
      if (snapshot !== undefined) await this.state.update(DECLINED_SNAPSHOTS_KEY, [...this.declinedSnapshots(), snapshot]);
      this.log.info(`Path mapping: ${root} is not on this machine${snapshot === undefined ? '' : ` (no more questions for ${snapshot})`}; VRAM Lens: Forget Path Mappings asks again.`);
      return false;
    }
    if (answer !== choose) {
      // Closed without an answer: not asked again for this snapshot until the next session.
      if (snapshot !== undefined) this.dismissedThisSession.add(snapshot);
      return false;
    }
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

  /**
   * Workspace files named like a recorded file, and open documents: the names in a brace glob or two,
   * or, for a snapshot that names more files than that, every workspace file with their extensions in
   * one search (filtered by name here).
   */
  private async localCandidates(recorded: readonly string[]): Promise<string[]> {
    const names = [...new Set(recorded.map(baseName))].filter((n) => /^[\w.-]+$/.test(n));
    const found: string[] = vscode.workspace.textDocuments.filter((d) => d.uri.scheme === 'file').map((d) => d.uri.fsPath);
    if (names.length === 0 || !vscode.workspace.workspaceFolders?.length) return found;
    if (names.length <= NAMES_PER_GLOB * MAX_NAME_GLOBS) {
      // A brace list longer than a few hundred names is split: globs have limits of their own.
      for (let i = 0; i < names.length; i += NAMES_PER_GLOB) {
        const glob = `**/{${names.slice(i, i + NAMES_PER_GLOB).join(',')}}`;
        const uris = await vscode.workspace.findFiles(glob, EXCLUDE, MAX_CANDIDATES);
        for (const uri of uris) found.push(uri.fsPath);
      }
      return found;
    }
    const wanted = new Set(names.map((n) => n.toLowerCase()));
    const extensions = [...new Set(names.map((n) => path.extname(n).slice(1)).filter((e) => /^\w+$/.test(e)))];
    const glob = extensions.length === 0 || names.some((n) => path.extname(n) === '') ? '**/*' : `**/*.{${extensions.join(',')}}`;
    const uris = await vscode.workspace.findFiles(glob, EXCLUDE, MAX_LISTED);
    if (uris.length >= MAX_LISTED) this.log.warn(`Path mapping: the workspace has more than ${MAX_LISTED} files named ${glob}; only the first are matched.`);
    for (const uri of uris) if (wanted.has(path.basename(uri.fsPath).toLowerCase())) found.push(uri.fsPath);
    return found;
  }
}

/** A local folder's entries for `existingFiles` (symbolic links followed); undefined when it cannot be read. */
const listFolder: ListFolder = async (folder) => {
  let entries;
  try {
    entries = await fs.readdir(folder, { withFileTypes: true });
  } catch {
    return undefined; // absent or unreadable: nothing under it can be opened
  }
  const out = new Map<string, 'file' | 'folder' | 'other'>();
  for (const e of entries) {
    let kind: 'file' | 'folder' | 'other' = e.isFile() ? 'file' : e.isDirectory() ? 'folder' : 'other';
    if (e.isSymbolicLink()) {
      const target = await fs.stat(path.join(folder, e.name)).catch(() => undefined);
      kind = target?.isFile() ? 'file' : target?.isDirectory() ? 'folder' : 'other';
    }
    out.set(e.name, kind);
  }
  return out;
};

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
