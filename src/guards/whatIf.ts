/**
 * The guards of the what-if panel's messages (src/protocol/whatIf.ts): each side's check of what it
 * receives, and the check of a question's fields, which the page runs on the form and the host again
 * on what arrives (the page is not trusted).
 */
import type { HostToWhatIf, WhatIfQuestion, WhatIfToHost } from '../protocol/whatIf';
import { messageGuard } from './messageGuard';

export const isWhatIfToHost = messageGuard<WhatIfToHost>({ ready: true, selectDevice: true, predict: true, openLine: true });
export const isHostToWhatIf = messageGuard<HostToWhatIf>({ target: true, check: true, table: true, prediction: true, error: true, empty: true });

/** Bounds on what a question may hold (the host refuses the rest). */
export const MAX_ALLOC_CONF_LENGTH = 500;
export const MAX_CAPACITY_BYTES = 2 ** 50;

/** The question's fields when they are well-formed, else undefined (the host checks them again: the page is not trusted). */
export function checkedQuestion(value: unknown): WhatIfQuestion | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const q = value as Record<string, unknown>;
  const capacity = q.capacityBytes;
  const fraction = q.memoryFraction;
  if (capacity !== null && !(typeof capacity === 'number' && Number.isFinite(capacity) && capacity > 0 && capacity <= MAX_CAPACITY_BYTES)) return undefined;
  if (typeof q.allocConf !== 'string' || q.allocConf.length > MAX_ALLOC_CONF_LENGTH) return undefined;
  if (fraction !== null && !(typeof fraction === 'number' && fraction > 0 && fraction <= 1)) return undefined;
  return { capacityBytes: capacity, allocConf: q.allocConf, memoryFraction: fraction };
}
