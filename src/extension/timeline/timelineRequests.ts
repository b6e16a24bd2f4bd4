/**
 * The timeline host's answers to the page's requests, free of `vscode`: it checks each request's
 * fields and asks the snapshot's worker (or anything that answers worker methods: the browser tests'
 * host double runs the core in-process through the same routing). The view posts what this returns.
 */
import type { AllocatorSpanRequest } from '../../engine/timeline/allocatorSpan';
import type { SpanRequest } from '../../engine/timeline/types';
import type { WorkerCall } from '../../protocol/worker';
import type { HostToTimeline, TimelineCommand, TimelineRequest } from '../../protocol/timeline';
import { isTarget } from '../../guards/timeline';
import { commandAllowlist } from '../shared/webviewCommands';
import { lineRow } from './rows';
import type { CellPlaces } from '../../engine/paths/places';

/** What the empty state's buttons may run. */
export const TIMELINE_COMMANDS = commandAllowlist<TimelineCommand>(['openSnapshot', 'openSample', 'profile']);

/** Frames of a block's stack sent to the page (the detail panel). */
export const MAX_FRAMES = 12;
/** Frames of a block's stack sent when the page expands "N more frames" (a bound on a hostile stack). */
export const ALL_FRAMES_LIMIT = 1000;
/** Blocks of one line sent to zoom to it. */
export const LINE_BLOCK_LIMIT = 500;
/** Blocks listed in a segment map (the rest of each segment is counted, not listed). */
export const SEGMENT_MAP_BLOCKS = 5_000;
/** Recorded OOMs explained for the allocator view. */
export const MAX_OOMS = 100;

export interface TimelineBackend {
  /** The worker of a loaded snapshot; undefined when it is no longer loaded. */
  worker(snapshotId: string): WorkerCall | undefined;
  /** Whether the advisor's findings are shown (the `vramLens.advice.enabled` setting). */
  adviceEnabled(): boolean;
  /** The notebook cells of the snapshot's recorded cell files (none: every file is a file). */
  places?(snapshotId: string, device: number): Promise<CellPlaces>;
}

function isFiniteOrUndefined(value: unknown): boolean {
  return value === undefined || (typeof value === 'number' && Number.isFinite(value));
}

/** Only the fields a span request may have, each of the right type. */
export function sanitizeSpanRequest(value: unknown): SpanRequest | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const r = value as Record<string, unknown>;
  if (r.axis !== 'event' && r.axis !== 'time') return undefined;
  if (typeof r.columns !== 'number' || !Number.isFinite(r.columns)) return undefined;
  for (const key of ['x0', 'x1', 'budget', 'runBudget', 'offsetQuantum', 'focusLine', 'statesMargin'] as const) {
    if (!isFiniteOrUndefined(r[key])) return undefined;
  }
  let states: [number, number] | undefined;
  if (r.states !== undefined) {
    if (!Array.isArray(r.states) || r.states.length !== 2 || !r.states.every((s) => Number.isInteger(s))) return undefined;
    states = [r.states[0] as number, r.states[1] as number];
  }
  return {
    axis: r.axis,
    columns: r.columns,
    x0: r.x0 as number | undefined,
    x1: r.x1 as number | undefined,
    states,
    statesMargin: r.statesMargin as number | undefined,
    budget: r.budget as number | undefined,
    runBudget: r.runBudget as number | undefined,
    offsetQuantum: r.offsetQuantum as number | undefined,
    focusLine: r.focusLine as number | undefined,
  };
}

/** Only the fields an allocator span request may have, each of the right type. */
export function sanitizeAllocatorSpanRequest(value: unknown): AllocatorSpanRequest | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const r = value as Record<string, unknown>;
  if (r.axis !== 'event' && r.axis !== 'time') return undefined;
  if (typeof r.columns !== 'number' || !Number.isFinite(r.columns)) return undefined;
  for (const key of ['x0', 'x1', 'budget', 'offsetQuantum'] as const) {
    if (!isFiniteOrUndefined(r[key])) return undefined;
  }
  return {
    axis: r.axis,
    columns: r.columns,
    x0: r.x0 as number | undefined,
    x1: r.x1 as number | undefined,
    budget: r.budget as number | undefined,
    offsetQuantum: r.offsetQuantum as number | undefined,
  };
}

