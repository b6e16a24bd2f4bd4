/**
 * Where a file named in a snapshot is in this workspace. Kept to one function so that the shared
 * path mapper (src/core/paths/) can take its place without touching the timeline.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { bestSuffixMatch } from './suffixMatch';

/**
 * The workspace file for a snapshot path: the path itself when it exists on this machine,
 * otherwise the workspace file with the same name that shares the most trailing folders with it.
 */
export async function resolveSourceUri(snapshotPath: string): Promise<vscode.Uri | undefined> {
  if (path.isAbsolute(snapshotPath)) {
    const uri = vscode.Uri.file(snapshotPath);
    try {
      const stat = await vscode.workspace.fs.stat(uri);
      if (stat.type & vscode.FileType.File) return uri;
    } catch {
      // Not on this machine: look in the workspace.
    }
  }
  const name = path.basename(snapshotPath.replace(/\\/g, '/'));
  if (name === '' || /[*?{}[\]]/.test(name)) return undefined;
  const found = await vscode.workspace.findFiles(`**/${name}`, undefined, 500);
  const best = bestSuffixMatch(
    snapshotPath,
    found.map((u) => u.fsPath),
  );
  return best === undefined ? undefined : found.find((u) => u.fsPath === best);
}
