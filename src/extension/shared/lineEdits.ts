/** VS Code's text changes as the `LineEdit`s a `LineTracker` follows (annotations and advice both follow edits). */
import type * as vscode from 'vscode';
import type { LineEdit } from '../../engine/annotate/lineTracker';

/** The changes of one event, in the order VS Code lists them (the order they are applied in). */
export function lineEditsOf(event: vscode.TextDocumentChangeEvent): LineEdit[] {
  return event.contentChanges.map((change) => {
    const start = change.range.start;
    const head = start.line < event.document.lineCount ? event.document.lineAt(start.line).text.slice(0, start.character) : '';
    return {
      startLine: start.line,
      startCharacter: start.character,
      endLine: change.range.end.line,
      endCharacter: change.range.end.character,
      text: change.text,
      headBlank: head.trim() === '',
    };
  });
}
