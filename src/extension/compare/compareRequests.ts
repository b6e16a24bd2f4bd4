/**
 * What the comparison panel posts, free of `vscode`: the comparison's view (device totals, the lines
 * ranked by change, where each side's line is) and the overlay of both runs' memory on the axis the
 * page asked for, from the compared snapshots' workers. The view (compareView.ts) owns the panel and
 * decides when to post them; the page's commands run through `COMPARE_COMMANDS` only.
 */
import type { LineDelta } from '../../engine/compare/diff';
import { changedLines } from '../../engine/compare/diff';
import type { OverlayAxis } from '../../engine/compare/overlay';
import { alignTotals } from '../../engine/compare/overlay';
import { lineDeltaReport } from '../../engine/compare/report';
import type { SeriesAxis } from '../../engine/compare/totals';
import { errorMessage, userMessage } from '../../engine/base/errors';
import { lineLabel, placeOf } from '../../engine/paths/places';
import type { CompareCommand, ComparisonView, HostToCompare, RowView } from '../../protocol/compare';
import type { LineAt } from '../../protocol/openLine';
import type { WorkerCall } from '../../protocol/worker';
import type { ActiveComparison } from '../shared/compareMode';
import { commandAllowlist } from '../shared/webviewCommands';

/** Rows sent to the page (the most changed first). */
const MAX_ROWS = 500;
const OVERLAY_POINTS = 400;
/** The axes the page may ask the overlay on. */
export const AXES: readonly OverlayAxis[] = ['event', 'time', 'normalized'];

/** What the page's buttons may run. */
export const COMPARE_COMMANDS = commandAllowlist<CompareCommand>(['compareSnapshots', 'exitCompareMode']);

/** The last two components of a recorded path (`cs336_basics/model.py`): short, and the same on any machine. */
function shortPlace(file: string): string {
  return file.replace(/\\/g, '/').split('/').slice(-2).join('/');
}

/** Where a side's line is, for the page's `openLine`; none when the side has no line, or a line number beyond any editor's. */
function lineAt(side: LineDelta['baseline']): LineAt | null {
  return side && typeof side.line === 'number' ? { file: side.file, line: side.line } : null;
}

/** The comparison as the page shows it; `hasTimes`: whether both runs have timestamps (the time axis is offered). */
export function comparisonView(active: ActiveComparison, hasTimes: boolean): ComparisonView {
  const c = active.comparison;
  const changed = changedLines(c);
  const changedLineCount = changed.length;
  const rows = changed.slice(0, MAX_ROWS).map((l): RowView => {
    const r = lineDeltaReport(l);
    return {
      place: placeOf(l.file, active.places) ? lineLabel(l.file, l.line, active.places) : `${shortPlace(l.file)}:${String(l.line)}`,
      file: l.file,
      match: r.match,
      baselineLine: l.baseline ? String(l.baseline.line) : null,
      currentLine: l.current ? String(l.current.line) : null,
      baselineAt: lineAt(l.baseline),
      currentAt: lineAt(l.current),
      baseline: l.baseline?.figures ?? null,
      current: l.current?.figures ?? null,
      delta: l.delta,
    };
  });
  return { baseline: c.baseline, current: c.current, totalsDelta: c.totalsDelta, rows, changedLineCount, hasTimes };
}

/**
 * The overlay of both runs' totals on `axis`, from their snapshots' workers (undefined: a compared
 * snapshot was closed), or an `error` saying why not; `log` hears the error's own words.
 */
export async function overlayAnswer(active: ActiveComparison, axis: OverlayAxis, worker: (snapshotId: string) => WorkerCall | undefined, log: (message: string) => void): Promise<HostToCompare> {
  const seriesAxis: SeriesAxis = axis === 'time' ? 'time' : 'event';
  try {
    const series = await Promise.all(
      [active.baseline, active.current].map((s) => {
        const call = worker(s.snapshotId);
        if (!call) throw new Error('a compared snapshot was closed');
        return call('totals', { device: s.device, axis: seriesAxis, points: OVERLAY_POINTS * 8 });
      }),
    );
    return { type: 'overlay', overlay: alignTotals(series[0], series[1], axis, OVERLAY_POINTS) };
  } catch (e) {
    log(errorMessage(e));
    return { type: 'error', message: userMessage(e) };
  }
}
