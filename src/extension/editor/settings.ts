/** The editor annotation settings (`vramLens.inline.*`, `vramLens.annotations.*`, ...), read in one place. */
import type * as vscode from 'vscode';
import type { AnnotationOptions, InlineFigure } from '../../core/annotate/lineAnnotations';
import { DEFAULT_ANNOTATION_OPTIONS, INLINE_FIGURES } from '../../core/annotate/lineAnnotations';
import { affects, setting } from '../config';

export interface EditorSettings {
  readonly annotation: AnnotationOptions;
  /** Show the inline text (the heat marks stay either way). */
  readonly inline: boolean;
  readonly codeLens: boolean;
  /** Call stacks listed in a hover. */
  readonly hoverStacks: number;
}

const KEYS = ['inline.enabled', 'inline.figures', 'annotations.thresholdPercent', 'overviewRuler.lines', 'codeLens.enabled', 'hover.stacks'];

export function readEditorSettings(): EditorSettings {
  const figures = setting<unknown>('inline.figures', DEFAULT_ANNOTATION_OPTIONS.figures);
  const chosen = Array.isArray(figures) ? INLINE_FIGURES.filter((f: InlineFigure) => figures.includes(f)) : [...DEFAULT_ANNOTATION_OPTIONS.figures];
  const percent = Number(setting<number>('annotations.thresholdPercent', 1));
  return {
    annotation: {
      figures: chosen,
      thresholdFraction: Number.isFinite(percent) ? Math.min(100, Math.max(0, percent)) / 100 : DEFAULT_ANNOTATION_OPTIONS.thresholdFraction,
      overviewLines: Math.max(0, Math.floor(Number(setting<number>('overviewRuler.lines', DEFAULT_ANNOTATION_OPTIONS.overviewLines)) || 0)),
    },
    inline: setting<boolean>('inline.enabled', true),
    codeLens: setting<boolean>('codeLens.enabled', true),
    hoverStacks: Math.max(0, Math.floor(Number(setting<number>('hover.stacks', 3)) || 0)),
  };
}

export function affectsEditorSettings(event: vscode.ConfigurationChangeEvent): boolean {
  return KEYS.some((key) => affects(event, key));
}
