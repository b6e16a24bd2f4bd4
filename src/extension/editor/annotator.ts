/**
 * Draws the active snapshot's figures on the visible editors whose files it recorded, and keeps
 * them there: follows edits (lines shift, changed lines turn stale), redraws on editor, snapshot and
 * settings changes (debounced; a document whose version did not change is not redrawn).
 */
import * as vscode from 'vscode';
import type { LineFigures } from '../../engine/analysis/lines';
import type { FileAnnotations, LineAnnotation, Placement } from '../../engine/annotate/lineAnnotations';
import { buildFileAnnotations } from '../../engine/annotate/lineAnnotations';
import { GONE, LineTracker, isLineStale } from '../../engine/annotate/lineTracker';
import { lineEditsOf } from '../shared/lineEdits';
import type { Relocation, Relocator } from '../../engine/annotate/relocation';
import { ranTextRelocator, relocator } from '../../engine/annotate/relocation';
import { cellLines } from '../../engine/notebook/cellLines';
import type { CompareMode } from '../shared/compareMode';
import type { LoadedSnapshot, SnapshotStore } from '../shared/snapshotStore';
import { DisposableOwner } from '../shared/disposables';
import { AnnotationDecorations } from './decorations';
import type { PathResolver } from '../shared/pathResolver';
import { cellPlacesOf, documentKey, localKey } from '../shared/pathResolver';
import type { CellPlaces } from '../../engine/paths/places';
import type { EditorSettings } from '../shared/editorSettings';
import { affectsEditorSettings, readEditorSettings } from '../shared/editorSettings';

/** The files of one recorded snapshot as they map onto this machine. */
export interface MappedFile {
  /** Local path (for a notebook cell, its notebook's). */
  readonly local: string;
  /** The recorded paths that map here (usually one). */
  readonly recorded: readonly string[];
  readonly lines: readonly LineFigures[];
  /** A notebook cell's code: the text it ran with, and the blank lines IPython dropped from its top. */
  readonly cell?: { readonly ranLines: readonly string[]; readonly lineOffset: number };
}

/** What is being annotated: one snapshot, one device. */
export interface AnnotationState {
  readonly snapshot: LoadedSnapshot;
  readonly device: number;
  readonly peakBytes: number;
  /** By `documentKey` of the document the lines go on (a local file, or an open notebook cell). */
  readonly files: ReadonlyMap<string, MappedFile>;
  readonly unmapped: readonly string[];
  /** Per line id: the function its frames name ('' when none), for stale-source relocation. */
  readonly functionNames: readonly string[];
  /** The notebook cells of recorded cell files (open or not), for naming their lines. */
  readonly places: CellPlaces;
}

interface Tracking {
  readonly tracker: LineTracker;
  readonly originalTexts: readonly string[];
  /** Relocates recorded lines against the text as first annotated (made on first use). */
  relocator?: Relocator;
  /** For a notebook cell: lines of the code that ran, onto the text as first annotated. */
  cellRelocator?: (ranLine: number) => Relocation;
}

interface CacheEntry {
  readonly key: string;
  readonly annotations: FileAnnotations;
  readonly byLine: ReadonlyMap<number, LineAnnotation>;
}

const RENDER_DELAY_MS = 40;
/** The scheme of a notebook cell's document. */
const CELL_SCHEME = 'vscode-notebook-cell';
const EDIT_DELAY_MS = 120;

export class Annotator extends DisposableOwner {
  private readonly decorations: AnnotationDecorations;
  private readonly changed = this.own(new vscode.EventEmitter<void>());
  /** Fires after the annotations changed (snapshot, mapping, settings, shown or hidden). */
  readonly onDidChange = this.changed.event;

  private current: AnnotationState | undefined;
  private hidden = false;
  private generation = 0;
  /** Bumped whenever what any document shows may have changed (not by edits: those bump its version). */
  private revision = 0;
  private settings: EditorSettings = readEditorSettings();
  private trackedSnapshot: string | undefined;
  private readonly tracking = new Map<string, Tracking>();
  private readonly cache = new Map<string, CacheEntry>();
  private rendered = new WeakMap<vscode.TextEditor, string>();
  private renderTimer: NodeJS.Timeout | undefined;
  private pending: Promise<void> = Promise.resolve();

