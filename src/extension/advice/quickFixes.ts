/**
 * Quick fixes for the advisor's diagnostics where the fix is mechanical and provably leaves what the
 * program computes unchanged (`x = x / s` -> `x.div_(s)`, docs/compare-and-advice.md), decided by
 * `quickFixesFor` from the syntax tree of the documents as they are now; every edit was parsed
 * again. This adapter only places the engine's edits in the documents; it makes none of its own.
 */
import * as vscode from 'vscode';
import { quickFixesFor } from '../../engine/advice/quickFix';
import { PythonSource } from '../../engine/python/pythonSource';
import type { PathResolver } from '../shared/pathResolver';
import type { FindingIndex } from './diagnostics';
import { DIAGNOSTIC_SOURCE } from './diagnostics';

export class AdviceQuickFixes implements vscode.CodeActionProvider {
  static readonly kinds = [vscode.CodeActionKind.QuickFix];

  constructor(
    private readonly index: FindingIndex,
    private readonly files: PathResolver,
    private readonly log?: vscode.LogOutputChannel,
  ) {}

  async provideCodeActions(document: vscode.TextDocument, _range: vscode.Range, context: vscode.CodeActionContext): Promise<vscode.CodeAction[]> {
    const actions: vscode.CodeAction[] = [];
    for (const diagnostic of context.diagnostics) {
      if (diagnostic.source !== DIAGNOSTIC_SOURCE || typeof diagnostic.code !== 'string') continue;
      const finding = this.index.get(document.uri, diagnostic.range.start.line + 1, diagnostic.code);
      this.log?.trace(`Quick fixes asked for ${document.uri.path}:${diagnostic.range.start.line + 1} [${diagnostic.code}]: finding ${finding ? `with fix ${finding.fix ?? 'none'}` : 'not found'}`);
      if (!finding?.fix || finding.file === undefined) continue;
      // The documents the fix may touch: this one (the finding's line), and those of its related lines;
      // a notebook cell's lines are numbered as recorded, from its first non-blank line (`offsets`).
      const documents = new Map<string, vscode.TextDocument>([[finding.file, document]]);
      const offsets = new Map<string, number>();
      for (const file of [finding.file, ...(finding.related ?? []).map((r) => r.file)]) {
        if (offsets.has(file)) continue;
        const at = await this.files.localLine(file, 1);
        offsets.set(file, at?.cell ? at.line - 1 : 0);
        if (!documents.has(file) && at && (!at.cell || at.cell.cell)) documents.set(file, await vscode.workspace.openTextDocument(at.uri));
      }
      const parsed = new Map<string, PythonSource>();
      const sourceOf = (file: string) => {
        const doc = documents.get(file);
        if (!doc) return undefined;
        let src = parsed.get(file);
        if (!src) {
          const lines = doc.getText().replace(/\r\n/g, '\n').split('\n');
          src = PythonSource.parse(lines.slice(offsets.get(file) ?? 0).join('\n'));
          parsed.set(file, src);
        }
        return src;
      };
      for (const edit of quickFixesFor(finding, sourceOf)) {
        const target = documents.get(edit.file);
        if (!target) continue;
        const shift = offsets.get(edit.file) ?? 0;
        const action = new vscode.CodeAction(edit.title, vscode.CodeActionKind.QuickFix);
        action.diagnostics = [diagnostic];
        action.isPreferred = actions.length === 0;
        action.edit = new vscode.WorkspaceEdit();
        action.edit.replace(target.uri, new vscode.Range(edit.line - 1 + shift, edit.startColumn, edit.endLine - 1 + shift, edit.endColumn), edit.newText);
        actions.push(action);
      }
    }
    return actions;
  }
}
