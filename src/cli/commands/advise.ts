/**
 * `vram-lens advise FILE [--device N] [--json] [--include-library] [--library-path P] [--notebook PATH]...`: the
 * advisor's findings (evidence and suggestions), with quick-fix edits where the source on disk
 * shows the pattern.
 */
import { stringifyExact } from '../../engine/analysis/report';
import { advise } from '../../engine/advice/advise';
import { WINDOW_USAGE, analyzeFileArgument } from '../analyzeFile';
import type { ParsedArgs } from '../args';
import type { CliIO } from '../io';
import { renderFindings } from '../renderAdvice';
import { inRecordingNumbers } from '../../engine/advice/finding';
import { diskLineText } from '../sourceFiles';
import { NOTEBOOK_OPTION, notebookUsage, placedFinding } from '../notebooks';

export const adviseUsage = `vram-lens advise FILE [--device N] [--json] [--src DIR] [--include-library] [--library-path P] ${notebookUsage} ${WINDOW_USAGE}`;
export const adviseOptions = { valued: ['device', 'src', 'library-path', NOTEBOOK_OPTION, 'from', 'to'], flags: ['json', 'include-library'], repeatable: [NOTEBOOK_OPTION] };

export async function adviseCommand(args: ParsedArgs, io: CliIO): Promise<number> {
  const input = await analyzeFileArgument(args, io, 'advise', adviseUsage);
  if (!input) return 1;
  const { file, device, analysis, cells } = input;
  const src = args.options.get('src');
  const onDisk = diskLineText(typeof src === 'string' ? src : undefined);
  const places = cells?.places;
  // Printed with events as the recording numbers them (a window's evidence counts from its first event).
  const first = (d: number) => analysis.snapshot.traces[d]?.window?.firstEvent ?? 0;
  const findings = advise(analysis, { device, lineText: cells ? cells.lineText(onDisk) : onDisk, places }).map((f) => inRecordingNumbers(f, first(f.device)));
  if (args.options.has('json')) io.out(stringifyExact({ findings: findings.map((f) => placedFinding(f, places)) }) + '\n');
  else io.out(renderFindings(file, findings, places));
  return 0;
}
