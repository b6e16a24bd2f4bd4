/** `vram-lens analyze FILE [--device N] [--top N] [--json] [--include-library] [--from E|T] [--to E|T]` */
import { stringifyExact, toReport } from '../../engine/analysis/report';
import { WINDOW_USAGE, analyzeFileArgument } from '../analyzeFile';
import type { ParsedArgs } from '../args';
import { intOption } from '../args';
import type { CliIO } from '../io';
import { renderAnalysis } from '../render';

export const analyzeUsage = `vram-lens analyze FILE [--device N] [--top N] [--json] [--include-library] [--library-path P] ${WINDOW_USAGE}`;
export const analyzeOptions = { valued: ['device', 'top', 'library-path', 'from', 'to'], flags: ['json', 'include-library'] };

export async function analyzeCommand(args: ParsedArgs, io: CliIO): Promise<number> {
  const top = intOption(args, 'top', 15, 1) ?? 15;
  const input = await analyzeFileArgument(args, io, 'analyze', analyzeUsage);
  if (!input) return 1;
  const { file, device, analysis } = input;
  if (args.options.has('json')) {
    io.out(stringifyExact(toReport(analysis, device)) + '\n');
  } else {
    io.out(renderAnalysis(file, analysis, { device, top }));
  }
  return 0;
}
