/** The editor annotation settings (`vramLens.inline.*`, `vramLens.annotations.*`, ...), read in one place. */
import type * as vscode from 'vscode';
import { DEFAULT_INLINE_MAX_LENGTH, inlineFigureChoice } from '../../engine/annotate/inlineFigures';
import type { AnnotationOptions } from '../../engine/annotate/lineAnnotations';
import { DEFAULT_ANNOTATION_OPTIONS } from '../../engine/annotate/lineAnnotations';
import { affects, setting } from './config';

export interface EditorSettings {
  readonly annotation: AnnotationOptions;
  /** Show the inline text (the heat marks stay either way). */
  readonly inline: boolean;
  /** The bar at the left edge of annotated lines, besides the gutter icons. */
  readonly lineBar: boolean;
  readonly codeLens: boolean;
  /** Call stacks listed in a hover. */
  readonly hoverStacks: number;
}

const KEYS = ['inline.enabled', 'inline.figures', 'inline.maxLength', 'annotations.lineBar', 'annotations.thresholdPercent', 'overviewRuler.lines', 'codeLens.enabled', 'hover.stacks'];

export function readEditorSettings(): EditorSettings {
  const chosen = inlineFigureChoice(setting<unknown>('inline.figures', DEFAULT_ANNOTATION_OPTIONS.figures));
  const maxLength = Math.floor(Number(setting<number>('inline.maxLength', DEFAULT_INLINE_MAX_LENGTH)));
  const percent = Number(setting<number>('annotations.thresholdPercent', 1));
  return {
    annotation: {
      figures: chosen,
      maxLength: Number.isFinite(maxLength) && maxLength > 0 ? maxLength : DEFAULT_INLINE_MAX_LENGTH,
      thresholdFraction: Number.isFinite(percent) ? Math.min(100, Math.max(0, percent)) / 100 : DEFAULT_ANNOTATION_OPTIONS.thresholdFraction,
      overviewLines: Math.max(0, Math.floor(Number(setting<number>('overviewRuler.lines', DEFAULT_ANNOTATION_OPTIONS.overviewLines)) || 0)),
    },
    inline: setting<boolean>('inline.enabled', true),
    lineBar: setting<boolean>('annotations.lineBar', false),
    codeLens: setting<boolean>('codeLens.enabled', true),
    hoverStacks: Math.max(0, Math.floor(Number(setting<number>('hover.stacks', 3)) || 0)),
  };
}

export function affectsEditorSettings(event: vscode.ConfigurationChangeEvent): boolean {
  return KEYS.some((key) => affects(event, key));
}
