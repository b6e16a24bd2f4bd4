/**
 * `vram-lens diff A B [--device N] [--device-b N] [--top N] [--json] [--src-a DIR] [--src-b DIR]
 *  [--overlay event|time|normalized] [--points N] [--include-library] [--library-path P]`:
 * what changed between two runs, device totals and lines ranked by change in live-at-peak bytes.
 */
import type { Analysis } from '../../engine/analysis/analyze';
import { analyzeSnapshot } from '../../engine/analysis/analyze';
import { traceOf } from '../../engine/analysis/replay';
import { stringifyExact } from '../../engine/analysis/report';
import { changedLines, compareRuns } from '../../engine/compare/diff';
import type { OverlayAxis } from '../../engine/compare/overlay';
import { alignTotals } from '../../engine/compare/overlay';
import { toComparisonReport } from '../../engine/compare/report';
import { busiestDevice, sideFromAnalysis } from '../../engine/compare/side';
import { NoTimesError, downsampleTotals } from '../../engine/compare/totals';
import { frameFilterOptions } from '../analyzeFile';
import type { ParsedArgs } from '../args';
import { UsageError, intOption } from '../args';
import type { CliIO } from '../io';
import { InputError, loadSnapshotFile } from '../io';
import { renderComparison } from '../renderCompare';
import { diskLineText } from '../sourceFiles';

export const diffUsage =
  'vram-lens diff BASELINE CURRENT [--device N] [--device-b N] [--top N] [--json] [--src-a DIR] [--src-b DIR] [--overlay event|time|normalized] [--points N]';
export const diffOptions = {
  valued: ['device', 'device-b', 'top', 'src-a', 'src-b', 'overlay', 'points', 'library-path'],
  flags: ['json', 'include-library'],
};

const AXES: readonly OverlayAxis[] = ['event', 'time', 'normalized'];

function pickDevice(file: string, analysis: Analysis, asked: number | undefined): number {
  const known = analysis.devices.map((d) => d.device);
  if (asked !== undefined) {
    if (!known.includes(asked)) throw new InputError(`${file}: no device ${asked} in this snapshot (devices: ${known.join(', ') || 'none'})`);
    return asked;
  }
  const busiest = busiestDevice(analysis.devices);
  if (busiest === undefined) throw new InputError(`${file}: the snapshot holds no segments and no trace events: nothing to compare`);
  return busiest;
}

export async function diffCommand(args: ParsedArgs, io: CliIO): Promise<number> {
  if (args.positionals.length !== 2) throw new UsageError(`diff takes two snapshot files (baseline, then current)\nusage: ${diffUsage}`);
  const [fileA, fileB] = args.positionals;
  const top = intOption(args, 'top', undefined, 1);
  const points = intOption(args, 'points', 200, 2) ?? 200;
  const overlayAxis = args.options.get('overlay');
  if (overlayAxis !== undefined && !AXES.includes(overlayAxis as OverlayAxis)) throw new UsageError(`--overlay takes one of ${AXES.join(', ')}`);
  const filter = frameFilterOptions(args);
  const srcA = args.options.get('src-a');
  const srcB = args.options.get('src-b');

  const a = analyzeSnapshot(await loadSnapshotFile(fileA), filter);
  const b = fileB === fileA ? a : analyzeSnapshot(await loadSnapshotFile(fileB), filter);
  const deviceA = pickDevice(fileA, a, intOption(args, 'device', undefined));
  const deviceB = pickDevice(fileB, b, intOption(args, 'device-b', undefined) ?? intOption(args, 'device', undefined));
  const comparison = compareRuns(
    sideFromAnalysis(fileA, a, deviceA, diskLineText(typeof srcA === 'string' ? srcA : undefined)),
    sideFromAnalysis(fileB, b, deviceB, diskLineText(typeof srcB === 'string' ? srcB : undefined)),
  );
  const changed = changedLines(comparison);

  let overlay;
  if (overlayAxis !== undefined) {
    const axis = overlayAxis as OverlayAxis;
    const seriesAxis = axis === 'time' ? 'time' : 'event';
    try {
      const resolution = Math.max(points * 8, 2048);
      const sa = downsampleTotals(a.devices.find((d) => d.device === deviceA)!, traceOf(a.snapshot, deviceA).timeUs, seriesAxis, resolution);
      const sb = downsampleTotals(b.devices.find((d) => d.device === deviceB)!, traceOf(b.snapshot, deviceB).timeUs, seriesAxis, resolution);
      overlay = alignTotals(sa, sb, axis, points);
    } catch (e) {
      if (e instanceof NoTimesError) throw new InputError(`--overlay time: ${e.message}`);
      throw e;
    }
  }

  if (args.options.has('json')) {
    io.out(stringifyExact(toComparisonReport(comparison, changed, top, overlay)) + '\n');
  } else {
    io.out(renderComparison(comparison, changed, top ?? 15));
  }
  return 0;
}
