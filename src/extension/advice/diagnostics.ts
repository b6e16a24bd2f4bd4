/**
 * The advisor's findings as VS Code diagnostics: on the line they are about when it is in this
 * workspace, else on the snapshot file itself; related lines as related information.
 */
import * as vscode from 'vscode';
import type { Finding } from '../../engine/advice/finding';
import type { PathResolver } from '../paths/pathResolver';
import type { LoadedSnapshot } from '../snapshotStore';

export const DIAGNOSTIC_SOURCE = 'VRAM Lens';

/** Where each diagnostic came from, so quick fixes can find their finding. */
export class FindingIndex {
  private readonly byKey = new Map<string, Finding>();

  /**
   * By path, not the whole URI: the document a code action is asked for may carry another spelling
   * of the same file's URI than the resolver's (a remote authority, encoded characters).
   */
  static key(uri: vscode.Uri, line: number, rule: string): string {
    return `${uri.path}#${line}#${rule}`;
  }

  set(uri: vscode.Uri, line: number, finding: Finding): void {
    this.byKey.set(FindingIndex.key(uri, line, finding.rule), finding);
  }

  get(uri: vscode.Uri, line: number, rule: string): Finding | undefined {
    return this.byKey.get(FindingIndex.key(uri, line, rule));
  }

  /** The keys held (for logs). */
  keys(): string[] {
    return [...this.byKey.keys()];
  }

  clear(): void {
    this.byKey.clear();
  }

  copyInto(other: FindingIndex): void {
    for (const [k, f] of this.byKey) other.byKey.set(k, f);
  }
}

function severityOf(f: Finding): vscode.DiagnosticSeverity {
  if (f.severity === 'error') return vscode.DiagnosticSeverity.Error;
  return f.severity === 'warning' ? vscode.DiagnosticSeverity.Warning : vscode.DiagnosticSeverity.Information;
}

function lineRange(line: number): vscode.Range {
  // Whole line; VS Code clamps the end to the line's length.
  return new vscode.Range(line - 1, 0, line - 1, Number.MAX_SAFE_INTEGER);
}

/** Turns findings into diagnostics per file. */
export async function diagnosticsFor(
  snapshot: LoadedSnapshot,
  findings: readonly Finding[],
  files: PathResolver,
  index: FindingIndex,
): Promise<Map<string, { uri: vscode.Uri; diagnostics: vscode.Diagnostic[] }>> {
  const out = new Map<string, { uri: vscode.Uri; diagnostics: vscode.Diagnostic[] }>();
  const add = (uri: vscode.Uri, d: vscode.Diagnostic) => {
    const entry = out.get(uri.toString()) ?? { uri, diagnostics: [] };
    entry.diagnostics.push(d);
    out.set(uri.toString(), entry);
  };
  for (const f of findings) {
    const local = f.file !== undefined && f.line !== undefined ? await files.localUri(f.file) : undefined;
    const uri = local ?? snapshot.uri;
    if (!uri) continue;
    const line = local && f.line !== undefined ? f.line : 1;
    const elsewhere = !local && f.file !== undefined ? ` (at ${f.file}:${f.line ?? ''}, not found in this workspace)` : '';
    const d = new vscode.Diagnostic(lineRange(line), `${f.title}. ${f.message}${elsewhere}`, severityOf(f));
    d.source = DIAGNOSTIC_SOURCE;
    d.code = f.rule;
    const related: vscode.DiagnosticRelatedInformation[] = [];
    for (const r of f.related ?? []) {
      const at = await files.localUri(r.file);
      if (at) related.push(new vscode.DiagnosticRelatedInformation(new vscode.Location(at, lineRange(r.line)), r.message));
    }
    if (related.length > 0) d.relatedInformation = related;
    index.set(uri, line, f);
    add(uri, d);
  }
  return out;
}
