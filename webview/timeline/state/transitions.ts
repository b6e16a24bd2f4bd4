/**
 * The timeline page's state transitions, pure: what the view state becomes when the host lists the
 * snapshots, when the view moves to another snapshot or device, when a line is focused and when the
 * table is sorted. The store (store.ts) takes what they give; no DOM, so they are tested in Node.
 */
import type { LineBlocks, SnapshotChoice, Target } from '../../../src/protocol/timeline';
import type { SortKey, ViewState } from './state';

/**
 * The target to show when the host lists the loaded snapshots: the one shown before, unless the
 * host's active snapshot changed since the page last saw it (then that one); the device kept when
 * it is the same snapshot and it still has that device. Undefined when nothing is loaded.
 */
export function onSnapshots(state: ViewState, snapshots: readonly SnapshotChoice[], activeId: string | undefined): { readonly target: Target; readonly state: ViewState } | undefined {
  if (snapshots.length === 0) return undefined;
  let chosen = snapshots.find((s) => s.id === state.snapshotId);
  const activeChanged = activeId !== undefined && activeId !== state.seenActiveId;
  if (!chosen || activeChanged) chosen = snapshots.find((s) => s.id === activeId) ?? chosen ?? snapshots[0];
  const keepDevice = chosen.id === state.snapshotId && state.device !== undefined && chosen.devices.some((d) => d.device === state.device);
  const device = keepDevice ? state.device : chosen.device;
  return { target: { snapshotId: chosen.id, device }, state: { ...state, seenActiveId: activeId } };
}

/** The state once the view shows `target`: another snapshot or device forgets the zoom, the pin, the line and the chosen moment. */
export function onTarget(state: ViewState, target: Target): ViewState {
  if (state.snapshotId === target.snapshotId && state.device === target.device) return state;
  return { ...state, snapshotId: target.snapshotId, device: target.device, x0: undefined, x1: undefined, y0: undefined, y1: undefined, pinnedRecord: undefined, focusLine: undefined, moment: undefined };
}

/** The state when a line's blocks are focused: the line selected and its first (named or largest) block pinned. */
export function onFocusBlocks(state: ViewState, blocks: LineBlocks): ViewState {
  return { ...state, focusLine: blocks.lineId, pinnedRecord: blocks.blocks[0]?.record };
}

/** Sorting by a column: the same column again flips the order; another one starts largest first (the line column A to Z). */
export function onSort(state: ViewState, key: SortKey): ViewState {
  const descending = key === state.sortKey ? !state.sortDescending : key !== 'line';
  return { ...state, sortKey: key, sortDescending: descending };
}
