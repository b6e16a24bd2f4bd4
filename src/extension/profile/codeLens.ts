/**
 * A single "Profile VRAM" lens per Python file that uses torch: on `if __name__ == "__main__":`
 * (default) or on the first line (`vramLens.profile.codeLens`: "mainGuard" | "fileTop" | "off").
 */
import * as vscode from 'vscode';
import { Commands } from '../shared/commandIds';
import type { LensPlacement } from '../../runtime/profile/lens';
import { lensLine } from '../../runtime/profile/lens';
import { affects } from '../shared/config';
import { profileSettings } from './settings';
import { DisposableOwner } from '../shared/disposables';

export class ProfileCodeLensProvider extends DisposableOwner implements vscode.CodeLensProvider {
  private readonly changed = this.own(new vscode.EventEmitter<void>());
  readonly onDidChangeCodeLenses = this.changed.event;

  /** The `vramLens.profile.codeLens` setting, read when it changes (not on every lens request). */
  private placement: LensPlacement = profileSettings().codeLens;

  constructor() {
    super();
    this.own(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (!affects(e, 'profile.codeLens')) return;
        this.placement = profileSettings().codeLens;
        this.changed.fire();
      }),
    );
  }

  provideCodeLenses(document: vscode.TextDocument): vscode.CodeLens[] {
    if (this.placement === 'off') return [];
    const line = lensLine(document.getText(), this.placement);
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
}
