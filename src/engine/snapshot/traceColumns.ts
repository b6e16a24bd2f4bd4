/**
 * Builds one device's columnar trace from decoded trace entries, one entry at a time, so that the
 * decoder can hand entries over as it reads them (the entry objects then die young) instead of
 * keeping a list of millions of dicts.
 */
import { SnapshotFormatError } from './errors';
import type { FrameTable } from './intern';
import type { DeviceTrace, Segment } from './model';
import type { WindowCarry } from './window';
import { Action, STACK_NOT_READ } from './model';
import { asInteger, describe, isDict, notAnInteger, text } from './pyFields';
import type { EntryFields } from '../pickle/traceEntries';
import type { QuickEntryTarget } from '../pickle/quickEntries';
import { isBlankContext, isBlankMetadata } from '../pickle/entryCodes';

export const ACTION_BY_NAME: ReadonlyMap<string, Action> = new Map([
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

/** Entries per chunk: columns grow by whole chunks, so growing never copies what was read. */
const CHUNK = 1 << 16;

/** The six columns of trace entries, over one storage block. */
class Columns {
  readonly action: Uint8Array;
  readonly addr: Float64Array;
  readonly size: Float64Array;
  readonly timeUs: Float64Array;
  readonly stack: Int32Array;
  readonly stream: Float64Array;
  constructor(readonly capacity: number) {
    this.action = new Uint8Array(capacity);
    this.addr = new Float64Array(capacity);
    this.size = new Float64Array(capacity);
    this.timeUs = new Float64Array(capacity);
    this.stack = new Int32Array(capacity);
    this.stream = new Float64Array(capacity);
  }
}

type ColumnName = 'action' | 'addr' | 'size' | 'timeUs' | 'stack' | 'stream';
/** The columns of every empty trace (read only). */
const EMPTY = new Columns(0);
const COLUMN_NAMES: readonly ColumnName[] = ['action', 'addr', 'size', 'timeUs', 'stack', 'stream'];

/**
 * One storage block for every trace of a file, sized before decoding from the number of dicts the
 * pickle builds (each trace entry is one). Traces are written one after another, so each takes a
 * contiguous range and its columns are views: no growing, no copying.
 */
export class TraceArena extends Columns {
  cursor = 0;
}

export class TraceColumns implements QuickEntryTarget {
  /** Entries of the recorded trace pushed so far, and those kept (all of them unless a window is loaded). */
  private n = 0;
  private m = 0;
  /** Where entries go now: the arena (from `start`) or, once that is not possible, chunks. */
  private target: Columns | undefined;
  private readonly start: number;
  private chunks: Columns[] | undefined;
  /** The slot last made room for (an entry the window drops leaves its slot to the next). */
  private slotIndex = -1;
  private slotAt = 0;
  private readonly deviceFree = new Map<number, number>();
  private readonly otherActions = new Map<number, string>();
  private readonly userMetadata = new Map<number, string>();
  private readonly compileContext = new Map<number, string>();
  /** The first malformed entry; reported when the trace is built (its device is known then). */
  private problem: Problem | undefined;

  constructor(
    private readonly table: FrameTable,
    private readonly arena?: TraceArena,
    /** When only a window of the trace is loaded: decides which entries are kept, and what is carried in. */
    private readonly carry?: WindowCarry,
    /** False: entries' frames are read and checked, but their stacks are not kept (the column holds STACK_NOT_READ). */
    private readonly stacks = true,
  ) {
    this.start = arena?.cursor ?? 0;
    this.target = arena;
  }

  /** Entries kept. */
  get length(): number {
    return this.m;
  }

  push(entry: unknown): void {
    if (!isDict(entry)) {
      const index = this.n++;
      this.problem ??= { index, detail: `is ${describe(entry)}, expected a dict` };
      return;
    }
    const stack = this.table.stackOf(entry.frames);
    this.pushFields(entry.action, entry.addr, entry.size, entry.time_us, entry.stream, this.stacks ? stack : STACK_NOT_READ, entry.device_free, entry.user_metadata, entry.compile_context);
  }

  /** After writing entry `index` at slot `j`: whether the window keeps it (always, without a window). */
  private kept(index: number, c: Columns, j: number): boolean {
    if (this.carry === undefined || this.carry.event(index, c.action[j], c.addr[j], c.size[j], c.stack[j], c.timeUs[j])) {
      this.m++;
      return true;
    }
    // The slot is written again by the next entry: clear what a zero is not written for.
    c.stream[j] = 0;
    return false;
  }

  /** One entry given its fields (`undefined`: the key is missing) and its interned stack. */
  pushFields(name: unknown, addr: unknown, size: unknown, time: unknown, stream: unknown, stack: number, deviceFree: unknown, metadata: unknown, context: unknown): void {
    const index = this.n++;
    const kept = this.m;
    const j = this.slot(kept);
    const c = this.target!;
    const code = typeof name === 'string' ? ACTION_BY_NAME.get(name) : undefined;
    c.action[j] = code ?? Action.Other;
    c.addr[j] = typeof addr === 'number' && addr >= 0 && Number.isSafeInteger(addr) ? addr : this.slowInteger(addr, index, 'addr', 0);
    c.size[j] = typeof size === 'number' && size >= 0 && Number.isSafeInteger(size) ? size : this.slowInteger(size, index, 'size', 0);
    c.timeUs[j] = typeof time === 'number' && time >= 0 && Number.isSafeInteger(time) ? time : this.slowInteger(time, index, 'time_us', NaN);
    // Columns start zeroed: a zero is not written, so a trace on the default stream (most are) never
    // touches the pages of its stream column.
    if (typeof stream === 'number' && Number.isFinite(stream) && stream !== 0) c.stream[j] = stream;
    c.stack[j] = stack;
    if (!this.kept(index, c, j)) return;
    if (code === undefined) this.otherActions.set(kept, text(name));
    if (code === Action.Oom && deviceFree !== undefined) {
      this.deviceFree.set(kept, this.slowInteger(deviceFree, index, 'device_free', 0));
    }
    if (typeof metadata === 'string' && !isBlankMetadata(metadata)) this.userMetadata.set(kept, metadata);
    if (typeof context === 'string' && !isBlankContext(context)) this.compileContext.set(kept, context);
  }

  /**
   * One entry read by the decoder's fast path: its numeric fields unboxed and its action's code (see
   * `EntryFields`), and its interned stack. Normalises exactly as {@link pushFields}.
   */
  pushEntry(e: EntryFields, stack: number): void {
    const index = this.n++;
    const kept = this.m;
    const j = this.slot(kept);
    const c = this.target!;
    const action = e.actionCode;
    c.action[j] = action < 0 ? Action.Other : action;
    const { numbers, numeric, values } = e;
    // An int of the pickle is a safe integer: only its sign is left to check. Each column is written
    // in its own branch: a double read from `numbers` and a value from `slowInteger` meeting in one
    // expression would box the double (an allocation per field of every entry).
    if ((numeric & 1) !== 0 && numbers[0] >= 0) c.addr[j] = numbers[0];
    else c.addr[j] = this.slowInteger((numeric & 1) !== 0 ? numbers[0] : values[0], index, 'addr', 0);
    if ((numeric & 2) !== 0 && numbers[1] >= 0) c.size[j] = numbers[1];
    else c.size[j] = this.slowInteger((numeric & 2) !== 0 ? numbers[1] : values[1], index, 'size', 0);
    if ((numeric & 4) !== 0 && numbers[2] >= 0) c.timeUs[j] = numbers[2];
    else c.timeUs[j] = this.slowInteger((numeric & 4) !== 0 ? numbers[2] : values[2], index, 'time_us', NaN);
    if ((numeric & 8) !== 0) {
      if (numbers[3] !== 0) c.stream[j] = numbers[3];
    } else {
      const stream = values[3];
      if (typeof stream === 'number' && Number.isFinite(stream) && stream !== 0) c.stream[j] = stream;
    }
    c.stack[j] = stack;
    if (this.carry !== undefined && !this.kept(index, c, j)) return;
    if (this.carry === undefined) this.m++;
    if (action < 0) this.otherActions.set(kept, e.action);
    if (action === Action.Oom && ((numeric & 16) !== 0 || values[4] !== undefined)) {
      this.deviceFree.set(kept, this.slowInteger((numeric & 16) !== 0 ? numbers[4] : values[4], index, 'device_free', 0));
    }
    const metadata = e.userMetadata;
    if (typeof metadata === 'string' && !isBlankMetadata(metadata)) this.userMetadata.set(kept, metadata);
    const context = e.compileContext;
    if (typeof context === 'string' && !isBlankContext(context)) this.compileContext.set(kept, context);
  }

  /**
   * One entry read by the decoder's quick loop (see `QuickEntryTarget`): normalised already, so written
   * as {@link pushEntry} writes such an entry.
   */
  pushNumbers(action: number, numbers: Float64Array, stack: number): void {
    const index = this.n++;
    const j = this.slot(this.m);
    const c = this.target!;
    c.action[j] = action;
    c.addr[j] = numbers[0];
    c.size[j] = numbers[1];
    c.timeUs[j] = numbers[2];
    if (numbers[3] !== 0) c.stream[j] = numbers[3];
    c.stack[j] = this.stacks ? stack : STACK_NOT_READ;
    if (this.carry === undefined) this.m++;
    else this.kept(index, c, j);
  }

  /**
   * The finished trace; throws SnapshotFormatError for the first malformed entry. `segments`: the
   * device's, which a window's carried-in state needs.
   */
  build(device: number, segments: readonly Segment[] = []): DeviceTrace {
    if (this.problem) throw new SnapshotFormatError(`device ${device} trace entry ${this.problem.index} ${this.problem.detail}`);
    const column = <N extends ColumnName>(name: N): Columns[N] => this.column(name);
    const window = this.carry?.finish(this.n, segments);
    const trace: DeviceTrace = {
      ...(window === undefined ? {} : { window }),
      device,
      length: this.m,
      action: column('action'),
      addr: column('addr'),
      size: column('size'),
      timeUs: column('timeUs'),
      stack: column('stack'),
      stream: column('stream'),
      deviceFree: this.deviceFree,
      otherActions: this.otherActions,
      userMetadata: this.userMetadata,
      compileContext: this.compileContext,
    };
    this.chunks = undefined;
    this.target = undefined;
    return trace;
  }

  /** Makes room for entry `index` and returns its position in `this.target` (again for the same index). */
  private slot(index: number): number {
    if (index === this.slotIndex) return this.slotAt;
    this.slotIndex = index;
    this.slotAt = this.makeSlot(index);
    return this.slotAt;
  }

  private makeSlot(index: number): number {
    const arena = this.arena;
    if (this.chunks === undefined && arena !== undefined) {
      const at = this.start + index;
      if (arena.cursor === at && at < arena.capacity) {
        arena.cursor = at + 1;
        return at;
      }
      this.moveToChunks(arena, index);
    }
    const chunks = (this.chunks ??= []);
    const j = index & (CHUNK - 1);
    if (j === 0 || this.target === undefined) {
      this.target = new Columns(CHUNK);
      chunks.push(this.target);
    }
    return j;
  }

  /** The arena range is no longer contiguous (another list was written in between): copy it out. */
  private moveToChunks(arena: TraceArena, count: number): void {
    const chunks: Columns[] = [];
    for (let from = 0; from < count; from += CHUNK) {
      const chunk = new Columns(CHUNK);
      const end = Math.min(count, from + CHUNK);
      for (const name of COLUMN_NAMES) {
        chunk[name].set(arena[name].subarray(this.start + from, this.start + end));
      }
      chunks.push(chunk);
    }
    this.chunks = chunks;
    this.target = chunks[chunks.length - 1];
    if (count % CHUNK === 0) this.target = undefined;
  }

  private column<N extends ColumnName>(name: N): Columns[N] {
    const n = this.m;
    if (this.chunks === undefined) {
      if (this.arena === undefined || n === 0) return EMPTY[name];
      return this.arena[name].subarray(this.start, this.start + n) as Columns[N];
    }
    const out = (name === 'action' ? new Uint8Array(n) : name === 'stack' ? new Int32Array(n) : new Float64Array(n)) as Columns[N];
    this.chunks.forEach((chunk, k) => {
      const from = k * CHUNK;
      out.set(chunk[name].subarray(0, Math.min(CHUNK, n - from)), from);
    });
    return out;
  }

  private slowInteger(value: unknown, index: number, field: string, missing: number): number {
    if (value === undefined || value === null) return missing;
    const n = asInteger(value);
    if (n !== undefined) return n;
    this.problem ??= { index, detail: `${field} is ${notAnInteger(value)}` };
    return 0;
  }
}
