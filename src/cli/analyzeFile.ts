/** What the commands that analyse snapshot files share: the frame filter options and the one-file start. */
import type { Analysis } from '../engine/analysis/analyze';
import type { FrameFilterOptions } from '../engine/analysis/frameFilter';
import { PROFILER_LIBRARY_PATHS } from '../engine/analysis/frameFilter';
import { analyzeSnapshot } from '../engine/analysis/analyze';
import type { ParsedArgs } from './args';
import { UsageError, intOption } from './args';
import type { LoadWindow } from '../engine/snapshot/model';
import { parseLoadWindow } from '../engine/snapshot/window';
import type { CliIO } from './io';
import { loadSnapshotFile } from './io';
import type { CellSources } from './notebooks';
import { NOTEBOOK_OPTION, cellSourcesOf } from './notebooks';

/**
 * `--include-library` and `--library-path P[,P...]`; the Profile VRAM bootstrap is library code, as in the
 * extension. With `--notebook`, old IPython's `<ipython-input-N-…>` cells are the user's code too.
 */
export function frameFilterOptions(args: ParsedArgs): FrameFilterOptions {
  const libraryPath = args.options.get('library-path');
  return {
    includeLibraryFrames: args.options.has('include-library'),
    extraLibraryPaths: [...(typeof libraryPath === 'string' ? libraryPath.split(',') : []), ...PROFILER_LIBRARY_PATHS],
    ...(args.repeated.has(NOTEBOOK_OPTION) ? { ipythonInputCells: true } : {}),
  };
}

/** `--from X --to Y`: usage words for the commands that take them. */
export const WINDOW_USAGE = '[--from E|T] [--to E|T]';

/** `--from` and `--to`: a window of the recording to load (`parseLoadWindow` says how they read). */
function windowOption(args: ParsedArgs): LoadWindow | undefined {
  const text = (name: string) => {
    const raw = args.options.get(name);
    return typeof raw === 'string' ? raw : undefined;
  };
  const window = parseLoadWindow(text('from'), text('to'));
  if (window !== undefined && 'problem' in window) throw new UsageError(`--from/--to: ${window.problem}`);
  return window;
}

/** Every file a line of the analysis names. */
export function recordedFiles(analysis: Analysis): Set<string> {
  const files = new Set<string>();
  for (const d of analysis.devices) for (const l of d.lines) files.add(l.file);
  return files;
}

/**
 * The snapshot FILE (the one positional) analysed with the frame filter options, and `--device`
 * when given; undefined (after saying why on stderr) when the snapshot has no such device.
 */
export async function analyzeFileArgument(
  args: ParsedArgs,
  io: CliIO,
  command: string,
  usage: string,
): Promise<{ file: string; device: number | undefined; analysis: Analysis; cells: CellSources | undefined } | undefined> {
  if (args.positionals.length !== 1) throw new UsageError(`${command} takes one snapshot file\nusage: ${usage}`);
  const file = args.positionals[0];
  const device = intOption(args, 'device', undefined);
  const analysis = analyzeSnapshot(await loadSnapshotFile(file, { window: windowOption(args) }, io), frameFilterOptions(args));
  if (device !== undefined && !analysis.devices.some((d) => d.device === device)) {
    const known = analysis.devices.map((d) => d.device).join(', ') || 'none';
    io.err(`vram-lens: ${file}: no device ${device} in this snapshot (devices: ${known})\n`);
    return undefined;
  }
  return { file, device, analysis, cells: cellSourcesOf(args, file, recordedFiles(analysis), io) };
}
