/**
 * Whether the editor is in compare mode, and which comparison it shows. The `vramLens.compareMode`
 * context key follows it, and other features (the normal line annotations) listen to
 * `onDidChange` to step aside while compare mode draws its own deltas.
 */
import * as vscode from 'vscode';
import type { Comparison } from '../../engine/compare/diff';
import type { CellPlaces } from '../../engine/paths/places';

export const COMPARE_MODE_CONTEXT_KEY = 'vramLens.compareMode';

/** Which loaded snapshot and device each side of the comparison came from. */
export interface ComparedSide {
  readonly snapshotId: string;
  readonly device: number;
}

export interface ActiveComparison {
  readonly comparison: Comparison;
  readonly baseline: ComparedSide;
  readonly current: ComparedSide;
  /** Each side's `LoadedSnapshot.revision` when compared: a re-attributed side makes the comparison stale. */
  readonly revisions: readonly [number, number];
  /** The notebook cells of both runs' recorded cell files (a cell name stands for one text, whichever run). */
  readonly places?: CellPlaces;
}

export class CompareMode implements vscode.Disposable {
  private current: ActiveComparison | undefined;
  private readonly changed = new vscode.EventEmitter<boolean>();
  /** Fires with `true` when compare mode starts or shows another comparison, `false` when it ends. */
  readonly onDidChange = this.changed.event;

  get active(): boolean {
    return this.current !== undefined;
  }

  get comparison(): ActiveComparison | undefined {
    return this.current;
  }

  enter(comparison: ActiveComparison): void {
    this.current = comparison;
    void vscode.commands.executeCommand('setContext', COMPARE_MODE_CONTEXT_KEY, true);
    this.changed.fire(true);
  }

  exit(): void {
    if (!this.current) return;
    this.current = undefined;
    void vscode.commands.executeCommand('setContext', COMPARE_MODE_CONTEXT_KEY, false);
    this.changed.fire(false);
  }

  dispose(): void {
    this.exit();
    this.changed.dispose();
  }
}
