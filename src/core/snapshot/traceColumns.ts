/**
 * Builds one device's columnar trace from decoded trace entries, one entry at a time, so that the
 * decoder can hand entries over as it reads them (the entry objects then die young) instead of
 * keeping a list of millions of dicts.
 */
import { SnapshotFormatError } from './errors';
import type { FrameTable } from './intern';
import type { DeviceTrace } from './model';
import { Action } from './model';
import { asInteger, describe, isDict, text } from './pyFields';

const ACTION_BY_NAME: ReadonlyMap<string, Action> = new Map([
  ['alloc', Action.Alloc],
  ['free_requested', Action.FreeRequested],
  ['free_completed', Action.FreeCompleted],
  ['segment_alloc', Action.SegmentAlloc],
  ['segment_free', Action.SegmentFree],
  ['segment_map', Action.SegmentMap],
  ['segment_unmap', Action.SegmentUnmap],
  ['oom', Action.Oom],
  ['snapshot', Action.Snapshot],
]);

/** True for a decoded value shaped like a trace entry (what the decoder's append hook looks for). */
export function looksLikeTraceEntry(value: unknown): boolean {
  return isDict(value) && typeof value.action === 'string';
}

interface Problem {
  readonly index: number;
  readonly detail: string;
}

export class TraceColumns {
  private n = 0;
  private capacity: number;
  private action: Uint8Array;
  private addr: Float64Array;
  private size: Float64Array;
  private timeUs: Float64Array;
  private stack: Int32Array;
  private stream: Float64Array;
  private readonly deviceFree = new Map<number, number>();
  private readonly otherActions = new Map<number, string>();
  private readonly userMetadata = new Map<number, string>();
  private readonly compileContext = new Map<number, string>();
  /** The first malformed entry; reported when the trace is built (its device is known then). */
  private problem: Problem | undefined;

  constructor(
    private readonly table: FrameTable,
    initialCapacity = 1024,
  ) {
    this.capacity = Math.max(16, initialCapacity);
    this.action = new Uint8Array(this.capacity);
    this.addr = new Float64Array(this.capacity);
    this.size = new Float64Array(this.capacity);
    this.timeUs = new Float64Array(this.capacity);
    this.stack = new Int32Array(this.capacity);
    this.stream = new Float64Array(this.capacity);
  }

  get length(): number {
    return this.n;
  }

  push(entry: unknown): void {
    const i = this.n;
    if (i === this.capacity) this.grow();
    this.n = i + 1;
    if (!isDict(entry)) {
      this.problem ??= { index: i, detail: `is ${describe(entry)}, expected a dict` };
      return;
    }
    const name = entry.action;
    const code = typeof name === 'string' ? ACTION_BY_NAME.get(name) : undefined;
    if (code === undefined) {
      this.action[i] = Action.Other;
      this.otherActions.set(i, text(name));
    } else {
      this.action[i] = code;
    }
    const addr = entry.addr;
    this.addr[i] = typeof addr === 'number' ? addr : this.slowInteger(addr, i, 'addr', 0);
    const size = entry.size;
    this.size[i] = typeof size === 'number' ? size : this.slowInteger(size, i, 'size', 0);
    const time = entry.time_us;
    this.timeUs[i] = typeof time === 'number' ? time : this.slowInteger(time, i, 'time_us', NaN);
    const stream = entry.stream;
    this.stream[i] = typeof stream === 'number' ? stream : 0;
    this.stack[i] = this.table.stackOf(entry.frames);
    if (code === Action.Oom && entry.device_free !== undefined) {
      this.deviceFree.set(i, this.slowInteger(entry.device_free, i, 'device_free', 0));
    }
    const metadata = entry.user_metadata;
    if (typeof metadata === 'string' && metadata !== '') this.userMetadata.set(i, metadata);
    const context = entry.compile_context;
    if (typeof context === 'string' && context !== '' && context !== 'N/A') this.compileContext.set(i, context);
  }

  /** The finished trace; throws SnapshotFormatError for the first malformed entry. */
  build(device: number): DeviceTrace {
    if (this.problem) throw new SnapshotFormatError(`device ${device} trace entry ${this.problem.index} ${this.problem.detail}`);
    const n = this.n;
    const fit = <T extends Uint8Array | Float64Array | Int32Array>(a: T): T => (a.length === n ? a : (a.slice(0, n) as T));
    return {
      device,
      length: n,
      action: fit(this.action),
      addr: fit(this.addr),
      size: fit(this.size),
      timeUs: fit(this.timeUs),
      stack: fit(this.stack),
      stream: fit(this.stream),
      deviceFree: this.deviceFree,
      otherActions: this.otherActions,
      userMetadata: this.userMetadata,
      compileContext: this.compileContext,
    };
  }

  private slowInteger(value: unknown, index: number, field: string, missing: number): number {
    if (value === undefined || value === null) return missing;
    const n = asInteger(value);
    if (n !== undefined) return n;
    const what = typeof value === 'bigint' ? `${String(value)}, too large to be a byte count or address` : `${describe(value)}, expected a number`;
    this.problem ??= { index, detail: `${field} is ${what}` };
    return 0;
  }

  private grow(): void {
    const capacity = Math.ceil(this.capacity * 1.5);
    const grow = <T extends Uint8Array | Float64Array | Int32Array>(a: T, make: (n: number) => T): T => {
      const b = make(capacity);
      b.set(a);
      return b;
    };
    this.action = grow(this.action, (k) => new Uint8Array(k));
    this.addr = grow(this.addr, (k) => new Float64Array(k));
    this.size = grow(this.size, (k) => new Float64Array(k));
    this.timeUs = grow(this.timeUs, (k) => new Float64Array(k));
    this.stack = grow(this.stack, (k) => new Int32Array(k));
    this.stream = grow(this.stream, (k) => new Float64Array(k));
    this.capacity = capacity;
  }
}
