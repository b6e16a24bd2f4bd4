/** The implementations of `WorkerMethods`, over the worker's one `SnapshotSession`. */
import { lineDetail } from '../../engine/analysis/lineDetail';
import { rangeFigures } from '../../engine/analysis/rangeFigures';
import { lineFunctionNames } from '../../engine/annotate/recordedFunctions';
import { traceOf } from '../../engine/analysis/replay';
import { downsampleTotals } from '../../engine/compare/totals';
import { findingMarkers } from '../../engine/timeline/findingMarkers';
import type { MethodName, ParamsOf, ResultOf } from '../../protocol/worker';
import { SnapshotSession } from '../../engine/session/session';
import { LoadCancelledError, openSnapshot } from '../input/snapshotFile';

export interface MethodContext {
  session: SnapshotSession | undefined;
  /** Tells the caller what is happening, and how much of it is done (0 to 1) when known. */
  progress(message: string, fraction?: number): void;
}

/** Every method but `load` and `warmUp`, which read a file and so answer later: a query of the loaded snapshot. */
export type QueryName = Exclude<MethodName, 'load' | 'warmUp'>;

type Implementations = { [M in QueryName]: (params: ParamsOf<M>, ctx: MethodContext) => ResultOf<M> };

function requireSession(ctx: MethodContext): SnapshotSession {
  if (!ctx.session) throw new Error('no snapshot is loaded in this worker');
  return ctx.session;
}

/**
 * Decodes and analyses a snapshot through the one way in for snapshot bytes (`openSnapshot`): a file this
 * worker reads itself, in chunks (the host never holds its bytes), bytes already in memory (a file of
 * another file system), or a snapshot built in memory (a built-in workload's run).
 */
export async function load(params: ParamsOf<'load'>, ctx: MethodContext): Promise<ResultOf<'load'>> {
  const { source, filter, window } = params;
  ctx.progress(source.kind === 'file' ? 'Reading the snapshot' : 'Decoding the snapshot');
  let shown = -1;
  const opened = await openSnapshot(source, {
    window,
    onProgress: (done, total) => {
      const percent = Math.floor((100 * done) / Math.max(total, 1));
      if (percent === shown) return;
      shown = percent;
      ctx.progress(`Reading the snapshot (${percent}%)`, done / Math.max(total, 1));
    },
  });
  ctx.progress('Attributing memory to lines');
  ctx.session = new SnapshotSession(opened.snapshot, opened.fileBytes, filter);
  return ctx.session.info();
}

/**
 * Reads and analyses a snapshot as `load` and `lines` would, then drops it (the worker's own snapshot,
 * if it has one, is left as it is): what warms a spare worker for the next snapshot the user opens.
 * `signal` stops it between two chunks of the file (the worker's own `load` has come: it must not wait).
 */
export async function warmUp(params: ParamsOf<'warmUp'>, signal?: AbortSignal): Promise<null> {
  // V8 compiles a function once it has run a while: one pass leaves much of it unoptimised.
  for (let pass = 0; pass < WARM_UP_PASSES && signal?.aborted !== true; pass++) {
    let opened;
    try {
      opened = await openSnapshot(params.source, { signal });
    } catch (e) {
      if (e instanceof LoadCancelledError) break;
      throw e;
    }
    const session = new SnapshotSession(opened.snapshot, opened.fileBytes, params.filter);
    for (const d of session.info().devices) void session.device(d.device).lines;
  }
  return null;
}

/** Times a warm-up reads its snapshot. */
const WARM_UP_PASSES = 3;

export const methods: Implementations = {
  setFilter({ filter }, ctx) {
    const session = requireSession(ctx);
    session.setFilter(filter);
    return session.info();
  },
  lines({ device }, ctx) {
    return requireSession(ctx).device(device).lines;
  },
  lineDetail({ device, file, line, maxSizes, maxStacks }, ctx) {
    const session = requireSession(ctx);
    return lineDetail(session.analysis, session.device(device), file, line, { maxSizes, maxStacks });
  },
  rangeFigures({ device, ranges }, ctx) {
    const session = requireSession(ctx);
    return rangeFigures(session.analysis, session.device(device), ranges);
  },
  timelineOverview({ device, axis, columns }, ctx) {
    return requireSession(ctx).timeline.overview(device, axis, columns);
  },
  timelineFindings({ device, axis }, ctx) {
    const session = requireSession(ctx);
    return findingMarkers(session.advice(device), session.timeline.timeline(device).axis(axis));
  },
  timelineSpan({ device, request }, ctx) {
    return requireSession(ctx).timeline.span(device, request);
  },
  timelineBlock({ device, record, maxFrames }, ctx) {
    return requireSession(ctx).timeline.block(device, record, maxFrames);
  },
  lineBlocks({ device, file, line, limit }, ctx) {
    return requireSession(ctx).timeline.lineBlocksFor(device, file, line, limit);
  },
  lineFunctions(_params, ctx) {
    const session = requireSession(ctx);
    return lineFunctionNames(session.snapshot, session.analysis.lineIndex);
  },
  linesMatchingStack({ text }, ctx) {
    return requireSession(ctx).timeline.linesMatchingStack(text);
  },
  totals({ device, axis, points }, ctx) {
    const session = requireSession(ctx);
    return downsampleTotals(session.device(device), traceOf(session.snapshot, device).timeUs, axis, points);
  },
  setSources({ files }, ctx) {
    return requireSession(ctx).setSources(files);
  },
  advice({ device, places }, ctx) {
    const session = requireSession(ctx);
    if (places) session.setPlaces(places);
    return session.advice(device);
  },
  allocatorCheck({ device }, ctx) {
    return requireSession(ctx).allocator(device).check();
  },
  allocatorSpan({ device, request }, ctx) {
    return requireSession(ctx).allocatorSpan(device, request);
  },
  allocatorSegmentMap({ device, event, maxBlocks }, ctx) {
    const session = requireSession(ctx);
    return session.allocator(device).segmentMap(event, session.analysis.lineIndex, clamp(maxBlocks ?? DEFAULT_MAP_BLOCKS, 0, MAX_MAP_BLOCKS));
  },
  allocatorOoms({ device }, ctx) {
    const session = requireSession(ctx);
    return session.allocator(device).ooms(session.analysis.lineIndex);
  },
  allocatorWhatIf({ device, allocConf, capacity, memoryFraction }, ctx) {
    const session = requireSession(ctx);
    return session.allocator(device).whatIf({ allocConf, capacity, memoryFraction }, session.analysis.lineIndex);
  },
  allocatorWhatIfTable({ device }, ctx) {
    const session = requireSession(ctx);
    return session.allocator(device).table(session.analysis.lineIndex);
  },
};

/** Bounds on what an allocator query returns, whatever the caller asks. */
const DEFAULT_MAP_BLOCKS = 20_000;
const MAX_MAP_BLOCKS = 100_000;

function clamp(n: number, lo: number, hi: number): number {
  return Number.isFinite(n) ? Math.min(hi, Math.max(lo, Math.floor(n))) : lo;
}

/** Answers a query of the loaded snapshot (`load` is {@link load}). */
export function dispatch<M extends QueryName>(method: M, params: ParamsOf<M>, ctx: MethodContext): ResultOf<M> {
  if (!Object.hasOwn(methods, method)) throw new Error(`unknown method ${String(method)}`);
  const impl = methods[method] as (p: ParamsOf<M>, c: MethodContext) => ResultOf<M>;
  return impl(params, ctx);
}
