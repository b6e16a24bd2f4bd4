/**
 * The what-if panel's words, DOM-free (tested in Node): the self-check's verdict, a prediction's
 * figures, an OOM, and a cell of the table over GPU sizes. Lines are returned as parts, so the page
 * can make the recorded line a link where the file is on this machine.
 */
import { recordingStartText } from '../../src/engine/allocator/whatIf';
import { baseName } from '../../src/engine/paths/recordedPath';
import { formatBytes, formatCount } from '../../src/engine/text/format';
import type { WhatIfCell, WhatIfOom, WhatIfQuestion, WhatIfResult } from '../../src/protocol/whatIf';


/** A sentence with the OOM's line in it: text before, the line (file, number), text after. */
export interface LineText {
  readonly before: string;
  readonly line: { readonly file: string; readonly line: number; readonly label: string } | undefined;
  readonly after: string;
}

/** The device memory a prediction ran on, in words. */
export function capacityText(result: WhatIfResult, question: WhatIfQuestion | undefined, recordedCapacity: number | null): string {
  if (result.capacityBytes === null) return 'no memory limit';
  const fraction = question?.memoryFraction;
  const fractionText = fraction !== null && fraction !== undefined && fraction < 1 ? ` x ${fraction} (set_per_process_memory_fraction)` : '';
  const asked = question?.capacityBytes !== null && question?.capacityBytes !== undefined;
  if (!asked && recordedCapacity !== null && result.capacityBytes === recordedCapacity) return `the ${formatBytes(result.capacityBytes, 2)} the recording had${fractionText}`;
  // The bytes used, so that how the size was read is plain: "a GPU of 12.00 GiB (12,884,901,888 bytes)".
  return `a GPU of ${formatBytes(result.capacityBytes, 2)} (${formatCount(result.capacityBytes)} bytes)${fractionText}`;
}

/** A prediction's figures, one sentence each (first, why it is no plain replay from the recording's start, when it is not). */
export function resultLines(r: WhatIfResult): string[] {
  const lines = r.start === null ? [] : [recordingStartText(r.start)];
  if (!r.replayed) return lines;
  lines.push(
    `Peak reserved: ${formatBytes(r.peakReservedBytes)} (${formatBytes(r.reservedFreeAtPeakBytes)} of it reserved but not allocated at that peak)`,
    `cudaMalloc calls: ${formatCount(r.cudaMallocs)} (cudaFree: ${formatCount(r.cudaFrees)})`,
  );
  if (r.recordedOomsAvoided > 0) lines.push(`The recorded out-of-memory error${r.recordedOomsAvoided === 1 ? ' does' : 's do'} not happen (${formatCount(r.recordedOomsAvoided)})`);
  return lines;
}

function lineOf(o: WhatIfOom): LineText['line'] {
  return o.file !== null && o.line !== null ? { file: o.file, line: o.line, label: `${baseName(o.file)}:${o.line}` } : undefined;
}

/** The first OOM of a prediction: where, what was asked, the state of the cache, the cause. */
export function oomText(o: WhatIfOom | null): LineText {
  if (!o) return { before: 'Out of memory: no allocation fails.', line: undefined, after: '' };
  const line = lineOf(o);
  const cause =
    o.cause === 'fragmentation'
      ? 'fragmentation: enough memory was free in the cache, but no block large enough'
      : 'capacity: not enough free memory, cached or on the device';
  return {
    before: `First out-of-memory error at event ${formatCount(o.event)}${line ? ' (' : ' (no line of your code'}`,
    line,
    after: `): ${formatBytes(o.requestedBytes)} asked with ${formatBytes(o.reservedBytes)} reserved, largest free block ${formatBytes(o.largestFreeBytes)}. Cause: ${cause}.${o.recorded ? ' The recording ran out here too.' : ''}`,
  };
}

/** A cell of the table: fits, where it runs out, or unknown (the engine's verdict, `WhatIfCell.fits`). */
export function cellText(cell: WhatIfCell): { readonly fits: boolean | undefined; readonly text: string; readonly line: LineText['line']; readonly title: string } {
  const start = cell.start === null ? '' : recordingStartText(cell.start);
  if (cell.fits === null) return { fits: undefined, text: 'unknown', line: undefined, title: start };
  if (cell.fits) return { fits: true, text: 'fits', line: undefined, title: [`Fits: peak reserved ${formatBytes(cell.peakReservedBytes ?? 0)}`, start].filter((t) => t !== '').join('. ') };
  const o = cell.oom;
  if (!o) return { fits: false, text: 'OOM', line: undefined, title: start || 'Runs out of memory' };
  const line = lineOf(o);
  return {
    fits: false,
    text: line ? 'OOM at' : `OOM at event ${formatCount(o.event)}`,
    line,
    title: [`Runs out at event ${formatCount(o.event)}: ${formatBytes(o.requestedBytes)} asked with ${formatBytes(o.reservedBytes)} reserved, largest free block ${formatBytes(o.largestFreeBytes)} (${o.cause})`, start]
      .filter((t) => t !== '')
      .join('. '),
  };
}

/** A GPU size as the table's rows name it (8 GB ... 80 GB are GiB, as GPUs are sold). */
export function gpuSizeText(bytes: number): string {
  return `${Math.round(bytes / 2 ** 30)} GB`;
}

/**
 * A column's heading under its settings: the peak its replay reaches with no memory limit (which can
 * pass what the recording reserved, where the recording ran short and released cached memory), and
 * its title, with the recording's own reserved peak for the recorded settings.
 */
export function columnPeakText(peakBytes: number, kind: string, recordedPeakBytes: number | undefined): { readonly text: string; readonly title: string } {
  const recorded = kind === 'recorded' && recordedPeakBytes !== undefined ? `; the recording itself reserved at most ${formatBytes(recordedPeakBytes)}` : '';
  return {
    text: `no limit: peak ${formatBytes(peakBytes)}`,
    title: `Replayed with no memory limit, these settings reserve at most ${formatBytes(peakBytes)}${recorded}. The rows below replay each GPU size.`,
  };
}

/** What the replay cannot see, said once under the results. */
export const BLIND_SPOTS =
  'The replay sees only what PyTorch\'s caching allocator does. The CUDA context (often 300-500 MiB), NCCL buffers, ' +
  'other libraries\' allocations and other processes take their share of the GPU first: leave room for them.';
