/**
 * The fixed set of decoration types the annotations use: one per heat step (a heat icon in the glyph
 * margin, generated per theme kind under `media/heat/` and sized to the line height; optionally the bar
 * at the line's left edge; the quiet inline text), one for stale lines, one overview-ruler mark per heat
 * step. They are created again when the colour theme's kind changes (light, dark, high contrast) or the
 * bar is switched. Per-line text travels in each range's render options.
 */
import * as vscode from 'vscode';
import type { HeatThemeKind } from '../../engine/annotate/heat';
import { HEAT_STEPS, heatIconFile } from '../../engine/annotate/heat';
import type { FileAnnotations, LineAnnotation } from '../../engine/annotate/lineAnnotations';

/** Theme colour id of heat step `step` (0 = coolest); package.json `contributes.colors` defines them. */
export function heatColorId(step: number): string {
  return `vramLens.heat${step}`;
}

export function heatThemeKind(kind: vscode.ColorThemeKind): HeatThemeKind {
  switch (kind) {
    case vscode.ColorThemeKind.Light:
      return 'light';
    case vscode.ColorThemeKind.HighContrast:
      return 'highContrast';
    case vscode.ColorThemeKind.HighContrastLight:
      return 'highContrastLight';
    default:
      return 'dark';
  }
}

function inlineAttachment(color: string, fontStyle: string): vscode.ThemableDecorationAttachmentRenderOptions {
  return { color: new vscode.ThemeColor(color), margin: '0 0 0 3ch', fontStyle, fontWeight: 'normal' };
}

interface Types {
  readonly heat: vscode.TextEditorDecorationType[];
  readonly stale: vscode.TextEditorDecorationType;
  readonly overview: vscode.TextEditorDecorationType[];
}

export class AnnotationDecorations implements vscode.Disposable {
  private types: Types;
  private kind: HeatThemeKind;

  constructor(
    private readonly extensionUri: vscode.Uri,
    private lineBar: boolean,
  ) {
    this.kind = heatThemeKind(vscode.window.activeColorTheme.kind);
    this.types = this.create();
  }

  /**
   * Makes the types match the theme kind and the bar setting; true when they were created again (every
   * editor must then be drawn again: the old types' decorations went with them).
   */
  update(themeKind: vscode.ColorThemeKind, lineBar: boolean): boolean {
    const kind = heatThemeKind(themeKind);
    if (kind === this.kind && lineBar === this.lineBar) return false;
    this.kind = kind;
    this.lineBar = lineBar;
    const old = this.types;
    this.types = this.create();
    disposeTypes(old);
    return true;
  }

  private create(): Types {
    const bar = (color: vscode.ThemeColor, style: string): vscode.DecorationRenderOptions =>
      this.lineBar ? { borderStyle: style, borderWidth: '0 0 0 3px', borderColor: color } : {};
    return {
      heat: Array.from({ length: HEAT_STEPS }, (_, step) =>
        vscode.window.createTextEditorDecorationType({
          isWholeLine: true,
          gutterIconPath: vscode.Uri.joinPath(this.extensionUri, 'media', 'heat', heatIconFile(this.kind, step)),
          gutterIconSize: 'contain',
          ...bar(new vscode.ThemeColor(heatColorId(step)), 'solid'),
          after: inlineAttachment('vramLens.inlineForeground', 'normal'),
          rangeBehavior: vscode.DecorationRangeBehavior.ClosedClosed,
        }),
      ),
      stale: vscode.window.createTextEditorDecorationType({
        isWholeLine: true,
        borderStyle: 'dotted',
        borderWidth: '0 0 0 3px',
        borderColor: new vscode.ThemeColor('vramLens.staleMark'),
        after: inlineAttachment('vramLens.staleForeground', 'italic'),
        rangeBehavior: vscode.DecorationRangeBehavior.ClosedClosed,
      }),
      overview: Array.from({ length: HEAT_STEPS }, (_, step) =>
        vscode.window.createTextEditorDecorationType({
          overviewRulerColor: new vscode.ThemeColor(heatColorId(step)),
          overviewRulerLane: vscode.OverviewRulerLane.Right,
        }),
      ),
    };
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
    const { heat, stale, overview } = this.types;
    for (let step = 0; step < HEAT_STEPS; step++) editor.setDecorations(heat[step], options(annotations?.byBucket[step] ?? []));
    editor.setDecorations(stale, options(annotations?.stale ?? []));
    const marks: vscode.Range[][] = Array.from({ length: HEAT_STEPS }, () => []);
    for (const l of annotations?.lines ?? []) if (l.overview) marks[l.bucket].push(document.lineAt(l.line).range);
    for (let step = 0; step < HEAT_STEPS; step++) editor.setDecorations(overview[step], marks[step]);
  }

  dispose(): void {
    disposeTypes(this.types);
  }
}

function disposeTypes(types: Types): void {
  vscode.Disposable.from(...types.heat, types.stale, ...types.overview).dispose();
}
