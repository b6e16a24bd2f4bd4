/**
 * The one way to open a line a snapshot recorded (hover links, the status bar, and every page's
 * `openLine` message: the summary, the timeline, the comparison results): finds its local file,
 * offers to map its folder when it is not found, and clamps the line to the file as it is now. A
 * notebook cell's code opens its notebook at that cell, with the cursor on the line.
 */
import * as vscode from 'vscode';
import { unmappedRoots } from '../../engine/paths/pathMapper';
import { clampLine } from '../../engine/paths/recordedLines';
import { baseName, normaliseRecordedPath } from '../../engine/paths/recordedPath';
import { isCellName } from '../../engine/notebook/cellNames';
import { userMessage } from '../../engine/base/errors';
import { notificationText } from '../../engine/text/plainText';
import { isOpenLine } from '../../guards/openLine';
import type { LocalLine, PathResolver } from './pathResolver';

export interface OpenLineOptions {
  readonly viewColumn?: vscode.ViewColumn;
  readonly preview?: boolean;
  /** The snapshot the line is from (`LoadedSnapshot.persistentKey`): one whose folders the user declined asks about none. */
  readonly snapshot?: string;
}

/** Opens recorded `file` at 1-based `line`; resolves false when it could not be opened. */
export async function openRecordedLine(resolver: PathResolver, file: string, line: number, options: OpenLineOptions = {}): Promise<boolean> {
  let found = await resolver.localLine(file, line);
  if (!found && !isCellName(file)) {
    const root = unmappedRoots([file])[0]?.root;
    const why = `${notificationText(baseName(file))} is not in this workspace: `;
    if (root !== undefined && (await resolver.askAbout(root, [file], why, options.snapshot))) found = await resolver.localLine(file, line);
  }
  if (!found) {
    const what = isCellName(file)
      ? `the notebook cell that ran as ${notificationText(baseName(file))} was not found in this workspace (a notebook that is not here, or a cell changed since it ran)`
      : `${notificationText(normaliseRecordedPath(file))} was not found on this machine`;
    void vscode.window.showWarningMessage(`VRAM Lens: ${what}.`);
    return false;
  }
  try {
    if (found.cell) return await openCellLine(found, options);
    const document = await vscode.workspace.openTextDocument(found.uri);
    const position = new vscode.Position(clampLine(found.line, document.lineCount) - 1, 0);
    await vscode.window.showTextDocument(document, {
      selection: new vscode.Range(position, position),
      preview: options.preview ?? true,
      viewColumn: options.viewColumn,
    });
    return true;
  } catch (e) {
    void vscode.window.showWarningMessage(`VRAM Lens: could not open ${notificationText(found.uri.fsPath)}: ${notificationText(userMessage(e))}`);
    return false;
  }
}

/** Shows the cell's notebook scrolled to the cell, then puts the cursor on the line in the cell's editor. */
async function openCellLine(found: LocalLine, options: OpenLineOptions): Promise<boolean> {
  const { notebookUri, index } = found.cell!;
  const notebook = vscode.workspace.notebookDocuments.find((nb) => nb.uri.toString() === notebookUri.toString()) ?? (await vscode.workspace.openNotebookDocument(notebookUri));
  if (index >= notebook.cellCount) return false;
  const range = new vscode.NotebookRange(index, index + 1);
  const editor = await vscode.window.showNotebookDocument(notebook, { selections: [range], preview: options.preview ?? true, viewColumn: options.viewColumn });
  editor.revealRange(range, vscode.NotebookEditorRevealType.InCenterIfOutsideViewport);
  const document = notebook.cellAt(index).document;
  const position = new vscode.Position(clampLine(found.line, document.lineCount) - 1, 0);
  await vscode.window.showTextDocument(document, { selection: new vscode.Range(position, position), viewColumn: editor.viewColumn, preview: options.preview ?? true });
  return true;
}

/**
 * The one handler of a page's `openLine` message (src/protocol/openLine.ts), for every webview host:
 * opens the line when the message is well-formed; false when it is not (the host logs that).
 */
export async function openLineOfPage(resolver: PathResolver, message: unknown, options: OpenLineOptions = {}): Promise<boolean> {
  if (!isOpenLine(message)) return false;
  await openRecordedLine(resolver, message.file, message.line, options);
  return true;
}
