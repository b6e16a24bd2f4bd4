/**
 * The messages between the extension host and the timeline webview: the one contract both sides
 * import. Discriminated unions on `type`; the webview starts with `ready`; every request carries an
 * id its answer echoes. A side that receives a message it does not know logs it and ignores it.
 * Types only (plus the command allowlist): no DOM and no `vscode` here.
 */
import type { FindingMarker } from '../../src/core/timeline/findingMarkers';
import type {
  AxisKind,
  BlockDetail,
  LineBlocks,
  TimelineOverview,
  TimelineWindow,
  WindowRequest,
} from '../../src/core/timeline/types';

/** The commands the webview may ask the host to run (the empty state's buttons); nothing else runs. */
export const ALLOWED_COMMANDS = ['vramLens.openSnapshot', 'vramLens.openSample', 'vramLens.profile'] as const;
export type AllowedCommand = (typeof ALLOWED_COMMANDS)[number];

export function isAllowedCommand(command: unknown): command is AllowedCommand {
  return typeof command === 'string' && (ALLOWED_COMMANDS as readonly string[]).includes(command);
}

/** A loaded snapshot as the selectors show it. */
export interface SnapshotChoice {
  readonly id: string;
  readonly label: string;
  readonly devices: readonly { readonly device: number; readonly peakBytes: number; readonly events: number }[];
  /** The device the rest of the editor shows for this snapshot. */
  readonly device: number;
  readonly hasTimes: boolean;
}

/** One row of the lines table: a line's figures on the selected device. */
export interface LineRow {
  readonly id: number;
  readonly file: string;
  readonly line: number;
  readonly color: number;
  readonly allocCount: number;
  readonly allocBytes: number;
  readonly peakBytes: number;
  readonly liveAtPeakBytes: number;
  readonly inclusiveLiveAtPeakBytes: number;
}

/** Where the view points: which snapshot and device. */
export interface Target {
  readonly snapshotId: string;
  readonly device: number;
}

// ---- webview -> host ----

export type WebviewMessage =
  | { readonly type: 'ready' }
  | { readonly type: 'overview'; readonly requestId: number; readonly target: Target; readonly axis: AxisKind; readonly columns: number }
  | { readonly type: 'window'; readonly requestId: number; readonly target: Target; readonly request: WindowRequest }
  /** The advisor's findings that name trace events, placed on the axis. */
  | { readonly type: 'findings'; readonly requestId: number; readonly target: Target; readonly axis: AxisKind }
  | { readonly type: 'block'; readonly requestId: number; readonly target: Target; readonly record: number }
  | { readonly type: 'lines'; readonly requestId: number; readonly target: Target }
  | { readonly type: 'stackFilter'; readonly requestId: number; readonly target: Target; readonly text: string }
  /** The blocks of a line (a path as the snapshot names it), to zoom to the largest. */
  | { readonly type: 'lineBlocks'; readonly requestId: number; readonly target: Target; readonly file: string; readonly line: number }
  | { readonly type: 'openSource'; readonly file: string; readonly line: number }
  | { readonly type: 'runCommand'; readonly command: AllowedCommand }
  /** The snapshot and device the view now shows (the host's `Show Line in Timeline` uses them). */
  | { readonly type: 'showing'; readonly target: Target }
  | { readonly type: 'log'; readonly level: 'info' | 'warn' | 'error'; readonly message: string };

export type WebviewMessageType = WebviewMessage['type'];

// ---- host -> webview ----

export type HostMessage =
  | { readonly type: 'snapshots'; readonly snapshots: readonly SnapshotChoice[]; readonly activeId: string | undefined }
  | { readonly type: 'overview'; readonly requestId: number; readonly overview: TimelineOverview }
  | { readonly type: 'window'; readonly requestId: number; readonly window: TimelineWindow }
  | { readonly type: 'findings'; readonly requestId: number; readonly markers: readonly FindingMarker[] }
  | { readonly type: 'block'; readonly requestId: number; readonly detail: BlockDetail }
  | { readonly type: 'lines'; readonly requestId: number; readonly rows: readonly LineRow[] }
  | { readonly type: 'stackFilter'; readonly requestId: number; readonly lineIds: readonly number[] }
  | { readonly type: 'lineBlocks'; readonly requestId: number; readonly blocks: LineBlocks | undefined }
  | { readonly type: 'error'; readonly requestId: number; readonly message: string }
  /** Select a line and zoom to its largest block (the `Show Line in Timeline` command). */
  | { readonly type: 'showLine'; readonly target: Target; readonly blocks: LineBlocks };

export type HostMessageType = HostMessage['type'];

const WEBVIEW_TYPES: ReadonlySet<string> = new Set<WebviewMessageType>([
  'ready',
  'overview',
  'window',
  'findings',
  'block',
  'lines',
  'stackFilter',
  'lineBlocks',
  'openSource',
  'runCommand',
  'showing',
  'log',
]);
const HOST_TYPES: ReadonlySet<string> = new Set<HostMessageType>([
  'snapshots',
  'overview',
  'window',
  'findings',
  'block',
  'lines',
  'stackFilter',
  'lineBlocks',
  'error',
  'showLine',
]);

function hasType(message: unknown, types: ReadonlySet<string>): boolean {
  if (typeof message !== 'object' || message === null) return false;
  const type = (message as { type?: unknown }).type;
  return typeof type === 'string' && types.has(type);
}

/** Whether a value names a message type the host knows (its fields are checked where it is handled). */
export function isWebviewMessage(message: unknown): message is WebviewMessage {
  return hasType(message, WEBVIEW_TYPES);
}

export function isHostMessage(message: unknown): message is HostMessage {
  return hasType(message, HOST_TYPES);
}
