/**
 * torch.cuda.empty_cache() called again and again: cached segments released (segment_free /
 * segment_unmap) and then reserved again with the same sizes. Each round trip costs a
 * synchronising cudaFree and a cudaMalloc, and makes reserved memory saw up and down.
 */
import { settingsOf } from '../../allocator/selfCheck';
import { whatIf } from '../../allocator/whatIf';
import { isPartialWindow } from '../../allocator/window';
import { formatBytes } from '../../text/format';
import type { AdviceContext } from '../context';
import { Action } from '../../snapshot/model';
import type { Finding } from '../finding';
import { isEmptyCacheFrame } from '../frames';
import type { AdviceRule } from '../rule';
import { where } from '../rule';

/** Fewer round trips than this, or fewer separate release bursts, is not a loop. */
export const MIN_ROUND_TRIPS = 2;
export const MIN_BURSTS = 2;
const SHOWN_BURSTS = 5;

/**
 * What the program's empty_cache() calls cost, from the allocator replay: the cudaMallocs and
 * cudaFrees of the run with them, less those of the same run replayed without them. Only when the
 * replay reproduces the recording (the self-check) and found the calls.
 */
function replayedCost(
  ctx: AdviceContext,
): { calls: number; mallocs: number; frees: number; peakWith: number; peakWithout: number; sentence: string } | undefined {
  // A window of the recording: the replay needs all of it (src/engine/allocator/window.ts).
  if (ctx.trace.length === 0 || isPartialWindow(ctx.trace.window, ctx.trace.length)) return undefined;
  const basis = ctx.allocator();
  const calls = basis.check.emptyCacheCalls;
  if (calls === 0 || basis.check.check.firstDeparture !== null) return undefined;
  const settings = settingsOf(ctx.snapshot);
  const capacity = basis.check.capacityBytes ?? undefined;
  const withCalls = whatIf(basis, { settings, capacity });
  const without = whatIf(basis, { settings, capacity, skipEmptyCache: true });
  if (!withCalls.replayed || !without.replayed) return undefined;
  const mallocs = withCalls.cudaMallocs - without.cudaMallocs;
  const frees = withCalls.cudaFrees - without.cudaFrees;
  const perCall = calls > 0 ? mallocs / calls : 0;
  return {
    calls,
    mallocs,
    frees,
    peakWith: withCalls.peakReservedBytes,
    peakWithout: without.peakReservedBytes,
    sentence:
      `Replayed through PyTorch's caching allocator, its ${calls} call${calls === 1 ? '' : 's'} cost ${mallocs} cudaMalloc${mallocs === 1 ? '' : 's'} and ${frees} cudaFree${frees === 1 ? '' : 's'} ` +
      `(${Number.isInteger(perCall) ? perCall : perCall.toFixed(1)} cudaMalloc${perCall === 1 ? '' : 's'} per call) that the run without them does not make; ` +
      `peak reserved memory is ${formatBytes(withCalls.peakReservedBytes)} with them and ${formatBytes(without.peakReservedBytes)} without.`,
  };
}

export const emptyCacheInLoop: AdviceRule = {
  id: 'empty-cache-in-loop',
  label: 'empty_cache',
  run(ctx) {
    const t = ctx.trace;
    const pending = new Map<number, number>();
    const burstStarts: number[] = [];
    let inBurst = false;
    let releases = 0;
    let releasedBytes = 0;
    let roundTrips = 0;
    let reReservedBytes = 0;
    let releasesByEmptyCache = 0;
    const callers = new Map<string, { file: string; line: number; count: number }>();

    for (let i = 0; i < t.length; i++) {
      const action = t.action[i];
      const size = t.size[i];
      if (action === Action.SegmentFree || action === Action.SegmentUnmap) {
        if (!inBurst) burstStarts.push(i);
        inBurst = true;
        releases++;
        releasedBytes += size;
        pending.set(size, (pending.get(size) ?? 0) + 1);
        if (ctx.stackHas(t.stack[i], isEmptyCacheFrame)) {
          releasesByEmptyCache++;
          const caller = ctx.lineOf(t.stack[i]);
          if (caller) {
            const key = `${caller.file}\u0000${caller.line}`;
            const entry = callers.get(key) ?? { file: caller.file, line: caller.line, count: 0 };
            entry.count++;
            callers.set(key, entry);
          }
        }
      } else if (action === Action.SegmentAlloc || action === Action.SegmentMap) {
        inBurst = false;
        const waiting = pending.get(size) ?? 0;
        if (waiting > 0) {
          pending.set(size, waiting - 1);
          roundTrips++;
          reReservedBytes += size;
        }
      } else if (action === Action.Alloc) {
        inBurst = false;
      }
    }
    if (roundTrips < MIN_ROUND_TRIPS || burstStarts.length < MIN_BURSTS) return [];

    const caller = [...callers.values()].sort((a, b) => b.count - a.count)[0];
    const byEmptyCache = releasesByEmptyCache > 0;
    const cost = replayedCost(ctx);
    const evidence = {
      segmentReleaseCount: releases,
      segmentReleasedBytes: releasedBytes,
      reReservedSameSizeCount: roundTrips,
      reReservedBytes,
      releaseBurstCount: burstStarts.length,
      releaseBurstEvents: burstStarts.slice(0, SHOWN_BURSTS),
      ...(byEmptyCache ? { releasesByEmptyCacheCount: releasesByEmptyCache } : {}),
      ...(cost
        ? {
            emptyCacheCallCount: cost.calls,
            cudaMallocsCausedCount: cost.mallocs,
            cudaFreesCausedCount: cost.frees,
            peakReservedBytes: cost.peakWith,
            peakReservedWithoutEmptyCacheBytes: cost.peakWithout,
          }
        : {}),
    };
    const sawtooth =
      `${releases} cached segments (${formatBytes(releasedBytes)}) were released in ${burstStarts.length} separate bursts ` +
      `(from event${burstStarts.length > 1 ? 's' : ''} ${burstStarts.slice(0, SHOWN_BURSTS).join(', ')}${burstStarts.length > SHOWN_BURSTS ? ', …' : ''}), ` +
      `and ${roundTrips} segments of exactly the released sizes (${formatBytes(reReservedBytes)}) were reserved again afterwards.`;
    const finding: Finding = byEmptyCache
      ? {
          rule: 'empty-cache-in-loop',
          severity: 'warning',
          device: ctx.device.device,
          ...(caller ? { file: caller.file, line: caller.line } : {}),
          title: `torch.cuda.empty_cache() released and re-reserved ${formatBytes(reReservedBytes)}`,
          message:
            `${caller ? `torch.cuda.empty_cache() at ${where(caller, ctx.places)}` : 'torch.cuda.empty_cache()'} appears to run in a loop: ${sawtooth} ` +
            'Each release synchronises the device and each re-reservation calls cudaMalloc again, so this costs time and makes reserved memory rise and fall (a sawtooth) without lowering the peak. ' +
            (cost ? `${cost.sentence} ` : '') +
            'Consider calling it once, outside the loop, or not at all.',
          evidence,
        }
      : {
          rule: 'empty-cache-in-loop',
          severity: 'information',
          device: ctx.device.device,
          title: `Cached segments released and re-reserved ${roundTrips} times`,
          message:
            `${sawtooth} This round trip is what torch.cuda.empty_cache() in a loop produces (the releases carry no stack here, so the caller is unknown); ` +
            'PyTorch also empties its cache by itself when an allocation fails and it retries, which means the run was close to the device limit. ' +
            'If the program calls empty_cache() repeatedly, consider calling it once outside the loop.',
          evidence,
        };
    return [finding];
  },
};
