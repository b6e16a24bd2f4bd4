/**
 * `vram-lens whatif FILE [--device N] [--capacity 12GiB] [--alloc-conf expandable_segments:True,...]
 * [--memory-fraction F] [--table] [--json]`: the caching allocator replayed over the trace. First
 * the self-check (the recorded settings against what PyTorch recorded), then the prediction for the
 * settings and capacity asked, then the table over common GPU sizes.
 */
import { AllocatorStudy } from '../../engine/session/allocatorStudy';
import { AllocConfError } from '../../engine/allocator/settings';
import type { LineIndex } from '../../engine/analysis/lineIndex';
import { buildLineIndex } from '../../engine/analysis/lineIndex';
import { userFramePredicate } from '../../engine/analysis/frameFilter';
import { stringifyExact } from '../../engine/analysis/report';
import { parseGpuMemory } from '../../engine/text/format';
import type { Snapshot } from '../../engine/snapshot/model';
import { devicesOf } from '../../engine/snapshot/model';
import { StacksNotReadError } from '../../engine/snapshot/errors';
import { frameFilterOptions } from '../analyzeFile';
import type { ParsedArgs } from '../args';
import { UsageError, intOption } from '../args';
import type { CliIO } from '../io';
import { loadSnapshotFile } from '../io';
import type { DeviceWhatIf } from '../renderWhatIf';
import { renderWhatIf, whatIfJson } from '../renderWhatIf';

type WhatIfResults = DeviceWhatIf[];

export const whatifUsage =
  'vram-lens whatif FILE [--device N] [--capacity 12GiB] [--alloc-conf expandable_segments:True,...] [--memory-fraction F] [--table] [--json] [--include-library] [--library-path P]';
export const whatifOptions = {
  valued: ['device', 'capacity', 'alloc-conf', 'memory-fraction', 'library-path'],
  flags: ['json', 'table', 'include-library'],
};

/** How the command reads the file's stacks (tests compare the ways). */
export interface WhatifReadOptions {
  /**
   * 'lazily': first without the trace's stacks (`Snapshot.stacksNotRead`: faster to decode), which the
   * replay needs only where an allocation fails (its line) or memory was released before one; the
   * file is read again with them when it turns out they are needed. 'always': with them at once.
   * 'auto' (the default): 'always' for a question that will likely name a line (a capacity, the GPU
   * table: smaller GPUs run out), else 'lazily'.
   */
  readonly stacks?: 'auto' | 'lazily' | 'always';
}

export async function whatifCommand(args: ParsedArgs, io: CliIO, read: WhatifReadOptions = {}): Promise<number> {
  if (args.positionals.length !== 1) throw new UsageError(`whatif takes one snapshot file\nusage: ${whatifUsage}`);
  const file = args.positionals[0];
  const device = intOption(args, 'device', undefined);
  const capacityText = args.options.get('capacity');
  // A GPU's memory as GPUs are sold: 24GB is 24 GiB (parseGpuMemory).
  const capacity = typeof capacityText === 'string' ? parseGpuMemory(capacityText) : undefined;
  if (typeof capacityText === 'string' && (capacity === undefined || capacity <= 0)) throw new UsageError(`--capacity takes a size such as 12GB (a GPU's memory as GPUs are sold: 12 GiB), 24GiB or 8589934592 (bytes), not '${capacityText}'`);
  const fractionText = args.options.get('memory-fraction');
  const memoryFraction = typeof fractionText === 'string' ? Number(fractionText) : undefined;
  if (memoryFraction !== undefined && !(memoryFraction > 0 && memoryFraction <= 1)) throw new UsageError('--memory-fraction takes a number in (0, 1]');
  if (memoryFraction !== undefined && capacity === undefined) throw new UsageError('--memory-fraction needs --capacity (the GPU memory it is a fraction of)');
  const conf = args.options.get('alloc-conf');
  const allocConf = typeof conf === 'string' ? conf : undefined;

  const predict = (snapshot: Snapshot): WhatIfResults | undefined => {
    const devices = devicesOf(snapshot);
    if (device !== undefined && !devices.includes(device)) {
      io.err(`vram-lens: ${file}: no device ${device} in this snapshot (devices: ${devices.join(', ') || 'none'})\n`);
      return undefined;
    }
    const lineIndex = lazyLineIndex(() => buildLineIndex(snapshot, userFramePredicate(frameFilterOptions(args))));
    const studies: AllocatorStudy[] = (device === undefined ? devices : [device]).map((d) => new AllocatorStudy(snapshot, d));
    const table = args.options.has('table');
    try {
      return studies.map((study) => ({
        study,
        check: study.check(),
        result: study.whatIf({ allocConf, capacity, memoryFraction }, lineIndex),
        table: table ? study.table(lineIndex) : undefined,
      }));
    } catch (e) {
      if (e instanceof AllocConfError) throw new UsageError(`--alloc-conf: ${e.message}`);
      throw e;
    }
  };
  let results: WhatIfResults | undefined;
  try {
    const stacks = read.stacks ?? 'auto';
    const atOnce = stacks === 'always' || (stacks === 'auto' && (capacity !== undefined || args.options.has('table')));
    results = predict(await loadSnapshotFile(file, { stacks: atOnce }));
  } catch (e) {
    // Nothing was written yet: the same questions again, from the file read with its stacks.
    if (!(e instanceof StacksNotReadError)) throw e;
    results = predict(await loadSnapshotFile(file));
  }
  if (results === undefined) return 1;
  if (args.options.has('json')) io.out(stringifyExact(whatIfJson(results)) + '\n');
  else io.out(renderWhatIf(file, results, { allocConf, capacity }));
  return 0;
}

/** The line index, built the first time a line is asked for (only an OOM names one). */
function lazyLineIndex(build: () => LineIndex): LineIndex {
  let index: LineIndex | undefined;
  const get = () => (index ??= build());
  return {
    get lines() {
      return get().lines;
    },
    get selfLine() {
      return get().selfLine;
    },
    get inclusiveLines() {
      return get().inclusiveLines;
    },
    get frameLine() {
      return get().frameLine;
    },
  };
}
