/**
 * The guards of the timeline's messages (src/protocol/timeline.ts): each side's check of what it
 * receives, the request types both are built from, and the host's check of a target.
 */
import type { HostToTimeline, Target, TimelineRequest, TimelineToHost } from '../protocol/timeline';
import { messageGuard } from './messageGuard';

/**
 * The request types, declared once: both directions carry each (the page asks, the host answers
 * under the same type), so both guards and `isTimelineRequest` are built from this one record. A
 * request type missing here, or one the host cannot answer, fails to compile.
 */
export const REQUEST_TYPES: Record<TimelineRequest['type'], true> & Record<Exclude<TimelineRequest['type'], HostToTimeline['type']>, never> = {
  overview: true,
  span: true,
  findings: true,
  block: true,
  lines: true,
  stackFilter: true,
  lineBlocks: true,
  allocatorSpan: true,
  allocatorFacts: true,
  segmentMap: true,
};

export const isTimelineToHost = messageGuard<TimelineToHost>({ ...REQUEST_TYPES, ready: true, openLine: true, runCommand: true, showing: true, log: true });

export const isHostToTimeline = messageGuard<HostToTimeline>({ ...REQUEST_TYPES, snapshots: true, error: true, showLine: true });

/** Whether a page message is a request (it carries an id its answer echoes). */
export function isTimelineRequest(message: { readonly type: string }): message is TimelineRequest {
  return Object.hasOwn(REQUEST_TYPES, message.type);
}

export function isTarget(value: unknown): value is Target {
  if (typeof value !== 'object' || value === null) return false;
  const t = value as Record<string, unknown>;
  return typeof t.snapshotId === 'string' && Number.isInteger(t.device);
}
