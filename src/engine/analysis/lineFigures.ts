/**
 * The per-line figures, declared once (spec: "Per-line figures"): the only place their keys are
 * spelled (test/unit/engine/analysis/lineFigureSpelling.test.ts fails on a key written anywhere else
 * under src/ or webview/). Each entry says what the figure is, how the analysis computes it (`rule`,
 * folded by `attributeLines` in lines.ts) and where it shows. Every list of figures derives from here:
 * the analysis' rows, the `analyze --json` line objects (in this order), the CLI's table, compare's
 * deltas and hover, the snapshot summary, the timeline's table, the inline text, the hover and the
 * `vramLens.inline.figures` setting. So a new figure is one entry here (plus a new kind of `rule` if
 * none fits), and test/unit/engine/analysis/lineFigures.test.ts plants one to prove it reaches every
 * surface. Code that needs one figure for what it means (the heat of a line is what it holds at the
 * peak) names it through `FIGURE`.
 */
import { Action } from '../snapshot/model';
import { formatBytes, formatCount, formatPercent } from '../text/format';

/**
 * How the analysis computes a figure: every event of `from` whose stack has a user line credits that
 * line (the innermost one, or every one on the stack for an inclusive figure) with its `value`, and a
 * line's values combine by `fold`. A figure needing another kind of event or value adds it here and in
 * `FigureFold` (lines.ts): that is its computation.
 */
export interface FigureRule {
  /** Trace events with one of these actions, or the blocks live at the device peak (spec: "Live at peak"). */
  readonly from: readonly Action[] | 'liveAtPeak';
  /** What one event adds: 1, its size, or the device's active bytes right after it (trace events only). */
  readonly value: 'one' | 'size' | 'activeAfter';
  readonly fold: 'sum' | 'max';
}

/** Where a figure shows besides the JSON, the hover, compare's deltas and the inline-text choices (which show every figure). */
interface Surfaces {
  /** Its column's header in the table of `vram-lens analyze`. */
  readonly cli?: string;
  /** Its column's header in the timeline's lines table (short: the table sits in a narrow side bar). */
  readonly table?: string;
  /** A column of the snapshot summary's table of top lines. */
  readonly summary?: boolean;
  /** A row of compare mode's hover (baseline, current, change). */
  readonly compare?: boolean;
}

interface FigureEntry<K extends string> extends Surfaces {
  readonly key: K;
  /** Words for tables and hovers. */
  readonly label: string;
  /** Its words after a number in running text (compare mode's note: `-6.1 GiB at peak vs baseline`); default: the label. */
  readonly words?: string;
  readonly unit: 'bytes' | 'count';
  /** Counted on every user frame of the stack (inclusive) rather than the innermost one (self). */
  readonly inclusive: boolean;
  readonly description: string;
  readonly rule: FigureRule;
  /** Read against the device peak: shown with its share of it (the hover, the default inline text). */
  readonly share?: boolean;
  /** Its short form in the inline text after a line (default: `<value> <label>`, with the share if `share`). */
  readonly inline?: (value: number, peakBytes: number) => string;
  /**
   * Not one of the contract's figures (../shared/spec/analysis.md) but VRAM Lens's own (docs/numbers.md): the
   * line objects of `analyze --json` carry it, but it does not make a line a row of `lines` (`toReport`).
   */
  readonly beyondContract?: boolean;
  /**
   * The key the figure had before it was renamed (the spec's name for it): the line objects of `analyze
   * --json` carry it too, with the same value, for one release (0.x: see README, "analyze --json"), and the
   * `vramLens.inline.figures` setting still takes it.
   */
  readonly formerKey?: string;
}

const ALLOCS = { from: [Action.Alloc], value: 'size', fold: 'sum' } as const;
const ALLOC_COUNT = { from: [Action.Alloc], value: 'one', fold: 'sum' } as const;
const PEAK_WHILE_ALLOCATING = { from: [Action.Alloc], value: 'activeAfter', fold: 'max' } as const;
const FREES = { from: [Action.FreeRequested], value: 'size', fold: 'sum' } as const;
const LIVE_AT_PEAK = { from: 'liveAtPeak', value: 'size', fold: 'sum' } as const;
/** PyTorch records a new segment (or mapped pages) with the stack of the allocation that needed it. */
const RESERVED_GROWTH = { from: [Action.SegmentAlloc, Action.SegmentMap], value: 'size', fold: 'sum' } as const;
const DEVICE_CALLS = { from: [Action.SegmentAlloc, Action.SegmentMap, Action.SegmentFree, Action.SegmentUnmap], value: 'one', fold: 'sum' } as const;

