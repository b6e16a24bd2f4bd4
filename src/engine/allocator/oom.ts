/**
 * Why an allocation ran out of memory, from the replayed allocator's state at that moment: what
 * was asked, what the cache held free and its largest block, what the device said was free, and
 * whether fragmentation (enough free bytes in the cache, none in one piece) or capacity (not
 * enough free bytes at all) caused it.
 */
import type { LineIndex } from '../analysis/lineIndex';
import { NO_LINE } from '../analysis/lineIndex';
import { formatBytes } from '../text/format';
import type { DeviceTrace } from '../snapshot/model';
import type { AllocatorSettings } from './settings';
import { allocationSize, roundSize } from './sizes';
import type { ReplayOom } from './traceReplay';

export interface OomExplanation {
  readonly event: number;
  readonly file: string | null;
  readonly line: number | null;
  /** Bytes asked for. */
  readonly requestedBytes: number;
  /** The block size it needed (rounded) and the segment a cudaMalloc for it would have made. */
  readonly blockBytes: number;
  readonly segmentBytes: number;
  readonly reservedBytes: number;
  readonly allocatedBytes: number;
  /** Reserved but not allocated, after PyTorch released what it could. */
  readonly cachedFreeBytes: number;
  readonly largestFreeBytes: number;
  /** Free device memory PyTorch reported (`device_free`), when the trace has it. */
  readonly deviceFreeBytes: number | null;
  readonly cause: 'fragmentation' | 'capacity';
  /** One sentence for a person. */
  readonly summary: string;
}

export function explainOom(o: ReplayOom, trace: DeviceTrace, settings: AllocatorSettings, lineIndex?: LineIndex): OomExplanation {
  const lineId = lineIndex ? lineIndex.selfLine[trace.stack[o.event]] ?? NO_LINE : NO_LINE;
  const where = lineIndex && lineId !== NO_LINE ? lineIndex.lines[lineId] : undefined;
  const block = roundSize(o.requestedBytes, settings);
  const cachedFree = o.reservedBytes - o.allocatedBytes;
  const fragmentation = cachedFree >= block && o.largestFreeForRequestBytes < block;
  const deviceFree = trace.deviceFree.get(o.event);
  const f = (n: number) => formatBytes(n);
  const summary = fragmentation
    ? `${f(o.requestedBytes)} asked; the cache held ${f(cachedFree)} free but its largest block was ${f(o.largestFreeForRequestBytes)}: fragmentation (expandable_segments:True lets free pages be reused)`
    : `${f(o.requestedBytes)} asked with ${f(o.reservedBytes)} reserved (${f(o.allocatedBytes)} allocated)` +
      `${deviceFree === undefined ? '' : ` and ${f(deviceFree)} free on the device`}: not enough memory (capacity)`;
  return {
    event: o.event,
    file: where ? where.file : null,
    line: where ? Number(where.line) : null,
    requestedBytes: o.requestedBytes,
    blockBytes: block,
    segmentBytes: allocationSize(block, settings),
    reservedBytes: o.reservedBytes,
    allocatedBytes: o.allocatedBytes,
    cachedFreeBytes: cachedFree,
    largestFreeBytes: o.largestFreeBytes,
    deviceFreeBytes: deviceFree ?? null,
    cause: fragmentation ? 'fragmentation' : 'capacity',
    summary,
  };
}
