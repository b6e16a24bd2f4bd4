/**
 * The advisor's findings as VS Code diagnostics, on the lines they are about in this workspace,
 * related lines as related information. Findings that name no line of this workspace (before
 * recording, fragmentation, an OOM whose line is not here) are not diagnostics: a `.pickle` is no
 * place for them, so the snapshot's summary shows them (`summaryView.ts`).
 *
 * The diagnostics follow edits (`FollowedDocument`): they move with inserted lines, leave the line
 * when the quick fix was applied (or the same written by hand), and are marked stale, without a quick
 * fix, when a line they are about was edited otherwise.
 *
 * A notebook cell's findings go on the cell's document while its notebook is open (on the summary
 * while it is not): they are followed in the lines as recorded (the cell's lines from its first line
 * with text: `offset` blank lines above are not counted) and shown on the cell's own lines.
 */
import * as vscode from 'vscode';
import type { Finding } from '../../engine/advice/finding';
import { PythonSource } from '../../engine/python/pythonSource';
import { DisposableOwner } from '../shared/disposables';
import { lineEditsOf } from '../shared/lineEdits';
import type { SourceFiles } from '../shared/loadedSnapshot';
import type { PathResolver } from '../shared/pathResolver';
import type { CurrentText, Placement } from './followedFindings';
import { FollowedDocument } from './followedFindings';

export const DIAGNOSTIC_SOURCE = 'VRAM Lens';

/**
 * The key of a document's findings: its path (a remote authority or encoded characters may spell the same
 * file's URI otherwise), and for a notebook cell also its fragment (every cell of a notebook has its path).
 */
export function documentPathKey(uri: vscode.Uri): string {
  return uri.scheme === 'vscode-notebook-cell' ? `${uri.path}#${uri.fragment}` : uri.path;
}

/** How long after the last keystroke the findings of an edited document are placed again. */
const EDIT_DELAY_MS = 250;

/** Where each diagnostic came from, so quick fixes can find their finding. */
export class FindingIndex {
  private readonly byKey = new Map<string, Finding>();

  /**
   * By path, not the whole URI: the document a code action is asked for may carry another spelling
   * of the same file's URI than the resolver's (a remote authority, encoded characters).
   */
  static key(uri: vscode.Uri, line: number, rule: string): string {
    return `${documentPathKey(uri)}#${line}#${rule}`;
  }

  set(uri: vscode.Uri, line: number, finding: Finding): void {
    this.byKey.set(FindingIndex.key(uri, line, finding.rule), finding);
  }

  get(uri: vscode.Uri, line: number, rule: string): Finding | undefined {
    return this.byKey.get(FindingIndex.key(uri, line, rule));
  }

  /** Forgets the findings of one document. */
  deleteDocument(uri: vscode.Uri): void {
    const prefix = `${documentPathKey(uri)}#`;
    for (const key of [...this.byKey.keys()]) if (key.startsWith(prefix)) this.byKey.delete(key);
  }

  /** The keys held (for logs). */
  keys(): string[] {
    return [...this.byKey.keys()];
  }

  clear(): void {
    this.byKey.clear();
  }
}

function severityOf(f: Finding): vscode.DiagnosticSeverity {
  if (f.severity === 'error') return vscode.DiagnosticSeverity.Error;
  return f.severity === 'warning' ? vscode.DiagnosticSeverity.Warning : vscode.DiagnosticSeverity.Information;
}

function lineRange(line: number): vscode.Range {
  // Whole line; VS Code clamps the end to the line's length.
  return new vscode.Range(line, 0, line, Number.MAX_SAFE_INTEGER);
}

/** The words a stale finding starts with. */
export const STALE_PREFIX = 'Stale: this code changed after the snapshot was recorded, so the figures describe the recorded code (record again to re-check).';

/**
 * The words a finding starts with when its line is blank or a comment in the file as it is (the file
 * changed before it was opened: a line that allocated memory ran code).
 */
export const NOT_CODE_PREFIX = 'Stale: this line is not code in the file as it is now, so the file changed since the recording and the finding is about code that is no longer here (record again to re-check).';

/** Whether a line of Python is code: neither blank nor a comment. */
export function isCodeLine(text: string): boolean {
  const t = text.trim();
  return t !== '' && !t.startsWith('#');
}

/** Where a recorded file's lines are: a document, and how many of its lines come before recorded line 1. */
interface LocalDocument {
  readonly uri: vscode.Uri;
  /** A notebook cell's blank lines above its first line with text (IPython drops them); 0 for a file. */
  readonly offset: number;
}

