/**
 * The fixed set of decoration types the annotations use, created once: one per heat step (a bar at
 * the line's left edge in the step's theme colour, and the quiet inline text), one for stale lines,
 * one for overview-ruler marks. Per-line text travels in each range's render options.
 */
import * as vscode from 'vscode';
import type { FileAnnotations, LineAnnotation } from '../../core/annotate/lineAnnotations';
import { HEAT_BUCKETS } from '../../core/annotate/lineAnnotations';

/** Theme colour id of heat step `bucket` (0 = coolest); package.json `contributes.colors` defines them. */
export function heatColorId(bucket: number): string {
  return `vramLens.heat${bucket}`;
}

function inlineAttachment(color: string, fontStyle: string): vscode.ThemableDecorationAttachmentRenderOptions {
  return { color: new vscode.ThemeColor(color), margin: '0 0 0 3ch', fontStyle, fontWeight: 'normal' };
}

export class AnnotationDecorations implements vscode.Disposable {
  private readonly heat: vscode.TextEditorDecorationType[];
  private readonly stale: vscode.TextEditorDecorationType;
  private readonly overview: vscode.TextEditorDecorationType;

  constructor() {
    this.heat = Array.from({ length: HEAT_BUCKETS }, (_, bucket) =>
      vscode.window.createTextEditorDecorationType({
        isWholeLine: true,
        borderStyle: 'solid',
        borderWidth: '0 0 0 3px',
        borderColor: new vscode.ThemeColor(heatColorId(bucket)),
        after: inlineAttachment('vramLens.inlineForeground', 'normal'),
        rangeBehavior: vscode.DecorationRangeBehavior.ClosedClosed,
      }),
    );
    this.stale = vscode.window.createTextEditorDecorationType({
      isWholeLine: true,
      borderStyle: 'dotted',
      borderWidth: '0 0 0 3px',
      borderColor: new vscode.ThemeColor('vramLens.staleMark'),
      after: inlineAttachment('vramLens.staleForeground', 'italic'),
      rangeBehavior: vscode.DecorationRangeBehavior.ClosedClosed,
    });
    this.overview = vscode.window.createTextEditorDecorationType({
      overviewRulerColor: new vscode.ThemeColor('vramLens.overviewRuler'),
      overviewRulerLane: vscode.OverviewRulerLane.Right,
    });
  }

  /** Draws `annotations` on `editor` (or clears it when undefined); `inline` toggles the text. */
  apply(editor: vscode.TextEditor, annotations: FileAnnotations | undefined, inline: boolean): void {
    const document = editor.document;
    const options = (lines: readonly LineAnnotation[]): vscode.DecorationOptions[] =>
      lines.map((l) => {
        const end = document.lineAt(l.line).range.end;
        return {
          range: new vscode.Range(end, end),
          renderOptions: inline && l.text !== '' ? { after: { contentText: l.text } } : undefined,
        };
      });
    for (let bucket = 0; bucket < HEAT_BUCKETS; bucket++) editor.setDecorations(this.heat[bucket], options(annotations?.byBucket[bucket] ?? []));
    editor.setDecorations(this.stale, options(annotations?.stale ?? []));
    editor.setDecorations(
      this.overview,
      (annotations?.overview ?? []).map((line) => document.lineAt(line).range),
    );
  }

  dispose(): void {
    for (const type of this.heat) type.dispose();
    this.stale.dispose();
    this.overview.dispose();
  }
}