/** In this order in the JSON line objects (a contract: append new figures at the end), the hover and the setting. */
const FIGURES = [
  {
    key: 'liveAtPeakBytes',
    label: 'live at peak',
    unit: 'bytes',
    inclusive: false,
    description: 'Bytes this line allocated that are live at the device peak.',
    words: 'at peak',
    rule: LIVE_AT_PEAK,
    share: true,
    inline: (v, peak) => `${formatBytes(v)} at peak (${formatPercent(v, peak)})`,
    cli: 'live@peak',
    table: 'At peak',
    summary: true,
    compare: true,
  },
  {
    key: 'allocBytes',
    label: 'allocated',
    unit: 'bytes',
    inclusive: false,
    description: 'Bytes this line allocated over the whole recording.',
    rule: ALLOCS,
    inline: (v) => `+${formatBytes(v)}`,
    cli: 'allocated',
    table: 'Alloc.',
    summary: true,
    compare: true,
  },
  {
    key: 'allocCount',
    label: 'allocations',
    unit: 'count',
    inclusive: false,
    description: 'Number of allocations made by this line.',
    rule: ALLOC_COUNT,
    inline: (v) => `x${v}`,
    cli: 'count',
    compare: true,
  },
  {
    key: 'freedBytes',
    label: 'freed',
    unit: 'bytes',
    inclusive: false,
    description: 'Bytes whose free was requested from this line; only frees recorded with their stacks count.',
    rule: FREES,
    inline: (v) => `-${formatBytes(v)} freed`,
  },
  {
    key: 'peakWhileAllocatingBytes',
    formerKey: 'peakBytes',
    label: 'peak while allocating',
    unit: 'bytes',
    inclusive: false,
    description: 'The highest active memory right after an allocation of this line.',
    rule: PEAK_WHILE_ALLOCATING,
    inline: (v) => `peak ${formatBytes(v)}`,
    compare: true,
  },
  {
    key: 'inclusiveLiveAtPeakBytes',
    label: 'live at peak (incl. callees)',
    unit: 'bytes',
    inclusive: true,
    description: 'Bytes live at the device peak allocated by this line or anything it called.',
    words: 'at peak in calls',
    rule: LIVE_AT_PEAK,
    share: true,
    inline: (v, peak) => `${formatBytes(v)} at peak in calls (${formatPercent(v, peak)})`,
    cli: 'incl@peak',
    table: 'Incl.',
    summary: true,
    compare: true,
  },
  {
    key: 'inclusiveAllocBytes',
    label: 'allocated (incl. callees)',
    unit: 'bytes',
    inclusive: true,
    description: 'Bytes allocated by this line or anything it called.',
    words: 'allocated in calls',
    rule: ALLOCS,
    inline: (v) => `+${formatBytes(v)} in calls`,
    compare: true,
  },
  {
    key: 'inclusivePeakWhileAllocatingBytes',
    formerKey: 'inclusivePeakBytes',
    label: 'peak while allocating (incl. callees)',
    unit: 'bytes',
    inclusive: true,
    description: 'The highest active memory right after an allocation by this line or anything it called.',
    words: 'peak while allocating in calls',
    rule: PEAK_WHILE_ALLOCATING,
    inline: (v) => `peak ${formatBytes(v)} in calls`,
    summary: true,
  },
  {
    key: 'reservedGrowthBytes',
    label: 'reserved grown',
    unit: 'bytes',
    inclusive: false,
    description: "Bytes of segments the caching allocator cudaMalloc'd (or pages it mapped) for this line's allocations.",
    words: 'reserved grown',
    rule: RESERVED_GROWTH,
    inline: (v) => `grew reserved by ${formatBytes(v)}`,
    compare: true,
    beyondContract: true,
  },
  {
    key: 'deviceCallCount',
    label: 'cudaMalloc/cudaFree calls',
    unit: 'count',
    inclusive: false,
    description:
      "cudaMalloc and cudaFree calls recorded under this line (segments made or released, pages mapped or unmapped): its allocations' new segments and the releases they forced, and the releases of empty_cache() called here (recorded with context='all').",
    words: 'cudaMalloc/cudaFree calls',
    rule: DEVICE_CALLS,
    inline: (v) => `${v} cudaMalloc/cudaFree`,
    compare: true,
    beyondContract: true,
  },
] as const satisfies readonly FigureEntry<string>[];

export type LineFigureKey = (typeof FIGURES)[number]['key'];
export type LineFigureSpec = FigureEntry<LineFigureKey>;
/** A list of figures every surface is a function of (`LINE_FIGURES`; tests plant one more). */
export type FigureRegistry = readonly LineFigureSpec[];

export const LINE_FIGURES: FigureRegistry = FIGURES;
export const LINE_FIGURE_KEYS: readonly LineFigureKey[] = LINE_FIGURES.map((f) => f.key);

/** A line's value of every figure. */
export type FigureValues = { readonly [K in LineFigureKey]: number };

/** The keys figures had before they were renamed (`formerKey`): `analyze --json` writes them too, for one release. */
export type FormerFigureKey = NonNullable<Extract<(typeof FIGURES)[number], { readonly formerKey: string }>['formerKey']>;