interface Followed extends LocalDocument {
  followed: FollowedDocument;
  readonly make: () => FollowedDocument;
  /** The text the findings were made for, used while the document is not open. */
  readonly baseline: readonly string[];
  /** Local files of related lines, by recorded path. */
  readonly related: ReadonlyMap<string, LocalDocument>;
  /** One of those other files was edited since the findings were shown. */
  othersEdited: boolean;
}

/** The diagnostics of one snapshot's findings, kept on their lines while the user edits. */
export class AdviceDiagnostics extends DisposableOwner {
  readonly index = new FindingIndex();
  private readonly collection: vscode.DiagnosticCollection;
  private readonly documents = new Map<string, Followed>();
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();

  constructor(
    private readonly files: PathResolver,
    private readonly log: vscode.LogOutputChannel,
  ) {
    super();
    this.collection = this.own(vscode.languages.createDiagnosticCollection('vramLens.advice'));
    this.own(
      vscode.workspace.onDidChangeTextDocument((e) => this.onEdit(e)),
      vscode.workspace.onDidCloseTextDocument((d) => this.onClose(d)),
      { dispose: () => this.timers.forEach((t) => clearTimeout(t)) },
    );
  }

  clear(): void {
    this.collection.clear();
    this.index.clear();
    this.documents.clear();
  }

  /**
   * The findings that name a line of this workspace, as diagnostics; returns the others (for the
   * summary). `texts`: the sources the advisor read (captured at load). `current` is asked once all
   * paths are resolved: false when newer findings came meanwhile (nothing is shown then).
   */
  async show(findings: readonly Finding[], texts: SourceFiles, current: () => boolean): Promise<Finding[]> {
    const byFile = new Map<string, { uri: vscode.Uri; offset: number; file: string; findings: Finding[] }>();
    const elsewhere: Finding[] = [];
    const related = new Map<string, LocalDocument>();
    for (const f of findings) {
      const local = f.file !== undefined && f.line !== undefined ? await this.documentOf(f.file) : undefined;
      if (!local || f.file === undefined) {
        elsewhere.push(f);
        continue;
      }
      const key = documentPathKey(local.uri);
      const entry = byFile.get(key) ?? { ...local, file: f.file, findings: [] };
      entry.findings.push(f);
      byFile.set(key, entry);
      for (const r of f.related ?? []) {
        if (related.has(r.file)) continue;
        const at = await this.documentOf(r.file);
        if (at) related.set(r.file, at);
      }
    }
    if (!current()) return elsewhere;
    const before = new Map(this.documents);
    this.clear();
    for (const { uri, offset, file, findings: mine } of byFile.values()) {
      const key = documentPathKey(uri);
      // The same findings shown again (a refresh): they keep following the edits made since.
      const kept = before.get(key);
      if (kept && kept.followed.findings.length === mine.length && kept.followed.findings.every((f, i) => f === mine[i])) {
        this.documents.set(key, { ...kept, related: new Map(related) });
        this.publish(key);
        continue;
      }
      const open = openDocument(uri);
      const captured = texts.get(file);
      const baseline = open ? open.getText().split(/\r?\n/).slice(offset) : (captured?.text.split(/\r?\n/) ?? []);
      const expected = (line: number) => (captured ? captured.line(line) : baseline[line - 1]);
      const make = () => new FollowedDocument(mine, expected);
      this.documents.set(key, { uri, offset, followed: make(), make, baseline, related: new Map(related), othersEdited: false });
      this.publish(key);
    }
    this.log.trace(`Advisor: diagnostics at ${this.index.keys().join(', ')}`);
    return elsewhere;
  }

  /**
   * Where a recorded file's lines are: its local file, or its notebook cell's document (undefined for a cell
   * of a notebook that is not open: its findings are on the summary until it is).
   */
  private async documentOf(file: string): Promise<LocalDocument | undefined> {
    const at = await this.files.localLine(file, 1);
    if (!at || (at.cell && !at.cell.cell)) return undefined;
    return { uri: at.uri, offset: at.line - 1 };
  }

  /** The document's text in the lines as recorded (a cell's blank lines above its code left out). */
  private textOf(entry: Followed): CurrentText {
    const open = openDocument(entry.uri);
    const k = entry.offset;
    if (open && k === 0) return { lineCount: open.lineCount, lineAt: (l) => open.lineAt(l).text, getText: () => open.getText() };
    if (open) return { lineCount: Math.max(0, open.lineCount - k), lineAt: (l) => open.lineAt(l + k).text, getText: () => open.getText().split(/\r?\n/).slice(k).join('\n') };
    const lines = entry.baseline;
    return { lineCount: lines.length, lineAt: (l) => lines[l] ?? '', getText: () => lines.join('\n') };
  }

