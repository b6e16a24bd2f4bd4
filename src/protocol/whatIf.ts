/**
 * Messages between the what-if panel (webview/whatIf) and the extension (`HostToWhatIf`,
 * `WhatIfToHost`): the caching allocator replayed with other settings or on another GPU size
 * (src/engine/allocator). Types only: both sides import it (the guards and the question's check:
 * src/guards/whatIf.ts). The page asks for a prediction with the capacity and PYTORCH_CUDA_ALLOC_CONF
 * the user typed, checked on both sides; every string of a result (paths) is snapshot text that the
 * page shows with textContent only. Lines open through the one `openLine` of every page.
 */
import type { SelfCheckDetails } from '../engine/allocator/selfCheck';
import type { WhatIfResult, WhatIfTable } from '../engine/allocator/whatIf';
import type { OpenLine } from './openLine';

/** Payload types the page reads, as the engine computes them (the page imports them from here, never from the engine). */
export type { SelfCheckDetails } from '../engine/allocator/selfCheck';
export type { WhatIfCell, WhatIfOom, WhatIfResult, WhatIfTable } from '../engine/allocator/whatIf';

/** The snapshot and device the panel shows, and the devices it may show. */
export interface WhatIfTarget {
  readonly snapshotId: string;
  readonly label: string;
  readonly device: number;
  /** Each device's recorded peak reserved memory; `reservedUnknown` where the snapshot does not record it. */
  readonly devices: readonly { readonly device: number; readonly peakReservedBytes: number; readonly reservedUnknown?: true }[];
}

/** What the user asked: capacity in bytes (null: what the recording implies, else no limit), options over the recorded settings, a memory fraction. */
export interface WhatIfQuestion {
  readonly capacityBytes: number | null;
  readonly allocConf: string;
  readonly memoryFraction: number | null;
}

export type HostToWhatIf =
  | { readonly type: 'target'; readonly target: WhatIfTarget }
  /** The self-check of the device shown: how far a prediction can be trusted. */
  | { readonly type: 'check'; readonly snapshotId: string; readonly device: number; readonly check: SelfCheckDetails }
  /** The table over GPU sizes x settings; `mapped`: the recorded files of its OOMs found on this machine (their lines are links). */
  | { readonly type: 'table'; readonly snapshotId: string; readonly device: number; readonly table: WhatIfTable; readonly mapped: readonly string[] }
  /** The answer to a `predict` (`mapped` as for the table). */
  | { readonly type: 'prediction'; readonly requestId: number; readonly question: WhatIfQuestion; readonly result: WhatIfResult; readonly mapped: readonly string[] }
  /** A request could not be answered (`requestId` -1: the panel's own data, e.g. the table). */
  | { readonly type: 'error'; readonly requestId: number; readonly message: string }
  /** No snapshot is loaded, or the one shown was closed. */
  | { readonly type: 'empty'; readonly message: string };

export type WhatIfToHost =
  | { readonly type: 'ready' }
  | { readonly type: 'selectDevice'; readonly device: number }
  | { readonly type: 'predict'; readonly requestId: number; readonly question: WhatIfQuestion }
  /** Open a recorded line in the editor (the one message of every page: openLine.ts). */
  | OpenLine;

/** What the page keeps across hide/show (VS Code `setState`): the form as typed. */
export interface WhatIfState {
  readonly capacity: string;
  readonly allocConf: string;
  readonly memoryFraction: string;
}
