/**
 * Out of memory: for each `oom` event, the allocation that failed (its line and size), what was
 * allocated and reserved then, the lines holding the most live memory, and the free device memory.
 */
import { liveAfter } from '../../analysis/replay';
import { formatBytes } from '../../text/format';
import { bytesByLine } from '../context';
import type { Finding } from '../finding';
import type { AdviceRule } from '../rule';
import { counted, where } from '../rule';

const TOP_LINES = 5;

/** What neither PyTorch's cache nor the device had free of the request. */
function shortfall(requested: number, cachedFree: number, deviceFree: number | undefined): number {
  return requested - cachedFree - (deviceFree ?? 0);
}

export const outOfMemory: AdviceRule = {
  id: 'out-of-memory',
  label: 'OOM post-mortem',
  run(ctx) {
    const d = ctx.device;
    // Where the snapshot does not record the device's reserved memory, neither it nor the cache's free part is known.
    const reservedKnown = d.reservedShortfall === undefined;
    return d.ooms.map((oom): Finding => {
      const at = oom.eventIndex;
      const allocated = d.active[at];
      const reserved = d.reserved[at];
      const cachedFree = reserved - allocated;
      const top = bytesByLine(ctx, liveAfter(d.allocations, at)).slice(0, TOP_LINES);
      const failing = ctx.lineOf(oom.stack);
      const free = oom.deviceFreeBytes;
      const parts = [
        `Out of memory at event ${ctx.eventName(at)}: ${failing ? `${where(failing, ctx.places)} ` : 'an allocation '}asked for ${formatBytes(oom.requestedBytes)} ` +
          `while ${formatBytes(allocated)} was allocated and ${reservedKnown ? `${formatBytes(reserved)} reserved by PyTorch` : 'an unknown amount reserved by PyTorch (the snapshot does not record this device\'s segments)'}` +
          (free === undefined ? '.' : `; the device reported ${formatBytes(free)} free.`),
      ];
      if (top.length > 0) {
        parts.push(`Most live memory then: ${top.map((t) => `${where(t, ctx.places)} ${formatBytes(t.bytes)}`).join(', ')}.`);
      }
      if (!reservedKnown) {
        parts.push('Consider a smaller batch or sequence, activation checkpointing, mixed precision, or freeing what the lines above hold.');
      } else if (cachedFree >= oom.requestedBytes) {
        parts.push(
          `PyTorch's cache held ${formatBytes(cachedFree)} unused, more than requested, but apparently not in one piece: ` +
            'fragmentation may have caused this (see the fragmentation finding).',
        );
      } else {
        const short = shortfall(oom.requestedBytes, cachedFree, free);
        parts.push(
          (short > 0 ? `About ${formatBytes(short)} more than the cache and the device had free would have been needed: ` : '') +
            'consider a smaller batch or sequence, activation checkpointing, mixed precision, or freeing what the lines above hold.',
        );
      }
      return {
        rule: 'out-of-memory',
        severity: 'error',
        device: d.device,
        ...(failing ? { file: failing.file, line: failing.line } : {}),
        title: `Out of memory: ${formatBytes(oom.requestedBytes)} requested at event ${ctx.eventName(at)}`,
        message: parts.join(' '),
        evidence: {
          oomEvent: at,
          requestedBytes: oom.requestedBytes,
          allocatedBytes: allocated,
          ...(reservedKnown ? { reservedBytes: reserved, cachedUnusedBytes: cachedFree } : {}),
          ...(free === undefined ? {} : { deviceFreeBytes: free }),
          ...(reservedKnown && cachedFree < oom.requestedBytes && shortfall(oom.requestedBytes, cachedFree, free) > 0 ? { shortfallBytes: shortfall(oom.requestedBytes, cachedFree, free) } : {}),
          liveAtOomTopLineBytes: top.map((t) => t.bytes),
        },
        related: top.map((t) => ({ file: t.file, line: t.line, message: `${formatBytes(t.bytes)} live at the OOM (${counted(t.count, 'block')})` })),
      };
    });
  },
};
