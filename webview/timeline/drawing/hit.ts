/** What the pointer is on in the chart (indices into the span the chart drew last). */
import type { FindingMarker } from '../../../src/protocol/timeline';

export type Hit =
  | { readonly kind: 'block'; readonly index: number; readonly record: number; readonly step: number }
  | { readonly kind: 'rest'; readonly step: number }
  | { readonly kind: 'reserved'; readonly step: number }
  | { readonly kind: 'annotation'; readonly index: number }
  | { readonly kind: 'peak' }
  | { readonly kind: 'oom'; readonly index: number }
  | { readonly kind: 'finding'; readonly marker: FindingMarker }
  | { readonly kind: 'release'; readonly index: number }
  /** The allocator view: a segment (its index in the allocator span) at a step, or a step with no segment under the pointer. */
  | { readonly kind: 'segment'; readonly index: number; readonly step: number }
  | { readonly kind: 'allocatorStep'; readonly step: number };
