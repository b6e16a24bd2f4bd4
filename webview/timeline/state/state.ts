/**
 * The UI state that survives hiding and showing the view (VS Code drops the page while it is
 * hidden): where the user looked, what they selected, how the table is filtered and sorted.
 * Data never goes here: the host sends it again.
 */
import type { AxisKind } from '../../../src/protocol/timeline';
import type { TableFigure } from './tableColumns';
import { TABLE_FIGURES } from './tableColumns';
import { FIGURE } from '../../../src/engine/analysis/lineFigures';

export type SortKey = 'line' | TableFigure;

/** What the chart shows: the blocks (allocated memory by line) or the allocator (reserved memory by segment). */
export type ViewMode = 'blocks' | 'allocator';

export interface ViewState {
  readonly snapshotId: string | undefined;
  readonly device: number | undefined;
  /** The host's active snapshot when the user last chose: a new active snapshot is followed. */
  readonly seenActiveId: string | undefined;
  readonly axis: AxisKind;
  readonly mode: ViewMode;
  /** The allocator view's chosen moment (a state: the memory right after event moment - 1), whose segment map is shown. */
  readonly moment: number | undefined;
  /** The visible x span; undefined shows everything. */
  readonly x0: number | undefined;
  readonly x1: number | undefined;
  /** The y range in bytes; undefined fits it to the window. */
  readonly y0: number | undefined;
  readonly y1: number | undefined;
  /** The pinned block (allocation record id) and the selected line. */
  readonly pinnedRecord: number | undefined;
  readonly focusLine: number | undefined;
  readonly filterFile: string;
  readonly filterStack: string;
  readonly minBytes: number;
  readonly sortKey: SortKey;
  readonly sortDescending: boolean;
}

export const INITIAL_STATE: ViewState = {
  snapshotId: undefined,
  device: undefined,
  seenActiveId: undefined,
  axis: 'event',
  mode: 'blocks',
  moment: undefined,
  x0: undefined,
  x1: undefined,
  y0: undefined,
  y1: undefined,
  pinnedRecord: undefined,
  focusLine: undefined,
  filterFile: '',
  filterStack: '',
  minBytes: 0,
  sortKey: FIGURE.heldAtPeak,
  sortDescending: true,
};

const SORT_KEYS: readonly SortKey[] = ['line', ...TABLE_FIGURES];

function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}
function int(v: unknown): number | undefined {
  return Number.isInteger(v) ? (v as number) : undefined;
}
function nonNegative(v: number | undefined): number | undefined {
  return v !== undefined && v >= 0 ? v : undefined;
}
function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

/** Reads a saved state defensively (it may come from an older version of the view). */
export function restoreState(saved: unknown): ViewState {
  if (typeof saved !== 'object' || saved === null) return INITIAL_STATE;
  const s = saved as Record<string, unknown>;
  const x0 = num(s.x0);
  const x1 = num(s.x1);
  const ranged = x0 !== undefined && x1 !== undefined && x1 > x0;
  const y0 = num(s.y0);
  const y1 = num(s.y1);
  const yRange = y0 !== undefined && y1 !== undefined && y1 > y0 && y0 >= 0;
  return {
    snapshotId: str(s.snapshotId),
    device: int(s.device),
    seenActiveId: str(s.seenActiveId),
    axis: s.axis === 'time' ? 'time' : 'event',
    mode: s.mode === 'allocator' ? 'allocator' : 'blocks',
    moment: nonNegative(int(s.moment)),
    x0: ranged ? x0 : undefined,
    x1: ranged ? x1 : undefined,
    y0: yRange ? y0 : undefined,
    y1: yRange ? y1 : undefined,
    pinnedRecord: int(s.pinnedRecord),
    focusLine: int(s.focusLine),
    filterFile: str(s.filterFile) ?? '',
    filterStack: str(s.filterStack) ?? '',
    minBytes: num(s.minBytes) ?? 0,
    sortKey: SORT_KEYS.includes(s.sortKey as SortKey) ? (s.sortKey as SortKey) : INITIAL_STATE.sortKey,
    sortDescending: typeof s.sortDescending === 'boolean' ? s.sortDescending : true,
  };
}
