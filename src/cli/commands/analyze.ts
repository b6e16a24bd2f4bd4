/** `vram-lens analyze FILE [--device N] [--top N] [--json] [--include-library] [--notebook PATH]... [--from E|T] [--to E|T]` */
import { stringifyExact, toReport } from '../../engine/analysis/report';
import { LINE_FIGURES } from '../../engine/analysis/lineFigures';
import { WINDOW_USAGE, analyzeFileArgument } from '../analyzeFile';
import type { ParsedArgs } from '../args';
import { intOption } from '../args';
import type { CliIO } from '../io';
import { NOTEBOOK_OPTION, notebookUsage } from '../notebooks';
import { renderAnalysis } from '../render';

export const analyzeUsage = `vram-lens analyze FILE [--device N] [--top N] [--json] [--include-library] [--library-path P] ${notebookUsage} ${WINDOW_USAGE}`;
export const analyzeOptions = { valued: ['device', 'top', 'library-path', NOTEBOOK_OPTION, 'from', 'to'], flags: ['json', 'include-library'], repeatable: [NOTEBOOK_OPTION] };

export async function analyzeCommand(args: ParsedArgs, io: CliIO): Promise<number> {
  const top = intOption(args, 'top', 15, 1) ?? 15;
  const input = await analyzeFileArgument(args, io, 'analyze', analyzeUsage);
  if (!input) return 1;
  const { file, device, analysis, cells } = input;
  if (args.options.has('json')) {
    io.out(stringifyExact(toReport(analysis, device, LINE_FIGURES, cells?.places)) + '\n');
  } else {
    io.out(renderAnalysis(file, analysis, { device, top, places: cells?.places }));
  }
  return 0;
}
