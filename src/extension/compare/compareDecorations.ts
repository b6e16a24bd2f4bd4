/**
 * Compare mode in the editor: after each changed line of the current run, its change against the
 * baseline (`-6.1 GiB at peak vs baseline`, within `vramLens.inline.maxLength`), coloured by direction,
 * with a hover table. Its own two decoration types, separate from the normal annotations; drawn in
 * visible editors only.
 */
import * as vscode from 'vscode';
import type { LineDelta } from '../../engine/compare/diff';
import type { CompareMode } from '../shared/compareMode';
import { grew, hoverMarkdown, inlineDeltaText } from './deltaText';
import type { PathResolver } from '../shared/pathResolver';
import { DisposableOwner } from '../shared/disposables';
import { affectsEditorSettings, readEditorSettings } from '../shared/editorSettings';

export class CompareDecorations extends DisposableOwner {
  private readonly increase = this.own(vscode.window.createTextEditorDecorationType({
    after: { color: new vscode.ThemeColor('vramLens.compare.increaseForeground'), margin: '0 0 0 2em', fontStyle: 'italic' },
    rangeBehavior: vscode.DecorationRangeBehavior.ClosedClosed,
  }));
  private readonly decrease = this.own(vscode.window.createTextEditorDecorationType({
    after: { color: new vscode.ThemeColor('vramLens.compare.decreaseForeground'), margin: '0 0 0 2em', fontStyle: 'italic' },
    rangeBehavior: vscode.DecorationRangeBehavior.ClosedClosed,
  }));
  /** Workspace document (Uri string) -> changed lines of the current run in it, with their 1-based line there. */
  private byDocument = new Map<string, { delta: LineDelta; line: number }[]>();
  private generation = 0;

  constructor(
    private readonly mode: CompareMode,
    private readonly files: PathResolver,
  ) {
    super();
    this.own(
      mode.onDidChange(() => void this.rebuild()),
      vscode.window.onDidChangeVisibleTextEditors(() => this.render()),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (affectsEditorSettings(e)) this.render();
      }),
    );
  }

  private async rebuild(): Promise<void> {
    const generation = ++this.generation;
    const active = this.mode.comparison;
    const byDocument = new Map<string, { delta: LineDelta; line: number }[]>();
    if (active) {
      const changed = active.comparison.lines.filter((l) => l.current && typeof l.current.line === 'number' && inlineDeltaText(l) !== undefined);
      for (const delta of changed) {
        // A file's line, or a line of an open notebook cell (a closed notebook shows no editor).
        const at = await this.files.localLine(delta.current!.file, delta.current!.line as number);
        if (!at || (at.cell && !at.cell.cell)) continue;
        const key = at.uri.toString();
        byDocument.set(key, [...(byDocument.get(key) ?? []), { delta, line: at.line }]);
      }
    }
    if (generation !== this.generation) return; // a newer comparison arrived meanwhile
    this.byDocument = byDocument;
    this.render();
  }

  private render(): void {
    const active = this.mode.comparison;
    // The same budget as the line annotations (`vramLens.inline.maxLength`): words go first, the figure never is cut.
    const maxLength = readEditorSettings().annotation.maxLength;
    for (const editor of vscode.window.visibleTextEditors) {
      const lines = active ? (this.byDocument.get(editor.document.uri.toString()) ?? []) : [];
      const up: vscode.DecorationOptions[] = [];
      const down: vscode.DecorationOptions[] = [];
      for (const { delta: l, line: shown } of lines) {
        const line = shown - 1;
        if (line < 0 || line >= editor.document.lineCount) continue;
        const end = editor.document.lineAt(line).range.end;
        const hover = new vscode.MarkdownString(hoverMarkdown(l, active!.comparison.baseline.label, active!.comparison.current.label));
        const text = inlineDeltaText(l, maxLength);
        (grew(l) ? up : down).push({
          range: new vscode.Range(end, end),
          hoverMessage: hover,
          ...(text ? { renderOptions: { after: { contentText: text } } } : {}),
        });
      }
      editor.setDecorations(this.increase, up);
      editor.setDecorations(this.decrease, down);
    }
  }
}