const isAxis = (value: unknown): value is 'event' | 'time' => value === 'event' || value === 'time';

/** The request's id when it has a usable one, else -1 (no answer can be matched to it). */
export function requestIdOf(message: { readonly requestId?: unknown }): number {
  return Number.isInteger(message.requestId) && (message.requestId as number) >= 0 ? (message.requestId as number) : -1;
}

/**
 * The answer to one request, or undefined when its fields are malformed (the caller logs that).
 * Throws what the worker throws, and when the snapshot is no longer loaded; the caller answers
 * `error` with the message.
 */
export async function answerTimelineRequest(message: TimelineRequest, backend: TimelineBackend): Promise<HostToTimeline | undefined> {
  if (!isTarget(message.target)) return undefined;
  const requestId = requestIdOf(message);
  if (requestId < 0) return undefined;
  const target = message.target;
  const call = backend.worker(target.snapshotId);
  if (!call) throw new Error('This snapshot is no longer loaded.');
  const device = target.device;
  switch (message.type) {
    case 'overview': {
      if (!isAxis(message.axis)) return undefined;
      const columns = Math.max(1, Math.min(8192, Math.round(Number(message.columns)) || 1));
      const [overview, places] = await Promise.all([call('timelineOverview', { device, axis: message.axis, columns }), backend.places?.(target.snapshotId, device)]);
      return { type: 'overview', requestId, overview: places && Object.keys(places).length > 0 ? { ...overview, places } : overview };
    }
    case 'findings': {
      if (!isAxis(message.axis)) return undefined;
      // The advisor turned off: no markers either.
      const markers = backend.adviceEnabled() ? await call('timelineFindings', { device, axis: message.axis }) : [];
      return { type: 'findings', requestId, markers };
    }
    case 'span': {
      const request = sanitizeSpanRequest(message.request);
      if (!request) return undefined;
      return { type: 'span', requestId, span: await call('timelineSpan', { device, request }) };
    }
    case 'block': {
      if (!Number.isInteger(message.record)) return undefined;
      return { type: 'block', requestId, detail: await call('timelineBlock', { device, record: message.record, maxFrames: message.allFrames === true ? ALL_FRAMES_LIMIT : MAX_FRAMES }) };
    }
    case 'lines': {
      const lines = await call('lines', { device });
      return { type: 'lines', requestId, rows: lines.map((l) => lineRow(l)) };
    }
    case 'stackFilter': {
      if (typeof message.text !== 'string') return undefined;
      return { type: 'stackFilter', requestId, lineIds: await call('linesMatchingStack', { text: message.text.slice(0, 500) }) };
    }
    case 'allocatorSpan': {
      const request = sanitizeAllocatorSpanRequest(message.request);
      if (!request) return undefined;
      return { type: 'allocatorSpan', requestId, span: await call('allocatorSpan', { device, request }) };
    }
    case 'allocatorFacts': {
      const [check, ooms] = await Promise.all([call('allocatorCheck', { device }), call('allocatorOoms', { device })]);
      return { type: 'allocatorFacts', requestId, facts: { check, ooms: ooms.slice(0, MAX_OOMS) } };
    }
    case 'segmentMap': {
      if (!Number.isInteger(message.state) || message.state < 0) return undefined;
      return { type: 'segmentMap', requestId, map: await call('allocatorSegmentMap', { device, event: message.state - 1, maxBlocks: SEGMENT_MAP_BLOCKS }) };
    }
    case 'lineBlocks': {
      if (typeof message.file !== 'string' || !Number.isInteger(message.line)) return undefined;
      const blocks = await call('lineBlocks', { device, file: message.file, line: message.line, limit: LINE_BLOCK_LIMIT });
      return { type: 'lineBlocks', requestId, blocks };
    }
  }
}
