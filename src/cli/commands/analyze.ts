/** `vram-lens analyze FILE [--device N] [--top N] [--json] [--include-library] [--notebook PATH]... [--from E|T] [--to E|T]` */
import { stringifyExact, toReport } from '../../engine/analysis/report';
import { LINE_FIGURES } from '../../engine/analysis/lineFigures';
import { WINDOW_USAGE, analyzeFileArgument } from '../analyzeFile';
import type { ParsedArgs } from '../args';
import { intOption } from '../args';
import type { CliIO } from '../io';
import { NOTEBOOK_OPTION, notebookUsage } from '../notebooks';
import { renderAnalysis } from '../render';
import { AllocatorStudy } from '../../engine/session/allocatorStudy';
import type { SelfCheckDetails } from '../../engine/allocator/selfCheck';
import { plainText } from '../../engine/text/plainText';
import { windowReplayProblem } from '../../engine/allocator/window';
import type { Snapshot } from '../../engine/snapshot/model';

/** The allocator replay's self-check in one line (none for a device whose trace allocates nothing). */
function selfCheckLine(d: SelfCheckDetails): string | undefined {
  const c = d.check;
  if (d.notReplayable !== undefined) return `no: ${plainText(d.notReplayable)}`;
  if (c.allocations === 0) return undefined;
  const counts = `${c.atRecordedAddress}/${c.allocations} allocations at PyTorch's addresses, ${c.segmentEventsReproduced}/${c.segmentEvents} segment events`;
  const departure = c.firstDeparture === null ? '' : `; departs at event ${c.firstDeparture.event}: ${plainText(c.firstDeparture.reason)}`;
  return `${counts} (allocator self-check; \`vram-lens whatif\` predicts)${departure}`;
}

/** The replay's line for a device: its self-check, or why it does not apply to a window. */
function allocatorLine(snapshot: Snapshot, device: number): string | undefined {
  const problem = windowReplayProblem(snapshot, device);
  if (problem?.kind === 'reservedUnknown') return `no: ${plainText(problem.words)}`;
  if (problem !== undefined) return 'no: the caching allocator replay needs the whole recording (run without --from/--to)';
  return selfCheckLine(new AllocatorStudy(snapshot, device).check());
}

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
    io.out(renderAnalysis(file, analysis, { device, top, places: cells?.places, allocator: (d) => allocatorLine(analysis.snapshot, d) }));
  }
  return 0;
}
