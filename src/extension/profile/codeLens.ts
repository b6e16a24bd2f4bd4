/**
 * A single "Profile VRAM" lens per Python file that uses torch: on `if __name__ == "__main__":`
 * (default) or on the first line (`vramLens.profile.codeLens`: "mainGuard" | "fileTop" | "off").
 */
import * as vscode from 'vscode';
import { Commands } from '../commandIds';
import { affects, setting } from '../config';

export type LensPlacement = 'mainGuard' | 'fileTop' | 'off';

const MAIN_GUARD = /^if\s+__name__\s*==\s*(['"])__main__\1\s*:/m;
const USES_TORCH = /^\s*(?:import\s+torch\b|from\s+torch\b)/m;

/** The line of the lens in this text, or undefined for none (pure; exported for tests). */
export function lensLine(text: string, placement: LensPlacement): number | undefined {
  if (placement === 'off' || !USES_TORCH.test(text)) return undefined;
  if (placement === 'fileTop') return 0;
  const match = MAIN_GUARD.exec(text);
  if (!match) return undefined;
  let line = 0;
  for (let i = 0; i < match.index; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

export class ProfileCodeLensProvider implements vscode.CodeLensProvider, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.changed.event;
  private readonly subscription = vscode.workspace.onDidChangeConfiguration((e) => {
    if (affects(e, 'profile.codeLens')) this.changed.fire();
  });

  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    const line = lensLine(document.getText(), setting<LensPlacement>('profile.codeLens', 'mainGuard'));
    if (line === undefined) return [];
    const range = new vscode.Range(line, 0, line, 0);
    return [
      new vscode.CodeLens(range, {
        title: '$(pulse) Profile VRAM',
        tooltip: 'Run this file under PyTorch memory recording and annotate it (VRAM Lens)',
        command: Commands.profile,
        arguments: [document.uri],
      }),
    ];
  }

  dispose(): void {
    this.subscription.dispose();
    this.changed.dispose();
  }
}
