/**
 * `vram-lens advise FILE [--device N] [--json] [--include-library] [--library-path P]`: the
 * advisor's findings (evidence and suggestions), with quick-fix edits where the source on disk
 * shows the pattern.
 */
import { stringifyExact } from '../../engine/analysis/report';
import { advise } from '../../engine/advice/advise';
import { WINDOW_USAGE, analyzeFileArgument } from '../analyzeFile';
import type { ParsedArgs } from '../args';
import type { CliIO } from '../io';
import { renderFindings } from '../renderAdvice';
import { diskLineText } from '../sourceFiles';

export const adviseUsage = `vram-lens advise FILE [--device N] [--json] [--src DIR] [--include-library] [--library-path P] ${WINDOW_USAGE}`;
export const adviseOptions = { valued: ['device', 'src', 'library-path', 'from', 'to'], flags: ['json', 'include-library'] };

export async function adviseCommand(args: ParsedArgs, io: CliIO): Promise<number> {
  const input = await analyzeFileArgument(args, io, 'advise', adviseUsage);
  if (!input) return 1;
  const { file, device, analysis } = input;
  const src = args.options.get('src');
  const findings = advise(analysis, { device, lineText: diskLineText(typeof src === 'string' ? src : undefined) });
  if (args.options.has('json')) io.out(stringifyExact({ findings }) + '\n');
  else io.out(renderFindings(file, findings));
  return 0;
}
