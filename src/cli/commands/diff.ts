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
import { frameFilterOptions, recordedFiles } from '../analyzeFile';
import { NOTEBOOK_OPTION, cellSourcesOf, notebookUsage } from '../notebooks';
import type { CellPlaces } from '../../engine/paths/places';
import type { ParsedArgs } from '../args';
import { UsageError, intOption } from '../args';
import type { CliIO } from '../io';
import { InputError, loadSnapshotFile } from '../io';
import { renderComparison } from '../renderCompare';
import { diskLineText } from '../sourceFiles';

export const diffUsage = `vram-lens diff BASELINE CURRENT [--device N] [--device-b N] [--top N] [--json] [--src-a DIR] [--src-b DIR] [--overlay event|time|normalized] [--points N] ${notebookUsage}`;
export const diffOptions = {
  valued: ['device', 'device-b', 'top', 'src-a', 'src-b', 'overlay', 'points', 'library-path', NOTEBOOK_OPTION],
  flags: ['json', 'include-library'],
  repeatable: [NOTEBOOK_OPTION],
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
  const cellsA = cellSourcesOf(args, fileA, recordedFiles(a), io);
  const cellsB = fileB === fileA ? cellsA : cellSourcesOf(args, fileB, recordedFiles(b), io);
  const diskA = diskLineText(typeof srcA === 'string' ? srcA : undefined);
  const diskB = diskLineText(typeof srcB === 'string' ? srcB : undefined);
  const comparison = compareRuns(
    sideFromAnalysis(fileA, a, deviceA, cellsA ? cellsA.lineText(diskA) : diskA, cellsA?.places),
    sideFromAnalysis(fileB, b, deviceB, cellsB ? cellsB.lineText(diskB) : diskB, cellsB?.places),
  );
  // A cell name stands for one text whichever run recorded it: both runs' cells name lines together.
  const places: CellPlaces | undefined = cellsA || cellsB ? { ...cellsA?.places, ...cellsB?.places } : undefined;
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
    io.out(stringifyExact(toComparisonReport(comparison, changed, top, overlay, places)) + '\n');
  } else {
    io.out(renderComparison(comparison, changed, top ?? 15, places));
  }
  return 0;
}
