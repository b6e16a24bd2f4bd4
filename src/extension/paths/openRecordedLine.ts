/**
 * The one way to open a line a snapshot recorded (hover links, the status bar, and every page's
 * `openLine` message: the summary, the timeline, the comparison results): finds its local file,
 * offers to map its folder when it is not found, and clamps the line to the file as it is now.
 */
import * as vscode from 'vscode';
import { unmappedRoots } from '../../engine/paths/pathMapper';
import { clampLine } from '../../engine/paths/recordedLines';
import { baseName, normaliseRecordedPath } from '../../engine/paths/recordedPath';
import { errorMessage } from '../../engine/base/errors';
import { notificationText } from '../../engine/text/plainText';
import { isOpenLine } from '../../protocol/openLine';
import type { PathResolver } from './pathResolver';

export interface OpenLineOptions {
  readonly viewColumn?: vscode.ViewColumn;
  readonly preview?: boolean;
}

/** Opens recorded `file` at 1-based `line`; resolves false when it could not be opened. */
export async function openRecordedLine(resolver: PathResolver, file: string, line: number, options: OpenLineOptions = {}): Promise<boolean> {
  let uri = await resolver.localUri(file);
  if (!uri) {
    const root = unmappedRoots([file])[0]?.root;
    const why = `${notificationText(baseName(file))} is not in this workspace: `;
    if (root !== undefined && (await resolver.askAbout(root, [file], why))) uri = await resolver.localUri(file);
  }
  if (!uri) {
    void vscode.window.showWarningMessage(`VRAM Lens: ${notificationText(normaliseRecordedPath(file))} was not found on this machine.`);
    return false;
  }
  try {
    const document = await vscode.workspace.openTextDocument(uri);
    const position = new vscode.Position(clampLine(line, document.lineCount) - 1, 0);
    await vscode.window.showTextDocument(document, {
      selection: new vscode.Range(position, position),
      preview: options.preview ?? true,
      viewColumn: options.viewColumn,
    });
    return true;
  } catch (e) {
    void vscode.window.showWarningMessage(`VRAM Lens: could not open ${notificationText(uri.fsPath)}: ${notificationText(errorMessage(e))}`);
    return false;
  }
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
