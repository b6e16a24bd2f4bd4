/** The `whatif` command's output: plain text for terminals, and the JSON shape of `--json`. */
import type { AllocatorStudy } from '../engine/session/allocatorStudy';
import type { SelfCheckDetails } from '../engine/allocator/selfCheck';
import type { WhatIfCell, WhatIfOom, WhatIfResult, WhatIfTable } from '../engine/allocator/whatIf';
import { recordingStartText } from '../engine/allocator/whatIf';
import { formatBytes, formatCount, formatPercent } from '../engine/text/format';
import { plainText } from '../engine/text/plainText';
import { shortPath } from './render';

export interface DeviceWhatIf {
  readonly study: AllocatorStudy;
  readonly check: SelfCheckDetails;
  readonly result: WhatIfResult;
  readonly table: WhatIfTable | undefined;
}

/** The six keys of an OOM in the JSON (the issue's contract). */
function oomJson(oom: WhatIfOom | null) {
  if (oom === null) return null;
  const { event, file, line, requestedBytes, reservedBytes, largestFreeBytes } = oom;
  return { event, file, line, requestedBytes, reservedBytes, largestFreeBytes };
}

export function whatIfJson(results: readonly DeviceWhatIf[]) {
  return {
    devices: results.map(({ check, result, table }) => {
      const { allocations, atRecordedAddress, segmentEvents, segmentEventsReproduced, firstDeparture } = check.check;
      return {
        device: check.device,
        selfCheck: { allocations, atRecordedAddress, segmentEvents, segmentEventsReproduced, firstDeparture },
        recordedSettings: check.settings,
        settings: result.settings,
        capacityBytes: result.capacityBytes,
        fits: result.fits,
        start: result.start,
        peakReservedBytes: result.peakReservedBytes,
        reservedFreeAtPeakBytes: result.reservedFreeAtPeakBytes,
        cudaMallocs: result.cudaMallocs,
        cudaFrees: result.cudaFrees,
        oom: oomJson(result.oom),
        oomCause: result.oom?.cause ?? null,
        oomRecorded: result.oom?.recorded ?? null,
        ...(table
          ? {
              table: {
                gpuSizesBytes: table.gpuSizesBytes,
                rows: table.rows.map((r) => ({
                  kind: r.kind,
                  label: r.label,
                  settings: r.settings,
                  peakReservedBytes: r.unlimited.peakReservedBytes,
                  cudaMallocs: r.unlimited.cudaMallocs,
                  cells: r.cells.map((c) => ({ capacityBytes: c.capacityBytes, fits: c.fits, peakReservedBytes: c.peakReservedBytes, oom: oomJson(c.oom), start: c.start })),
                })),
              },
            }
          : {}),
      };
    }),
  };
}

function settingsText(settings: string): string {
  return settings === '' ? 'PyTorch defaults' : settings;
}

function where(oom: WhatIfOom): string {
  const line = oom.file === null ? 'no line of your code' : `${shortPath(plainText(oom.file))}:${oom.line ?? '?'}`;
  return `event ${oom.event} (${line})`;
}

function renderCheck(c: SelfCheckDetails): string[] {
  const s = c.check;
  const out = [
    `  self-check with the recorded settings (${settingsText(c.settings)}${c.settingsRecorded ? '' : ', assumed: not recorded'}):`,
    `    ${s.atRecordedAddress} of ${s.allocations} allocations at the address PyTorch recorded (${formatPercent(s.atRecordedAddress, s.allocations || 1)}),` +
      ` ${s.segmentEventsReproduced} of ${s.segmentEvents} segment events reproduced` +
      (c.recordedOoms > 0 ? `, ${c.oomsReproduced} of ${c.recordedOoms} OOMs` : '') +
      `, ${c.finalBlocksMatching} of ${c.finalBlocks} blocks of the final state`,
  ];
  if (s.firstDeparture === null) out.push('    the replay never departs from the recording: predictions below use the same rules');
  else out.push(`    first departure at event ${s.firstDeparture.event} (${s.firstDeparture.action}): ${plainText(s.firstDeparture.reason)}`);
  if (c.emptyCacheCalls > 0) out.push(`    the program called empty_cache() ${c.emptyCacheCalls} time${c.emptyCacheCalls === 1 ? '' : 's'}`);
  return out;
}

