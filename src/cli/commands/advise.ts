/**
 * `vram-lens advise FILE [--device N] [--json] [--include-library] [--library-path P]`: the
 * advisor's findings (evidence and suggestions), with quick-fix edits where the source on disk
 * shows the pattern.
 */
import { analyzeSnapshot } from '../../core/analysis/analyze';
import { stringifyExact } from '../../core/analysis/report';
import { advise } from '../../core/advice/advise';
import type { ParsedArgs } from '../args';
import { UsageError, intOption } from '../args';
import type { CliIO } from '../io';
import { loadSnapshotFile } from '../io';
import { renderFindings } from '../renderAdvice';
import { diskLineText } from '../sourceFiles';

export const adviseUsage = 'vram-lens advise FILE [--device N] [--json] [--src DIR] [--include-library] [--library-path P]';
export const adviseOptions = { valued: ['device', 'src', 'library-path'], flags: ['json', 'include-library'] };

export async function adviseCommand(args: ParsedArgs, io: CliIO): Promise<number> {
  if (args.positionals.length !== 1) throw new UsageError(`advise takes one snapshot file\nusage: ${adviseUsage}`);
  const file = args.positionals[0];
  const device = intOption(args, 'device', undefined);
  const libraryPath = args.options.get('library-path');
  const src = args.options.get('src');
  const analysis = analyzeSnapshot(await loadSnapshotFile(file), {
    includeLibraryFrames: args.options.has('include-library'),
    extraLibraryPaths: typeof libraryPath === 'string' ? libraryPath.split(',') : [],
  });
  if (device !== undefined && !analysis.devices.some((d) => d.device === device)) {
    const known = analysis.devices.map((d) => d.device).join(', ') || 'none';
    io.err(`vram-lens: ${file}: no device ${device} in this snapshot (devices: ${known})\n`);
    return 1;
  }
  const findings = advise(analysis, { device, lineText: diskLineText(typeof src === 'string' ? src : undefined) });
  if (args.options.has('json')) io.out(stringifyExact({ findings }) + '\n');
  else io.out(renderFindings(file, findings));
  return 0;
}
