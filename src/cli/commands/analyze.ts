/** `vram-lens analyze FILE [--device N] [--top N] [--json] [--include-library]` */
import { analyzeSnapshot } from '../../core/analysis/analyze';
import { stringifyExact, toReport } from '../../core/analysis/report';
import type { ParsedArgs } from '../args';
import { UsageError, intOption } from '../args';
import type { CliIO } from '../io';
import { loadSnapshotFile } from '../io';
import { renderAnalysis } from '../render';

export const analyzeUsage = 'vram-lens analyze FILE [--device N] [--top N] [--json] [--include-library] [--library-path P]';
export const analyzeOptions = { valued: ['device', 'top', 'library-path'], flags: ['json', 'include-library'] };

export async function analyzeCommand(args: ParsedArgs, io: CliIO): Promise<number> {
  if (args.positionals.length !== 1) throw new UsageError(`analyze takes one snapshot file\nusage: ${analyzeUsage}`);
  const file = args.positionals[0];
  const device = intOption(args, 'device', undefined);
  const top = intOption(args, 'top', 15, 1) ?? 15;
  const libraryPath = args.options.get('library-path');
  const snapshot = await loadSnapshotFile(file);
  const analysis = analyzeSnapshot(snapshot, {
    includeLibraryFrames: args.options.has('include-library'),
    extraLibraryPaths: typeof libraryPath === 'string' ? libraryPath.split(',') : [],
  });
  if (device !== undefined && !analysis.devices.some((d) => d.device === device)) {
    const known = analysis.devices.map((d) => d.device).join(', ') || 'none';
    io.err(`vram-lens: ${file}: no device ${device} in this snapshot (devices: ${known})\n`);
    return 1;
  }
  if (args.options.has('json')) {
    io.out(stringifyExact(toReport(analysis, device)) + '\n');
  } else {
    io.out(renderAnalysis(file, analysis, { device, top }));
  }
  return 0;
}
