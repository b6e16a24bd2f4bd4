/**
 * What the advisor reports: one finding per observation, worded as evidence and a suggestion
 * (the snapshot shows what happened, never why), with the numbers it rests on.
 */
import type { LineFigureKey } from '../analysis/lineFigures';

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

/**
 * A figure a finding states about one line, in the terms of that line's table (the hover's, the
 * summary's, `vram-lens analyze`'s: `LineFigures`), so that a test can hold the two to one truth.
 * `equals`: the finding quotes the table's figure; `atMost`: the finding's figure is a part of it
 * (e.g. the activations made under a module call are part of what the call line holds at the peak).
 */
export interface LineFigureClaim {
  readonly file: string;
  readonly line: number;
  readonly figure: LineFigureKey;
  readonly relation: 'equals' | 'atMost';
  readonly value: number;
}

/** Another place that belongs to the finding (e.g. what was live at an OOM). */
export interface RelatedLocation {
  readonly file: string;
  readonly line: number;
  readonly message: string;
  /** `accumulation`: the statement that keeps a growing-memory finding's tensors (read again after edits). */
  readonly role?: 'accumulation';
}

/**
 * A mechanical edit a quick fix may apply, once the line's text confirms the pattern. Only edits that
 * provably leave what the program computes unchanged are fix kinds (docs/compare-and-advice.md).
 */
export type FixKind = 'in-place-operator';

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
  /** What the finding states about lines, as their tables give it (every such figure in its words is here). */
  readonly lineFigures?: readonly LineFigureClaim[];
  readonly related?: readonly RelatedLocation[];
  /** The kind of mechanical fix that may apply to the line. */
  readonly fix?: FixKind;
  /**
   * Gradient recording was off where the line ran, as the source of its frames shows (a caller's
   * `with torch.no_grad():` counts): the in-place fix's safety check reads it from here.
   */
  readonly gradDisabled?: boolean;
  /** The line ran on a CUDA device (a PyTorch CUDA memory snapshot): the in-place fix's dtype check reads it from here. */
  readonly ranOnCuda?: boolean;
  /** The fix as edits (alternatives), when the line's text was known and matched the pattern. */
  readonly quickFixes?: readonly LineEdit[];
}

/**
 * The finding with the trace events its evidence names (keys ending in `Event` or `Events`) counted as
 * the recording numbers them: `first` is the index in the recording of the loaded trace's first event
 * (a window's; 0 for the whole recording, which returns the finding as it is). The words already
 * name events this way (`AdviceContext.eventName`); evidence keeps the loaded trace's indices for the
 * views that place findings on it, and this is for what is printed.
 */
export function inRecordingNumbers(finding: Finding, first: number): Finding {
  if (first === 0) return finding;
  const evidence: Record<string, number | readonly number[]> = {};
  for (const [key, value] of Object.entries(finding.evidence)) {
    if (key.endsWith('Event') && typeof value === 'number' && value >= 0) evidence[key] = first + value;
    else if (key.endsWith('Events') && typeof value !== 'number') evidence[key] = value.map((v) => (v >= 0 ? first + v : v));
    else evidence[key] = value;
  }
  return { ...finding, evidence };
}