  /** Places the findings of one document where they are now and shows them. */
  private publish(key: string): void {
    const entry = this.documents.get(key);
    if (!entry) return;
    this.index.deleteDocument(entry.uri);
    const diagnostics: vscode.Diagnostic[] = [];
    const otherFile = (file: string) => {
      const at = entry.related.get(file);
      const open = at && openDocument(at.uri);
      return open ? PythonSource.parse(open.getText().replace(/\r\n/g, '\n').split('\n').slice(at.offset).join('\n')) : undefined;
    };
    for (const p of entry.followed.place(this.textOf(entry), { otherFile, othersEdited: entry.othersEdited })) {
      const d = this.diagnostic(p, entry);
      if (d) diagnostics.push(d);
    }
    this.collection.set(entry.uri, diagnostics);
  }

  private diagnostic(p: Placement, entry: Followed): vscode.Diagnostic | undefined {
    if (!('line' in p)) {
      this.log.trace(`Advisor: ${p.finding.rule} at ${entry.uri.path}:${p.finding.line ?? ''} ${p.state} after an edit`);
      return undefined;
    }
    const f = p.finding;
    // A line that is blank or a comment now did not run the code the finding is about (found trying the
    // VSIX on a public project whose file changed since its recording: an OOM on a commented-out line).
    const current = this.textOf(entry);
    const notCode = p.line < current.lineCount && !isCodeLine(current.lineAt(p.line));
    const stale = p.state === 'stale' || notCode;
    const text = `${f.title}. ${f.message}`;
    const d = new vscode.Diagnostic(lineRange(p.line + entry.offset), stale ? `${notCode ? NOT_CODE_PREFIX : STALE_PREFIX} ${text}` : text, stale ? vscode.DiagnosticSeverity.Information : severityOf(f));
    d.source = DIAGNOSTIC_SOURCE;
    d.code = f.rule;
    const related: vscode.DiagnosticRelatedInformation[] = [];
    for (const r of f.related ?? []) {
      const at = entry.related.get(r.file);
      if (at) related.push(new vscode.DiagnosticRelatedInformation(new vscode.Location(at.uri, lineRange(r.line - 1 + at.offset)), r.message));
    }
    if (related.length > 0) d.relatedInformation = related;
    // A stale finding offers no quick fix: it was made for other code.
    if (!stale) this.index.set(entry.uri, p.line + entry.offset + 1, f);
    return d;
  }

  private onEdit(event: vscode.TextDocumentChangeEvent): void {
    const key = documentPathKey(event.document.uri);
    if (event.contentChanges.length === 0) return;
    // Findings whose related lines are in this file (a leak's accumulation): placed again too.
    for (const [other, entry] of this.documents) {
      if (other === key || ![...entry.related.values()].some((u) => documentPathKey(u.uri) === key)) continue;
      entry.othersEdited = true;
      this.schedule(other);
    }
    const entry = this.documents.get(key);
    if (!entry) return;
    // In the lines as recorded: a cell's blank lines above its code are not counted.
    for (const edit of lineEditsOf(event)) {
      entry.followed.apply(entry.offset === 0 ? edit : { ...edit, startLine: Math.max(0, edit.startLine - entry.offset), endLine: Math.max(0, edit.endLine - entry.offset) });
    }
    this.schedule(key);
  }

  /** Places the findings of one document again once the typing pauses. */
  private schedule(key: string): void {
    const pending = this.timers.get(key);
    if (pending) clearTimeout(pending);
    this.timers.set(
      key,
      setTimeout(() => {
        this.timers.delete(key);
        this.publish(key);
      }, EDIT_DELAY_MS),
    );
  }

  private onClose(document: vscode.TextDocument): void {
    // Closed without saving: the edits the findings followed are gone with it.
    const key = documentPathKey(document.uri);
    const entry = this.documents.get(key);
    if (!entry || !document.isDirty) return;
    entry.followed = entry.make();
    this.publish(key);
  }
}

/** The open document `uri` names (the same path, and for a notebook cell the same cell). */
function openDocument(uri: vscode.Uri): vscode.TextDocument | undefined {
  const key = documentPathKey(uri);
  return vscode.workspace.textDocuments.find((d) => documentPathKey(d.uri) === key);
}
