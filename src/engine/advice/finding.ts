/**
 * What the advisor reports: one finding per observation, worded as evidence and a suggestion
 * (the snapshot shows what happened, never why), with the numbers it rests on.
 */

export type RuleId =
  | 'in-place-arithmetic'
  | 'empty-cache-in-loop'
  | 'growing-memory'
  | 'inference-without-no-grad'
  | 'activation-checkpointing'
  | 'optimizer-state'
  | 'mixed-precision'
  | 'fragmentation'
  | 'allocator-settings'
  | 'out-of-memory'
  | 'before-recording';

/** `error`: the run failed (an OOM); `warning`: memory was lost to this; `information`: worth measuring. */
export type Severity = 'information' | 'warning' | 'error';

/**
 * The numbers a finding rests on, by name. Names end in their unit: `...Bytes`, `...Count`,
 * `...Event` / `...Events` (trace event indices), `...Percent`.
 */
export type Evidence = Readonly<Record<string, number | readonly number[]>>;

/** Another place that belongs to the finding (e.g. what was live at an OOM). */
export interface RelatedLocation {
  readonly file: string;
  readonly line: number;
  readonly message: string;
}

/** A mechanical edit a quick fix may apply, once the line's text confirms the pattern. */
export type FixKind = 'in-place-operator' | 'detach-accumulation' | 'inference-mode';

/**
 * A source edit: replace from (`line`, `startColumn`) to (`endLine`, `endColumn`) (1-based lines,
 * 0-based columns, end exclusive) with `newText`. Every edit offered was checked to leave the file
 * parsing as Python.
 */
export interface LineEdit {
  readonly title: string;
  readonly file: string;
  readonly line: number;
  readonly startColumn: number;
  readonly endLine: number;
  readonly endColumn: number;
  readonly newText: string;
}

export interface Finding {
  readonly rule: RuleId;
  readonly severity: Severity;
  readonly device: number;
  /** The user line the finding is about, when there is one. */
  readonly file?: string;
  readonly line?: number;
  /** One line, for lists. */
  readonly title: string;
  /** Evidence, then suggestion; hedged ("may", "consider"), never a certainty. */
  readonly message: string;
  readonly evidence: Evidence;
  readonly related?: readonly RelatedLocation[];
  /** The kind of mechanical fix that may apply to the line. */
  readonly fix?: FixKind;
  /** The fix as edits (alternatives), when the line's text was known and matched the pattern. */
  readonly quickFixes?: readonly LineEdit[];
}