  constructor(
    private readonly store: SnapshotStore,
    private readonly resolver: PathResolver,
    /** While compare mode draws its deltas, the annotations step aside. */
    private readonly compareMode: Pick<CompareMode, 'active' | 'onDidChange'>,
    private readonly log: vscode.LogOutputChannel,
    extensionUri: vscode.Uri,
  ) {
    super();
    this.decorations = this.own(new AnnotationDecorations(extensionUri, this.settings.lineBar));
    this.own(
      vscode.window.onDidChangeActiveColorTheme((theme) => this.redecorate(theme.kind)),
      compareMode.onDidChange(() => this.invalidate()),
      store.onDidChange(() => this.refresh()),
      resolver.onDidChange(() => this.refresh()),
      vscode.window.onDidChangeVisibleTextEditors(() => this.scheduleRender(RENDER_DELAY_MS)),
      vscode.workspace.onDidChangeTextDocument((e) => this.onEdit(e)),
      vscode.workspace.onDidCloseTextDocument((d) => this.onClose(d)),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (!affectsEditorSettings(e)) return;
        this.settings = readEditorSettings();
        this.redecorate(vscode.window.activeColorTheme.kind);
        this.invalidate();
      }),
    );
    this.refresh();
  }

  /** What the editors show now: nothing while hidden or while compare mode is on. */
  get state(): AnnotationState | undefined {
    return this.hidden || this.compareMode.active ? undefined : this.current;
  }

  /** The user cleared the annotations (Clear Annotations) and has not shown them again. */
  get isHidden(): boolean {
    return this.hidden;
  }

  get editorSettings(): EditorSettings {
    return this.settings;
  }

  /** Removes the annotations until a snapshot is opened, switched to or shown again. */
  hide(): void {
    this.hidden = true;
    this.invalidate();
  }

  show(): void {
    if (!this.hidden) return;
    this.hidden = false;
    this.invalidate();
  }

  /** Resolves once the pending rebuild and redraw are done (tests wait on it). */
  async settled(): Promise<void> {
    let seen: Promise<void> | undefined;
    while (seen !== this.pending) {
      seen = this.pending;
      await seen;
    }
    if (this.renderTimer) {
      clearTimeout(this.renderTimer);
      this.renderTimer = undefined;
      this.render();
    }
  }

  /** The mapped file `document` is (a file, or a notebook cell's code), under the active snapshot. */
  fileOf(document: vscode.TextDocument): MappedFile | undefined {
    const state = this.state;
    if (!state || (document.uri.scheme !== 'file' && document.uri.scheme !== CELL_SCHEME)) return undefined;
    return state.files.get(documentKey(document));
  }

  /** What `document` shows now (cached by document version). */
  annotationsFor(document: vscode.TextDocument): FileAnnotations | undefined {
    return this.entryFor(document)?.annotations;
  }

  annotationAt(document: vscode.TextDocument, line: number): LineAnnotation | undefined {
    return this.entryFor(document)?.byLine.get(line);
  }

  /** Rebuilds the mapping of the active snapshot's files, then redraws. */
  refresh(): void {
    const generation = ++this.generation;
    this.pending = this.pending.then(() => this.rebuild(generation)).catch((e: unknown) => this.log.error('Annotating failed:', e));
  }

  private async rebuild(generation: number): Promise<void> {
    if (generation !== this.generation) return;
    const snapshot = this.store.active;
    if (snapshot?.id !== this.trackedSnapshot) {
      this.tracking.clear();
      this.trackedSnapshot = snapshot?.id;
      if (snapshot) this.hidden = false;
    }
    let next: AnnotationState | undefined;
    if (snapshot) {
      const device = snapshot.device;
      const lines = await this.store.lines(snapshot);
      const byRecorded = new Map<string, LineFigures[]>();
      for (const l of lines) {
        let list = byRecorded.get(l.file);
        if (!list) byRecorded.set(l.file, (list = []));
        list.push(l);
      }
      const functionNames = await snapshot.lineFunctions().catch((e: unknown) => {
        this.log.warn('No function names for the recorded lines:', e);
        return [] as readonly string[];
      });
      const resolved = await this.resolver.resolve([...byRecorded.keys()]);
      if (generation !== this.generation) return;
      const files = new Map<string, MappedFile>();
      for (const [recorded, local] of resolved.local) {
        const key = localKey(local);
        const existing = files.get(key);
        const figures = byRecorded.get(recorded) ?? [];
        files.set(
          key,
          existing
            ? { local, recorded: [...existing.recorded, recorded], lines: [...existing.lines, ...figures] }
            : { local, recorded: [recorded], lines: figures },
        );
      }
      // A notebook cell's code goes on the cell's document while its notebook is open.
      for (const [recorded, found] of resolved.cells) {
        const cell = found.location.cell;
        if (!cell) continue;
        const key = documentKey(cell.document);
        const figures = byRecorded.get(recorded) ?? [];
        const existing = files.get(key);
        files.set(key, {
          local: found.place.notebook,
          recorded: [...(existing?.recorded ?? []), recorded],
          lines: [...(existing?.lines ?? []), ...figures],
          cell: existing?.cell ?? { ranLines: cellLines(found.target.ranSource), lineOffset: found.target.lineOffset },
        });
      }
      const peakBytes = snapshot.deviceSummary(device)?.peakBytes ?? 0;
      next = { snapshot, device, peakBytes, files, unmapped: resolved.unmapped, functionNames, places: cellPlacesOf(resolved) };
      this.log.info(
        `Annotating ${snapshot.label} (device ${device}): ${files.size} files mapped (${resolved.cells.size} notebook cells), ${resolved.unmapped.length} not found.`,
      );
      void this.resolver.askAboutUnmapped(resolved, snapshot.persistentKey);
    }
    this.current = next;
    this.invalidate();
  }

  /** New decoration types for another theme kind or bar setting: every editor is drawn again. */
  private redecorate(kind: vscode.ColorThemeKind): void {
    if (!this.decorations.update(kind, this.settings.lineBar)) return;
    this.rendered = new WeakMap();
    this.render();
  }

  /** Drops cached annotations and redraws everything now. */
  private invalidate(): void {
    this.revision++;
    this.cache.clear();
    void vscode.commands.executeCommand('setContext', 'vramLens.annotationsShown', this.state !== undefined);
    this.render();
    this.changed.fire();
  }

  private entryFor(document: vscode.TextDocument): CacheEntry | undefined {
    const state = this.state;
    const file = this.fileOf(document);
    if (!state || !file) return undefined;
    const uri = document.uri.toString();
    const key = `${document.version}|${this.revision}`;
    const cached = this.cache.get(uri);
    if (cached?.key === key) return cached;
    const tracking = this.trackingOf(document);
    const names = state.functionNames;
    const cell = file.cell;
    const relocate = cell
      ? // A cell's recorded line k is line k + lineOffset of the code that ran; where is that line now?
        (_f: LineFigures, line: number) => {
          tracking.cellRelocator ??= ranTextRelocator(cell.ranLines, tracking.originalTexts);
          return tracking.cellRelocator(line + cell.lineOffset);
        }
      : (f: LineFigures, line: number) => {
          tracking.relocator ??= relocator(tracking.originalTexts);
          return tracking.relocator(line, names[f.lineId] || undefined);
        };
    const annotations = buildFileAnnotations(file.lines, state.peakBytes, document.lineCount, this.settings.annotation, this.placement(document, tracking), relocate);
    const entry: CacheEntry = { key, annotations, byLine: new Map(annotations.lines.map((l) => [l.line, l])) };
    this.cache.set(uri, entry);
    return entry;
  }

  /** Where recorded lines are now in `document`, and whether their text changed since first annotated. */
  private trackingOf(document: vscode.TextDocument): Tracking {
    const uri = document.uri.toString();
    let tracking = this.tracking.get(uri);
    if (!tracking) {
      const originalTexts = document.getText().split(/\r?\n/);
      tracking = { tracker: new LineTracker(originalTexts.keys()), originalTexts };
      this.tracking.set(uri, tracking);
    }
    return tracking;
  }

  private placement(document: vscode.TextDocument, tracking: Tracking): Placement {
    const { tracker, originalTexts } = tracking;
    return (original) => {
      const line = tracker.lineOf(original);
      if (line === GONE || line >= document.lineCount) return undefined;
      const before = originalTexts[original];
      return { line, stale: before !== undefined && isLineStale(before, document.lineAt(line).text) };
    };
  }

  private onEdit(event: vscode.TextDocumentChangeEvent): void {
    const tracking = this.tracking.get(event.document.uri.toString());
    if (!tracking || event.contentChanges.length === 0) return;
    for (const edit of lineEditsOf(event)) tracking.tracker.apply(edit);
    if (this.fileOf(event.document)) this.scheduleRender(EDIT_DELAY_MS);
  }

  private onClose(document: vscode.TextDocument): void {
    // Closed without saving: the file on disk no longer has the edits the tracker followed.
    if (document.isDirty) this.tracking.delete(document.uri.toString());
  }

  private scheduleRender(delay: number): void {
    if (this.renderTimer) clearTimeout(this.renderTimer);
    this.renderTimer = setTimeout(() => {
      this.renderTimer = undefined;
      this.render();
      this.changed.fire();
    }, delay);
  }

  private render(): void {
    for (const editor of vscode.window.visibleTextEditors) {
      const entry = this.entryFor(editor.document);
      const key = entry ? `${entry.key}|${this.settings.inline}` : 'none';
      if (this.rendered.get(editor) === key) continue;
      this.decorations.apply(editor, entry?.annotations, this.settings.inline);
      this.rendered.set(editor, key);
    }
  }

  override dispose(): void {
    if (this.renderTimer) clearTimeout(this.renderTimer);
    super.dispose();
  }
}
