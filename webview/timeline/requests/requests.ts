/**
 * The page's requests to the host: each gets an id its answer echoes, and a test of whether the
 * page still wants it (the snapshot, device or axis it was asked for is still the one shown). An
 * answer nobody wants any more is dropped (its `stale` callback runs); an `error` answer goes to
 * `failed`. No DOM: the parts that ask (targetData, spanFetch, blockDetails) give the callbacks.
 */
import type { HostToTimeline, TimelineRequest } from '../../../src/protocol/timeline';

export type TimelineAnswer = Extract<HostToTimeline, { readonly requestId: number }>;
type RequestType = TimelineRequest['type'];
type AnswerTo<T extends RequestType> = Extract<TimelineAnswer, { readonly type: T }>;
/** A request as a part writes it: without the id, which this module gives. */
export type Ask<T extends RequestType> = Omit<Extract<TimelineRequest, { readonly type: T }>, 'requestId'>;

export interface AskOptions<T extends RequestType> {
  /** Whether the answer is still wanted when it arrives. */
  readonly current: () => boolean;
  readonly answered: (answer: AnswerTo<T>) => void;
  /** The host could not answer (defaults to the page's error handler). */
  readonly failed?: (message: string) => void;
  /** Runs for every answer to this request, wanted or not, before the others. */
  readonly settled?: () => void;
  /** The answer came when the page no longer wanted it. */
  readonly stale?: () => void;
  /** Names the request among others of its type, for `isWaiting` (e.g. a block's record). */
  readonly tag?: string;
}

interface Waiting {
  readonly type: RequestType;
  readonly tag: string | undefined;
  readonly options: AskOptions<RequestType>;
}

export class Requests {
  private nextId = 1;
  private readonly waiting = new Map<number, Waiting>();

  constructor(
    private readonly post: (message: TimelineRequest) => void,
    private readonly onError: (message: string) => void,
  ) {}

  ask<T extends RequestType>(message: Ask<T> & { readonly type: T }, options: AskOptions<T>): number {
    const requestId = this.nextId++;
    this.waiting.set(requestId, { type: message.type, tag: options.tag, options: options as unknown as AskOptions<RequestType> });
    this.post({ ...message, requestId } as unknown as TimelineRequest);
    return requestId;
  }

  /** Whether a request of this type and tag is waiting for its answer. */
  isWaiting(type: RequestType, tag: string): boolean {
    for (const w of this.waiting.values()) if (w.type === type && w.tag === tag) return true;
    return false;
  }

  /** Hands an answer to its request; answers to unknown ids are ignored. */
  settle(answer: TimelineAnswer): void {
    const w = this.waiting.get(answer.requestId);
    if (!w) return;
    this.waiting.delete(answer.requestId);
    w.options.settled?.();
    if (!w.options.current()) {
      w.options.stale?.();
      return;
    }
    if (answer.type === 'error') (w.options.failed ?? this.onError)(answer.message);
    else if (answer.type === w.type) w.options.answered(answer);
    else this.onError(`the host answered a '${w.type}' request with '${answer.type}'`);
  }
}