/** The figures of `source` under their former keys (the aliases `analyze --json` keeps for one release). */
export function formerFigureValues(source: FigureValues, figures: FigureRegistry = LINE_FIGURES): Partial<Record<FormerFigureKey, number>> {
  const values: Partial<Record<string, number>> = {};
  for (const { key, formerKey } of figures) if (formerKey !== undefined) values[formerKey] = source[key];
  return values;
}

/** The key a figure is known by now, for a key it had before (a setting written then), else undefined. */
export function currentFigureKey(former: string, figures: FigureRegistry = LINE_FIGURES): LineFigureKey | undefined {
  return figures.find((f) => f.formerKey === former)?.key;
}

/**
 * The figures other code reads for what they mean, by that meaning: the heat of a line is what it
 * holds at the peak, lines are ranked by it, compare's columns show it.
 */
export const FIGURE = {
  heldAtPeak: 'liveAtPeakBytes',
  heldAtPeakWithCalls: 'inclusiveLiveAtPeakBytes',
  allocated: 'allocBytes',
  allocatedWithCalls: 'inclusiveAllocBytes',
  allocations: 'allocCount',
  peakWhileAllocating: 'peakWhileAllocatingBytes',
} as const satisfies Record<string, LineFigureKey>;

/** How lines rank, most important figure first (the summary's top lines, compare's changed lines and its inline text). */
export const LINE_RANKING: readonly LineFigureKey[] = [FIGURE.heldAtPeak, FIGURE.heldAtPeakWithCalls, FIGURE.allocated];

export function lineFigure(key: LineFigureKey, figures: FigureRegistry = LINE_FIGURES): LineFigureSpec {
  const spec = figures.find((f) => f.key === key);
  if (spec === undefined) throw new Error(`unknown line figure ${key}`);
  return spec;
}

/** The registry's figures of `source` (a line's figures, a row), as a plain object in registry order. */
export function figureValues(source: FigureValues, figures: FigureRegistry = LINE_FIGURES): FigureValues {
  const values: Partial<Record<LineFigureKey, number>> = {};
  for (const { key } of figures) values[key] = source[key];
  return values as FigureValues;
}

/** Every figure zero. */
export function zeroFigures(figures: FigureRegistry = LINE_FIGURES): FigureValues {
  const values: Partial<Record<LineFigureKey, number>> = {};
  for (const { key } of figures) values[key] = 0;
  return values as FigureValues;
}

function sameRule(a: FigureRule, b: FigureRule): boolean {
  const from = (r: FigureRule) => (typeof r.from === 'string' ? r.from : r.from.join(','));
  return from(a) === from(b) && a.value === b.value && a.fold === b.fold;
}

/** The inclusive form of a self figure: the inclusive figure computed by the same rule (the hover pairs them). */
export function inclusiveFormOf(spec: LineFigureSpec, figures: FigureRegistry = LINE_FIGURES): LineFigureSpec | undefined {
  return spec.inclusive ? undefined : figures.find((f) => f.inclusive && sameRule(f.rule, spec.rule));
}

/**
 * The order tables show figures in: each self figure followed by its inclusive form, then inclusive
 * figures without a self form (the CLI, compare, the summary and the timeline take theirs from it).
 */
export function displayOrder(figures: FigureRegistry = LINE_FIGURES): LineFigureSpec[] {
  const out: LineFigureSpec[] = [];
  for (const spec of figures) {
    if (spec.inclusive) continue;
    out.push(spec);
    const inclusive = inclusiveFormOf(spec, figures);
    if (inclusive) out.push(inclusive);
  }
  for (const spec of figures) if (!out.includes(spec)) out.push(spec);
  return out;
}

/** The figures a surface shows, in display order. */
export function figuresOn(surface: keyof Surfaces, figures: FigureRegistry = LINE_FIGURES): LineFigureSpec[] {
  return displayOrder(figures).filter((f) => f[surface] !== undefined && f[surface] !== false);
}

/** A figure's value as a table cell: bytes in binary units, counts as digits. */
export function figureText(spec: LineFigureSpec, value: number): string {
  // Counts with thousands separators (19,430), as every view writes them.
  return spec.unit === 'bytes' ? formatBytes(value) : formatCount(value);
}

/** A figure's short form in the inline text after a line. */
export function inlineForm(spec: LineFigureSpec): (value: number, peakBytes: number) => string {
  if (spec.inline) return spec.inline;
  return (v, peak) => `${figureText(spec, v)} ${spec.label}${spec.share ? ` (${formatPercent(v, peak)})` : ''}`;
}

/** What the settings' `vramLens.inline.figures` offers (package.json holds it; a test compares them). */
export function inlineFiguresSetting(figures: FigureRegistry = LINE_FIGURES): { enum: string[]; enumDescriptions: string[] } {
  const GiB = 1024 ** 3;
  const example = (spec: LineFigureSpec) => inlineForm(spec)(spec.unit === 'bytes' ? 3.2 * GiB : 240, 22.8 * GiB);
  return {
    enum: figures.map((f) => f.key),
    enumDescriptions: figures.map((f) => `${f.description.replace(/\.$/, '')} (\`${example(f)}\`).`),
  };
}