function renderResult(r: WhatIfResult, capacitySource: string): string[] {
  const cap = r.capacityBytes === null ? 'no capacity limit' : `capacity ${formatBytes(r.capacityBytes, 2)} (${formatCount(r.capacityBytes)} bytes)${capacitySource}`;
  const out = [`  prediction (${settingsText(r.settings)}; ${cap}):`];
  if (r.start !== null) out.push(`    ${recordingStartText(r.start)}`);
  if (!r.replayed) return out;
  out.push(
    `    peak reserved ${formatBytes(r.peakReservedBytes, 2)} (${formatBytes(r.reservedFreeAtPeakBytes)} of it not allocated), ${r.cudaMallocs} cudaMalloc${r.cudaMallocs === 1 ? '' : 's'}, ${r.cudaFrees} cudaFree${r.cudaFrees === 1 ? '' : 's'}`,
  );
  if (r.oom === null) out.push('    no allocation runs out of memory');
  else {
    out.push(
      `    out of memory at ${where(r.oom)}${r.oom.recorded ? ', as recorded' : ''}: ${formatBytes(r.oom.requestedBytes)} asked with ${formatBytes(r.oom.reservedBytes, 2)} reserved,` +
        ` largest free block ${formatBytes(r.oom.largestFreeBytes)} (${r.oom.cause})`,
    );
  }
  if (r.recordedOomsAvoided > 0) out.push(`    ${r.recordedOomsAvoided} recorded OOM${r.recordedOomsAvoided === 1 ? '' : 's'} would not happen`);
  return out;
}

function renderTable(t: WhatIfTable): string[] {
  const header = ['settings', 'peak (no limit)', ...t.gpuSizesBytes.map((b) => formatBytes(b, 0))];
  const rows = t.rows.map((r) => [
    r.label,
    formatBytes(r.unlimited.peakReservedBytes, 2),
    ...r.cells.map((c) => (c.fits === null ? 'unknown' : c.fits ? 'fits' : 'OOM')),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i].length)));
  const line = (row: readonly string[]) => `    ${row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ')}`;
  const out = ['  on common GPU sizes (the memory PyTorch may use; CUDA context, NCCL and other processes take their share first):', line(header), ...rows.map(line)];
  const sizes = (cells: readonly WhatIfCell[]) => cells.map((c) => formatBytes(c.capacityBytes, 0)).join(', ');
  for (const r of t.rows) {
    // One note per reason, naming the sizes it holds for (the words of the largest of them).
    const before = r.cells.filter((c) => c.fits === false && c.oom === null && c.start !== null);
    if (before.length > 0) out.push(`    ${r.label} on ${sizes(before)}: ${recordingStartText(before[before.length - 1].start!)}`);
    const ooms = r.cells.filter((c) => c.fits === false && c.oom !== null);
    if (ooms.length > 0) {
      const largest = ooms[ooms.length - 1];
      out.push(`    ${r.label} on ${sizes(ooms)}: runs out${ooms.length > 1 ? ` (on ${formatBytes(largest.capacityBytes, 0)})` : ''} at ${where(largest.oom!)}`);
    }
    const unknown = r.cells.filter((c) => c.fits === null && c.start !== null);
    if (unknown.length > 0) out.push(`    ${r.label} on ${sizes(unknown)}: ${recordingStartText(unknown[unknown.length - 1].start!)}`);
    const released = r.cells.filter((c) => c.start?.outcome === 'released');
    if (released.length > 0) {
      out.push(`    ${r.label} on ${sizes(released)}: the replay begins by releasing the cached segments recording began with (${formatBytes(released[0].start!.reservedBytes, 2)} reserved then)`);
    }
  }
  return out;
}

export function renderWhatIf(name: string, results: readonly DeviceWhatIf[], asked: { allocConf?: string; capacity?: number }): string {
  const out: string[] = [name];
  if (results.length === 0) out.push('  The snapshot holds no segments and no trace events: nothing to replay.');
  for (const r of results) {
    out.push('');
    out.push(`device ${r.check.device}:`);
    if (r.check.notReplayable !== undefined) {
      // As the editor says it: no self-check to fail, no prediction to make.
      out.push(`  ${plainText(r.check.notReplayable)}`);
      continue;
    }
    out.push(...renderCheck(r.check));
    const source =
      asked.capacity !== undefined || r.result.capacityBytes === null
        ? ''
        : r.check.capacitySource === 'oom'
          ? ' (from the recorded OOM)'
          : ' (the most PyTorch reserved before cudaMalloc failed)';
    out.push(...renderResult(r.result, source));
    if (r.table) out.push(...renderTable(r.table));
  }
  return out.join('\n') + '\n';
}
