/**
 * Where a file a snapshot recorded is in this workspace: the same path if it exists here, else the
 * workspace file sharing the longest path tail with it (unique best only). One small function on
 * purpose: the editor's path mapping (src/core/paths, remembered roots) replaces it at merge time.
 */
import * as vscode from 'vscode';
import { commonSuffixLength } from '../../core/compare/fileMatch';
import { normalisePath } from '../../core/analysis/frameFilter';

const EXCLUDE = '**/{node_modules,.git,.venv,venv,site-packages,dist-packages,__pycache__}/**';
const MAX_CANDIDATES = 200;

async function exists(uri: vscode.Uri): Promise<boolean> {
  try {
    return ((await vscode.workspace.fs.stat(uri)).type & vscode.FileType.File) !== 0;
  } catch {
    return false;
  }
}

function parts(path: string): string[] {
  return normalisePath(path).split('/').filter((p) => p !== '');
}

/** Resolves recorded paths to workspace files, remembering each answer. */
export class RecordedFiles {
  private readonly cache = new Map<string, Promise<vscode.Uri | undefined>>();

  resolve(recorded: string): Promise<vscode.Uri | undefined> {
    let found = this.cache.get(recorded);
    if (!found) {
      found = this.lookUp(recorded);
      this.cache.set(recorded, found);
    }
    return found;
  }

  /** Forget every answer (workspace folders changed). */
  clear(): void {
    this.cache.clear();
  }

  private async lookUp(recorded: string): Promise<vscode.Uri | undefined> {
    if (/^(\/|[A-Za-z]:[\\/])/.test(recorded)) {
      const direct = vscode.Uri.file(recorded);
      if (await exists(direct)) return direct;
    }
    const wanted = parts(recorded);
    const name = wanted[wanted.length - 1];
    if (!name || !vscode.workspace.workspaceFolders?.length) return undefined;
    const glob = `**/${recorded.replace(/\\/g, '/').split('/').pop()!.replace(/[[\]{}*?!]/g, '?')}`;
    const candidates = await vscode.workspace.findFiles(glob, EXCLUDE, MAX_CANDIDATES);
    let best: vscode.Uri | undefined;
    let bestScore = 0;
    let tie = false;
    for (const uri of candidates) {
      const score = commonSuffixLength(parts(uri.fsPath), wanted);
      if (score > bestScore) {
        best = uri;
        bestScore = score;
        tie = false;
      } else if (score === bestScore && score > 0) {
        tie = true;
      }
    }
    return tie ? undefined : best;
  }
}
