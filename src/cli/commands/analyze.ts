/** `vram-lens analyze FILE [--device N] [--top N] [--json] [--include-library] [--notebook PATH]...` */
import { stringifyExact, toReport } from '../../engine/analysis/report';
import { LINE_FIGURES } from '../../engine/analysis/lineFigures';
import { analyzeFileArgument } from '../analyzeFile';
import type { ParsedArgs } from '../args';
import { intOption } from '../args';
import type { CliIO } from '../io';
import { NOTEBOOK_OPTION, notebookUsage } from '../notebooks';
import { renderAnalysis } from '../render';
import { AllocatorStudy } from '../../engine/session/allocatorStudy';
import type { SelfCheckDetails } from '../../engine/allocator/selfCheck';
import { plainText } from '../../engine/text/plainText';

/** The allocator replay's self-check in one line (none for a device whose trace allocates nothing). */
function selfCheckLine(d: SelfCheckDetails): string | undefined {
  const c = d.check;
  if (c.allocations === 0) return undefined;
  const counts = `${c.atRecordedAddress}/${c.allocations} allocations at PyTorch's addresses, ${c.segmentEventsReproduced}/${c.segmentEvents} segment events`;
  const departure = c.firstDeparture === null ? '' : `; departs at event ${c.firstDeparture.event}: ${plainText(c.firstDeparture.reason)}`;
  return `${counts} (allocator self-check; \`vram-lens whatif\` predicts)${departure}`;
}

export const analyzeUsage = `vram-lens analyze FILE [--device N] [--top N] [--json] [--include-library] [--library-path P] ${notebookUsage}`;
export const analyzeOptions = { valued: ['device', 'top', 'library-path', NOTEBOOK_OPTION], flags: ['json', 'include-library'], repeatable: [NOTEBOOK_OPTION] };

export async function analyzeCommand(args: ParsedArgs, io: CliIO): Promise<number> {
  const top = intOption(args, 'top', 15, 1) ?? 15;
  const input = await analyzeFileArgument(args, io, 'analyze', analyzeUsage);
  if (!input) return 1;
  const { file, device, analysis, cells } = input;
  if (args.options.has('json')) {
    io.out(stringifyExact(toReport(analysis, device, LINE_FIGURES, cells?.places)) + '\n');
  } else {
    io.out(renderAnalysis(file, analysis, { device, top, places: cells?.places, allocator: (d) => selfCheckLine(new AllocatorStudy(analysis.snapshot, d).check()) }));
  }
  return 0;
}
