/** The implementations of `WorkerMethods`, over the worker's one `SnapshotSession`. */
import { lineDetail } from '../../engine/analysis/lineDetail';
import { rangeFigures } from '../../engine/analysis/rangeFigures';
import { lineFunctionNames } from '../../engine/annotate/recordedFunctions';
import { traceOf } from '../../engine/analysis/replay';
import { downsampleTotals } from '../../engine/compare/totals';
import { snapshotFromOwnedBytes } from '../../engine/decode/load';
import { findingMarkers } from '../../engine/timeline/findingMarkers';
import type { MethodName, ParamsOf, ResultOf } from '../../protocol/worker';
import { SnapshotSession } from '../../engine/session/session';
import { gunzipBounded } from '../input/gunzip';

export interface MethodContext {
  session: SnapshotSession | undefined;
  progress(message: string): void;
}

type Implementations = { [M in MethodName]: (params: ParamsOf<M>, ctx: MethodContext) => ResultOf<M> };

function requireSession(ctx: MethodContext): SnapshotSession {
  if (!ctx.session) throw new Error('no snapshot is loaded in this worker');
  return ctx.session;
}

export const methods: Implementations = {
  load(params, ctx) {
    const { filter } = params;
    const byteLength = params.bytes.byteLength;
    ctx.progress('Decoding the snapshot');
    // The request owns the only reference to the file's bytes: let the loader drop it once decoded.
    const snapshot = snapshotFromOwnedBytes(params, {
      gunzip: gunzipBounded,
      onProgress: (done, total) => ctx.progress(`Decoding the snapshot (${Math.floor((100 * done) / total)}%)`),
    });
    ctx.progress('Attributing memory to lines');
    ctx.session = new SnapshotSession(snapshot, byteLength, filter);
    return ctx.session.info();
  },
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
  timelineWindow({ device, request }, ctx) {
    return requireSession(ctx).timeline.window(device, request);
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
  allocatorWindow({ device, request }, ctx) {
    return requireSession(ctx).allocatorWindow(device, request);
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

export function dispatch<M extends MethodName>(method: M, params: ParamsOf<M>, ctx: MethodContext): ResultOf<M> {
  if (!Object.hasOwn(methods, method)) throw new Error(`unknown method ${String(method)}`);
  const impl = methods[method] as (p: ParamsOf<M>, c: MethodContext) => ResultOf<M>;
  return impl(params, ctx);
}
