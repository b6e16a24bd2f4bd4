/**
 * Quick fixes for the advisor's diagnostics where the fix is mechanical (`x = x * y` -> `x *= y`,
 * `total += loss` -> `total += loss.item()`), decided from the current text of the lines.
 */
import * as vscode from 'vscode';
import { quickFixesFor } from '../../core/advice/quickFix';
import type { PathResolver } from '../paths/pathResolver';
import type { FindingIndex } from './diagnostics';
import { DIAGNOSTIC_SOURCE } from './diagnostics';

export class AdviceQuickFixes implements vscode.CodeActionProvider {
  static readonly kinds = [vscode.CodeActionKind.QuickFix];

  constructor(
    private readonly index: FindingIndex,
    private readonly files: PathResolver,
  ) {}

  async provideCodeActions(document: vscode.TextDocument, _range: vscode.Range, context: vscode.CodeActionContext): Promise<vscode.CodeAction[]> {
    const actions: vscode.CodeAction[] = [];
    for (const diagnostic of context.diagnostics) {
      if (diagnostic.source !== DIAGNOSTIC_SOURCE || typeof diagnostic.code !== 'string') continue;
      const finding = this.index.get(document.uri, diagnostic.range.start.line + 1, diagnostic.code);
      if (!finding?.fix || finding.file === undefined) continue;
      // The documents the fix may touch: this one (the finding's line), and those of its related lines.
      const documents = new Map<string, vscode.TextDocument>([[finding.file, document]]);
      for (const r of finding.related ?? []) {
        if (documents.has(r.file)) continue;
        const uri = await this.files.localUri(r.file);
        if (uri) documents.set(r.file, await vscode.workspace.openTextDocument(uri));
      }
      const text = (file: string, line: number) => {
        const doc = documents.get(file);
        return doc && line >= 1 && line <= doc.lineCount ? doc.lineAt(line - 1).text : undefined;
      };
      for (const edit of quickFixesFor(finding, text)) {
        const target = documents.get(edit.file);
        if (!target) continue;
        const action = new vscode.CodeAction(edit.title, vscode.CodeActionKind.QuickFix);
        action.diagnostics = [diagnostic];
        action.edit = new vscode.WorkspaceEdit();
        action.edit.replace(target.uri, new vscode.Range(edit.line - 1, edit.startColumn, edit.line - 1, edit.endColumn), edit.newText);
        actions.push(action);
      }
    }
    return actions;
  }
}
