/**
 * The fast path for trace entries: reads the dicts of a snapshot's `device_traces` lists straight from
 * the bytes, in the shapes CPython writes for PyTorch's entries (a dict of str keys, in any order; keys
 * and repeated strings as memo references; ints; a frames list of frame dicts, or a memo reference to
 * one), and hands each entry's fields to a sink that writes columns. No dict is built for an entry and
 * no list for a frames list: an entry's memo slot gets a token (`CONSUMED_ENTRY`), a frames list's the
 * token of its interned stack, which later entries that share the list read back. A frames list's items
 * that read back a frame dict interned before become its frame id in one small loop (the id cached per
 * memo key), and a new frame dict just like one interned before is not built (its memo slot gets that
 * one): files that share frames and files that write them anew both read at the speed of their bytes.
 *
 * Nearly every entry PyTorch writes has one shape (its keys, action and frames read back from the memo,
 * ints, blank metadata): a quick loop (`quickEntries`) reads those over local variables and writes them
 * straight into the columns; the first byte of anything else leaves the entry to the small steps, which
 * read every shape the fast path takes and fill the caches (key, action and frame codes per memo key) the
 * quick loop reads.
 *
 * Anything else (another opcode, a value that is a container, a key that is not a string, a repeated
 * key, an entry cut by the end of the chunk) makes the reader stop before that entry, undoing what it
 * wrote to the memo for it, and the general machine decodes it as usual. So the result never depends
 * on the path: the fast path only changes how fast, and how much is built. A pickle that later reads
 * back a token, changes a frame dict interned before, or closes a batch of entries other than by
 * APPENDS, makes the decoder start over without the fast path (`RestartWithoutFastPath`).
 *
 * One module: its small readers share the state of one read (the bytes at hand, the position, the memo
 * keys written for the entry being read, which are undone when it is given back) as fields of one reader.
 */
import { ContentError } from '../base/errors';
import { readInt32, readUint16, readUint32, readUint64 } from './binary';
import type { EntryReader, Machine } from './machine';
import { CONSUMED_ENTRY, MemoToken } from './memo';
import { decodeLong } from './numbers';
import { Op } from './opcodes';
import { decodeUtf8 } from './strings';
import type { PyDict, PyValue } from './values';

/** An entry's frames, as read: what the sink turns into a stack id. */
export interface EntryFrames {
  /**
   * 'none': no frames list (missing, None or a scalar); 'stack': a list read before (its stack id in
   * `stack`); 'list': a list the general machine built (`list`); 'ids': a new list, its items in `ids`.
   */
  kind: 'none' | 'stack' | 'list' | 'ids';
  stack: number;
  list: PyValue[] | undefined;
  /**
   * The items of a new list, `idCount` of them (the array is reused): a frame id (>= 0) where the item
   * is a frame dict the sink interned before (read back from the memo), else `-1 - j` for the frame
   * dict `pending[j]`, which the sink interns (and so checks) when the entry is written.
   */
  ids: Int32Array;
  idCount: number;
  pending: PyDict[];
  pendingCount: number;
  /** While `pendingCount` is 0: the stack hash of `ids` (`stackHash`), computed as they are read. */
  hash: number;
}

/** The stack hash of frame ids (FNV-1a over the ids): the first step, then one step per id. */
export const STACK_HASH_START = 0x811c9dc5;
export function stackHashStep(hash: number, id: number): number {
  return Math.imul(hash ^ id, 0x01000193);
}

/** The numeric fields of an entry, by their index in {@link EntryFields.numbers}. */
export const enum EntryNumber {
  Addr = 0,
  Size = 1,
  TimeUs = 2,
  Stream = 3,
  DeviceFree = 4,
}

/** One entry's fields as read. */
export interface EntryFields {
  /** The action's code from {@link EntrySink.actionCode}; -1: not a known action, named by `action`. */
  actionCode: number;
  /** The action's name (set when `actionCode` is -1). */
  action: string;
  /**
   * The numeric fields (see {@link EntryNumber}): field i is `numbers[i]` when bit i of `numeric` is
   * set (an int of the pickle, as a safe integer: read without boxing), else `values[i]` (undefined
   * when the key is missing; any other value as decoded).
   */
  readonly numbers: Float64Array;
  numeric: number;
  readonly values: (PyValue | undefined)[];
  userMetadata: PyValue | undefined;
  compileContext: PyValue | undefined;
  readonly frames: EntryFrames;
}

/** Where the fast path's entries go (the snapshot reader's trace sink). */
export interface EntrySink {
  /** True when `list` takes entries this way: a trace being streamed, or an empty list (its first entry starts one). */
  accepts(list: PyValue[]): boolean;
  /** True when `list` is a trace being streamed (an entry without an action is one of its entries). */
  isTrace(list: PyValue[]): boolean;
  /** Writes one entry to the trace of `list`; returns the stack id of its frames. */
  push(list: PyValue[], entry: EntryFields): number;
  /** The code of a known action name, -1 for any other (the reader remembers it per memo key). */
  actionCode(name: string): number;
  /**
   * The frame id of a frame dict the sink interned before (-1 for anything else): an item of a frames
   * list read back from the memo is then one id, with nothing read from the dict.
   */
  frameIdOf(value: unknown): number;
  /**
   * An interned frame dict of exactly the keys `filename`, `line` and `name`, in the `order` given (their
   * indices 0, 1, 2 as base-3 digits, first key first), and of these values: a new frame dict just like it
   * (PyTorch 2.0 writes one per frame occurrence) is that one, and so is kept in the memo in its place (one
   * dict per frame, not per occurrence). Nothing can tell them apart: a change to an interned dict makes
   * the decode start over without the fast path (`readsDict`).
   */
  sameFrame(order: number, filename: PyValue, line: PyValue, name: PyValue): PyDict | undefined;
  /**
   * The trace being streamed into `list`, for the reader's quick loop (entries of the one shape nearly
   * every entry of PyTorch's files has); undefined while `list` is no trace yet.
   */
  quickTarget(list: PyValue[]): QuickEntryTarget | undefined;
  /** Counts `n` entries the quick loop wrote (as `push` counts its own). */
  countQuick(n: number): void;
  /**
   * The stack id of a new frames list the quick loop read, from its first `count` frame ids (interned
   * before) and their hash (`stackHash`), as `push` gives it for such a list.
   */
  quickStack(ids: Int32Array, count: number, hash: number): number;
}

/** Where the quick loop writes an entry: the columns of one trace. */
export interface QuickEntryTarget {
  /**
   * One entry, normalised as `push` would: its action's code (a known action), its `addr`, `size`,
   * `time_us` and `stream` in `numbers[0..3]` (non-negative safe integers; 0, 0, NaN and 0 where the key
   * is missing), and the stack id of its frames (NO_STACK where it has none).
   */
  pushNumbers(action: number, numbers: Float64Array, stack: number): void;
}

/** The blank strings the quick loop reads when written anew: '' (-1) and 'N/A' (-2). */
const BLANKS = ['', 'N/A'] as const;

/** `NO_STACK` of the snapshot model: an entry without frames. */
const NO_FRAMES = -1;

const enum Key {
  Addr = EntryNumber.Addr,
  Size = EntryNumber.Size,
  TimeUs = EntryNumber.TimeUs,
  Stream = EntryNumber.Stream,
  DeviceFree = EntryNumber.DeviceFree,
  Action,
  UserMetadata,
  CompileContext,
  Frames,
  Other,
}

const ENTRY_KEYS: ReadonlyMap<string, Key> = new Map([
  ['action', Key.Action],
  ['addr', Key.Addr],
  ['size', Key.Size],
  ['time_us', Key.TimeUs],
  ['stream', Key.Stream],
  ['device_free', Key.DeviceFree],
  ['user_metadata', Key.UserMetadata],
  ['compile_context', Key.CompileContext],
  ['frames', Key.Frames],
]);

/** Memo keys below this have their key strings' codes cached (keys are memoized early in a file). */
const KEY_CACHE = 1 << 16;
/** Memo keys per page of the frame id cache (`TraceEntryReader.framePages`). */
const FRAME_PAGE_BITS = 12;
const FRAME_PAGE = 1 << FRAME_PAGE_BITS;
const UNKNOWN = -2;

/** What a step of an entry's reading returns instead of a position: the entry is cut by the end of the bytes at hand. */
const CUT = -2;
/** ... or it is not one the fast path reads. */
const NOT_OURS = -1;

/** A value the fast path does not read (a container, a token, malformed or cut bytes). */
const NOT_READ = Symbol('notRead');
type Read = PyValue | typeof NOT_READ;

/** Memo keys written for the entry being read, undone if it turns out not to be one the fast path reads. */
const MAX_JOURNAL = 512;

export class TraceEntryReader implements EntryReader {
  private readonly stackTokens: MemoToken[] = [];
  /** Memo keys written for the entry being read (`journalLength` of them), undone if it is given back. */
  private readonly journal = new Float64Array(MAX_JOURNAL);
  private journalLength = 0;
  private readonly fields: EntryFields = {
    actionCode: -1,
    action: '',
    numbers: new Float64Array(5),
    numeric: 0,
    values: [undefined, undefined, undefined, undefined, undefined],
    userMetadata: undefined,
    compileContext: undefined,
    frames: { kind: 'none', stack: 0, list: undefined, ids: new Int32Array(256), idCount: 0, pending: [], pendingCount: 0, hash: STACK_HASH_START },
  };
  // The state of one read() call, as fields so the small readers below share it.
  private m!: Machine;
  private data: Uint8Array = new Uint8Array(0);
  private view: DataView = new DataView(this.data.buffer);
  private end = 0;
  private p = 0;
  /** Memo key of the frames list being read (-1: not memoized). */
  private framesKey = -1;
  /** Work of the entry being read (its dict and memo reads), counted once it is written. */
  private entryWork = 0;
  /** Set when the entry being read runs past the end of the bytes at hand. */
  private cut = false;
  /** The items of the frame dict being read (`frameDict`). */
  private readonly frameNames: string[] = [];
  private readonly frameValues: PyValue[] = [];
  /**
   * Memo key -> the code of the key string (`keyCodes`) or action name (`actionCodes`) stored there,
   * kept while the memo overwrites nothing (so the memo need not be read for every key of every entry).
   */
  private readonly keyCodes = new Int8Array(KEY_CACHE).fill(UNKNOWN);
  private readonly actionCodes = new Int8Array(KEY_CACHE).fill(UNKNOWN);
  /**
   * Memo key -> the id of the interned frame dict stored there (-1: not known), in pages of
   * FRAME_PAGE keys made where frame dicts are read back, kept like `keyCodes`.
   */
  private framePages: (Int32Array | undefined)[] = [];
  /** Memo key -> the code of the frame key stored there ('filename' 0, 'line' 1, 'name' 2, other -1), kept like `keyCodes`. */
  private readonly frameKeyCodes = new Int8Array(KEY_CACHE).fill(UNKNOWN);
  /**
   * What the quick loop memoizes for the entry it reads after the entry itself, in the order of their memo
   * keys (`quickMemoCount` of them): a new blank string, a new frames list (undefined until its stack is
   * known; at `quickListSlot`), the interned frame dicts standing for the list's new ones.
   */
  private readonly quickMemo: (PyValue | MemoToken | undefined)[] = [];
  private quickMemoCount = 0;
  private quickListSlot = -1;
  /** New frame dicts of the list `quickFrames` read. */
  private quickNewDicts = 0;
  private cachedOverwrites = 0;

  constructor(private readonly sink: EntrySink) {}

  /** True for a dict the fast path has read as a frame (an interned one): changing it later must restart the decode. */
  readsDict(dict: PyDict): boolean {
    return this.sink.frameIdOf(dict) >= 0;
  }

  read(list: PyValue[], m: Machine): boolean {
    if (!this.sink.accepts(list)) return false;
    this.m = m;
    if (this.data !== m.data) {
      this.data = m.data;
      this.view = new DataView(m.data.buffer, m.data.byteOffset, m.data.byteLength);
    }
    this.end = m.data.length;
    this.cut = false;
    let pos = m.pos;
    let target = this.sink.quickTarget(list);
    for (;;) {
      this.p = pos;
      this.skipFrames();
      if (this.cut || this.atEnd() || this.data[this.p] !== Op.EMPTY_DICT) break;
      // The quick loop reads what it can (with the caches as they are: it stores no memo key twice); the
      // first entry it does not read goes through the steps below, which fill the caches it reads.
      if (target !== undefined && m.memo.overwrites === this.cachedOverwrites) {
        const before = this.p;
        this.quickEntries(target);
        if (this.p !== before) {
          pos = this.p;
          continue;
        }
      }
      if (!this.entry(list)) break;
      pos = this.p;
      target ??= this.sink.quickTarget(list);
    }
    m.pos = pos;
    // An entry cut by the end of the bytes at hand waits for the next chunk (at the input's end, the
    // general machine reports where it ends).
    return this.cut && !m.final;
  }

  /**
   * The quick loop: entries at `p` in the one shape nearly every entry of PyTorch's files has, read with
   * locals and written straight to `target`, until one that is not (`p` is left at its first byte): a
   * dict memoized by MEMOIZE whose keys are read back from the memo (their codes cached), each at most
   * once, among `action` (a name read back, its code cached), `addr`, `size`, `time_us`, `stream` (ints
   * as `intAt` reads them, non-negative), `frames` (a list read before, as its stack's token, or a new
   * list of frame dicts read back or just like interned ones), and `user_metadata` and `compile_context`
   * when blank ('', or 'N/A' for the latter; read back, or new and memoized). It writes to the memo what
   * the steps below write (the entry's key, then those of its new values) and counts the same work.
   * Memo reads are decoded in place here and in `quickFrames` and `quickFrameDict`: one helper for them
   * read the plain 20 MB file 15-20% slower (min of 15 warm reads, 57-61 ms against 49-50).
   */
  private quickEntries(target: QuickEntryTarget): void {
    const data = this.data;
    const end = this.end;
    const memo = this.m.memo;
    const keyCodes = this.keyCodes;
    const actionCodes = this.actionCodes;
    const numbers = this.fields.numbers;
    let p = this.p;
    let count = 0;
    let work = 0;
    entries: for (;;) {
      if (end - p < 3 || data[p] !== Op.EMPTY_DICT || data[p + 1] !== Op.MEMOIZE || data[p + 2] !== Op.MARK) break;
      let q = p + 3;
      let seen = 0;
      let keys = 0;
      let action = -1;
      let stack = NO_FRAMES;
      let blanks = 0;
      /** The number of frame ids of a new frames list (-1: none). */
      let listed = -1;
      this.quickMemoCount = 0;
      numbers[0] = 0;
      numbers[1] = 0;
      numbers[2] = NaN;
      numbers[3] = 0;
      for (;;) {
        if (q >= end) break entries;
        let op = data[q];
        if (op === Op.SETITEMS) break;
        // The key, read back from the memo.
        let k: number;
        if (op === Op.BINGET) {
          if (q + 1 >= end) break entries;
          k = data[q + 1];
          q += 2;
        } else if (op === Op.LONG_BINGET) {
          if (end - q < 5) break entries;
          k = readUint32(data, q + 1);
          if (k >= KEY_CACHE) break entries;
          q += 5;
        } else {
          break entries;
        }
        const code = keyCodes[k];
        if (code < 0 || code === Key.DeviceFree || code === Key.Other || (seen & (1 << code)) !== 0) break entries;
        seen |= 1 << code;
        keys++;
        if (q >= end) break entries;
        op = data[q];
        if (code <= Key.Stream) {
          // An int: as `intAt` reads it, and non-negative (what `push` takes as it is).
          if (op === Op.BININT1) {
            if (q + 1 >= end) break entries;
            numbers[code] = data[q + 1];
            q += 2;
          } else if (op === Op.BININT2) {
            if (end - q < 3) break entries;
            numbers[code] = readUint16(data, q + 1);
            q += 3;
          } else if (op === Op.BININT) {
            if (end - q < 5 || data[q + 4] >= 0x80) break entries;
            numbers[code] = readUint32(data, q + 1);
            q += 5;
          } else if (op === Op.LONG1) {
            if (q + 1 >= end) break entries;
            const n = data[q + 1];
            if (n === 0 || n > 7 || end - q - 2 < n || data[q + 1 + n] >= 0x80) break entries;
            const r = q + 2;
            if (n < 4) {
              numbers[code] = data[r] + (n > 1 ? data[r + 1] * 256 : 0) + (n > 2 ? data[r + 2] * 65536 : 0);
            } else {
              let high = 0;
              for (let i = n - 1; i >= 4; i--) high = high * 256 + data[r + i];
              if (high >= 0x20_0000) break entries;
              numbers[code] = high * 0x1_0000_0000 + readUint32(data, r);
            }
            q = r + n;
          } else {
            break entries;
          }
          continue;
        }
        // A new frames list: its items all frame dicts read back whose ids are cached.
        if (code === Key.Frames && op === Op.EMPTY_LIST) {
          q = this.quickFrames(q);
          if (q < 0) break entries;
          listed = this.fields.frames.idCount;
          continue;
        }
        // The action's name, the frames list, or a blank string, read back from the memo.
        let v: number;
        if (op === Op.BINGET) {
          if (q + 1 >= end) break entries;
          v = data[q + 1];
          q += 2;
        } else if (op === Op.LONG_BINGET) {
          if (end - q < 5) break entries;
          v = readUint32(data, q + 1);
          q += 5;
        } else if (op === Op.SHORT_BINUNICODE && (code === Key.UserMetadata || code === Key.CompileContext)) {
          // A new '' or 'N/A' (PyTorch writes a new 'N/A' in every entry), memoized: -1 - its index in BLANKS.
          v = this.newBlank(q);
          if (v === 0) break entries;
          q += v === -1 ? 3 : 6;
          this.quickMemo[this.quickMemoCount++] = BLANKS[-1 - v];
          blanks--;
        } else {
          break entries;
        }
        if (code === Key.Action) {
          action = v < KEY_CACHE ? actionCodes[v] : UNKNOWN;
          if (action < 0) break entries;
        } else if (code === Key.Frames) {
          const value = memo.get(v);
          if (!(value instanceof MemoToken) || value === CONSUMED_ENTRY) break entries;
          stack = value.id;
        } else {
          // `user_metadata` '' or `compile_context` '' / 'N/A' (what PyTorch writes when there is none):
          // nothing is kept of them. Any other value goes through the steps below, which keep it.
          const value = v < 0 ? BLANKS[-1 - v] : memo.get(v);
          if (!(value === '' || (value === 'N/A' && code === Key.CompileContext))) break entries;
          blanks++;
        }
      }
      if ((seen & (1 << Key.Action)) === 0 || memo.memoizeConsumed() < 0) break;
      if (listed >= 0) {
        // A new list's memo key holds its stack's token.
        const frames = this.fields.frames;
        stack = this.sink.quickStack(frames.ids, listed, frames.hash);
        this.quickMemo[this.quickListSlot] = this.stackToken(stack);
      }
      // The memo keys after the entry's, in the order of their MEMOIZE opcodes.
      for (let j = 0; j < this.quickMemoCount; j++) memo.memoize(this.quickMemo[j]!);
      target.pushNumbers(action, numbers, stack);
      // As `entry` counts: the dict, each key, each value read back (the action, a list read before,
      // blanks read back), and a new list and its items (a new frame dict counts itself, its three keys
      // and two strings read back: 6, where a frame read back counts 1).
      work += 2 + keys + blanks + (listed >= 0 ? 1 + listed + 5 * this.quickNewDicts : (seen & (1 << Key.Frames)) !== 0 ? 1 : 0);
      count++;
      p = q + 1;
    }
    this.p = p;
    if (count > 0) {
      this.m.work += work;
      this.sink.countQuick(count);
    }
  }

  /**
   * For the quick loop: a new frames list at `q` (EMPTY_LIST, MEMOIZE, then no item, one item and APPEND,
   * or batches of MARK ... APPENDS), every item a memo read of a frame dict whose id is cached, or a new
   * frame dict just like one interned before (`quickFrameDict`). Its ids and their hash go to
   * `fields.frames` (`ids`, `idCount`, `hash`); its memo slot and the interned dicts that stand for its new
   * ones to `quickMemo`. Returns the position after it, or -1 when it is not such a list (nothing is
   * written to the memo: the caller memoizes what `quickMemo` holds, in the order of their memo keys).
   */
  private quickFrames(q: number): number {
    const data = this.data;
    const end = this.end;
    const pages = this.framePages;
    const frames = this.fields.frames;
    let ids = frames.ids;
    let n = 0;
    let hash = STACK_HASH_START;
    if (end - q < 3 || data[q + 1] !== Op.MEMOIZE) return -1;
    q += 2;
    // No MARK: no item, or one appended by APPEND.
    const batches = data[q] === Op.MARK;
    this.quickListSlot = this.quickMemoCount;
    this.quickMemo[this.quickMemoCount++] = undefined;
    this.quickNewDicts = 0;
    if (!batches && data[q] !== Op.BINGET && data[q] !== Op.LONG_BINGET && data[q] !== Op.EMPTY_DICT) {
      frames.idCount = 0;
      frames.hash = hash;
      return q;
    }
    for (;;) {
      if (batches) {
        if (q >= end || data[q] !== Op.MARK) break;
        q++;
      }
      for (;;) {
        if (q >= end) return -1;
        const op = data[q];
        let k: number;
        if (op === Op.BINGET) {
          if (q + 1 >= end) return -1;
          k = data[q + 1];
          q += 2;
        } else if (op === Op.LONG_BINGET) {
          if (end - q < 5) return -1;
          k = readUint32(data, q + 1);
          q += 5;
        } else if (op === (batches ? Op.APPENDS : Op.APPEND)) {
          q++;
          break;
        } else if (op === Op.EMPTY_DICT) {
          k = -1;
        } else {
          return -1;
        }
        let id: number;
        if (k >= 0) {
          const page = pages[k >>> FRAME_PAGE_BITS];
          if (page === undefined) return -1;
          id = page[k & (FRAME_PAGE - 1)];
          if (id < 0) return -1;
        } else {
          // A new frame dict just like one interned before (PyTorch 2.0 writes one per occurrence).
          q = this.quickFrameDict(q);
          if (q < 0) return -1;
          id = this.sink.frameIdOf(this.quickMemo[this.quickMemoCount - 1]);
          this.quickNewDicts++;
        }
        if (n === ids.length) ids = this.growIds();
        ids[n++] = id;
        hash = Math.imul(hash ^ id, 0x01000193);
        // One item without MARK is followed by APPEND at once.
        if (!batches && (q >= end || data[q] !== Op.APPEND)) return -1;
      }
      if (!batches) break;
    }
    frames.idCount = n;
    frames.hash = hash;
    return q;
  }

  /**
   * A new '' or 'N/A' at `q` (SHORT_BINUNICODE, then MEMOIZE): -1 - its index in BLANKS, 0 for anything else.
   */
  private newBlank(q: number): number {
    const data = this.data;
    const end = this.end;
    if (end - q < 3) return 0;
    if (data[q + 1] === 0) return data[q + 2] === Op.MEMOIZE ? -1 : 0;
    if (data[q + 1] !== 3 || end - q < 6 || data[q + 2] !== 0x4e || data[q + 3] !== 0x2f || data[q + 4] !== 0x41 || data[q + 5] !== Op.MEMOIZE) return 0;
    return -2;
  }

  /**
   * For `quickFrames`: a new frame dict at `q` (EMPTY_DICT, MEMOIZE, MARK, then the keys `filename`, `line`
   * and `name`, read back from the memo, in any order, the names' values read back too and the line's an
   * int, SETITEMS) just like a frame dict interned before; that one goes to `quickMemo` (the memo keeps it
   * in the new one's place, as `frameDict` does). Returns the position after it, or -1.
   */
  private quickFrameDict(q: number): number {
    const data = this.data;
    const end = this.end;
    const memo = this.m.memo;
    const codes = this.frameKeyCodes;
    if (end - q < 3 || data[q + 1] !== Op.MEMOIZE || data[q + 2] !== Op.MARK) return -1;
    q += 3;
    let order = 0;
    let seen = 0;
    let filename: PyValue | undefined;
    let name: PyValue | undefined;
    let line = 0;
    for (let i = 0; i < 3; i++) {
      // The key: 'filename' (0), 'line' (1) or 'name' (2), its code cached per memo key.
      if (end - q < 2) return -1;
      let k: number;
      if (data[q] === Op.BINGET) {
        k = data[q + 1];
        q += 2;
      } else if (data[q] === Op.LONG_BINGET && end - q >= 5) {
        k = readUint32(data, q + 1);
        if (k >= KEY_CACHE) return -1;
        q += 5;
      } else {
        return -1;
      }
      let code = codes[k];
      if (code === UNKNOWN) {
        const key = memo.get(k);
        if (key === undefined) return -1;
        code = key === 'filename' ? 0 : key === 'line' ? 1 : key === 'name' ? 2 : -1;
        codes[k] = code;
      }
      if (code < 0 || (seen & (1 << code)) !== 0) return -1;
      seen |= 1 << code;
      order = order * 3 + code;
      if (q >= end) return -1;
      const op = data[q];
      if (code === 1) {
        // The line: an int as the steps read it, non-negative.
        if (op === Op.BININT1 && end - q >= 2) {
          line = data[q + 1];
          q += 2;
        } else if (op === Op.BININT2 && end - q >= 3) {
          line = readUint16(data, q + 1);
          q += 3;
        } else if (op === Op.BININT && end - q >= 5 && data[q + 4] < 0x80) {
          line = readUint32(data, q + 1);
          q += 5;
        } else {
          return -1;
        }
        continue;
      }
      let v: number;
      if (op === Op.BINGET && end - q >= 2) {
        v = data[q + 1];
        q += 2;
      } else if (op === Op.LONG_BINGET && end - q >= 5) {
        v = readUint32(data, q + 1);
        q += 5;
      } else {
        return -1;
      }
      const value = memo.get(v);
      if (typeof value !== 'string') return -1;
      if (code === 0) filename = value;
      else name = value;
    }
    if (q >= end || data[q] !== Op.SETITEMS) return -1;
    const dict = this.sink.sameFrame(order, filename!, line, name!);
    if (dict === undefined) return -1;
    this.quickMemo[this.quickMemoCount++] = dict;
    return q + 1;
  }

  /**
   * Reads one entry dict at `p`; true when it was written, false (with the memo as it was) when not.
   * Its keys may come in any order; the shapes CPython writes for PyTorch's entries are read by the
   * small steps below, anything else through the general readers further down, which are slower but
   * read every shape the fast path takes.
   */
  private entry(list: PyValue[]): boolean {
    const workBefore = this.m.work;
    this.startEntry();
    // The first entry of a list makes it a trace (as the general machine decides, by its first item):
    // until then a dict with a key no entry has (a segment, a block, a frame) is given back at once.
    const trace = this.sink.isTrace(list);
    let p = this.dictOpening(this.p + 1);
    let seen = 0;
    while (p >= 0) {
      if (p >= this.end) {
        p = CUT;
        break;
      }
      if (this.data[p] === Op.SETITEMS) break;
      const code = this.keyAt(p);
      if (code < 0) {
        p = code === CUT ? CUT : NOT_OURS;
        break;
      }
      // A key given twice (the general machine keeps the last value), or one no entry has in a list that is no trace yet.
      if (code === Key.Other ? !trace : (seen & (1 << code)) !== 0) {
        p = NOT_OURS;
        break;
      }
      seen |= 1 << code;
      p = this.valueOf(code, this.p);
    }
    if (p < 0) return p === CUT ? this.cutAt(this.p, workBefore) : this.undo(workBefore);
    // An entry without an action is a trace entry only in a list that is a trace already (as the
    // general machine decides it, by the list's first item).
    if ((seen & (1 << Key.Action)) === 0 && !trace) return this.undo(workBefore);
    this.p = p + 1; // past SETITEMS
    return this.write(list, workBefore);
  }

  /** Clears the fields of the entry before, and the caches when the memo was overwritten. */
  private startEntry(): void {
    const f = this.fields;
    const values = f.values;
    f.actionCode = -1;
    f.action = '';
    f.numeric = 0;
    values[0] = values[1] = values[2] = values[3] = values[4] = undefined;
    f.userMetadata = f.compileContext = undefined;
    f.frames.kind = 'none';
    f.frames.list = undefined;
    f.frames.idCount = 0;
    f.frames.pendingCount = 0;
    f.frames.hash = STACK_HASH_START;
    this.framesKey = -1;
    this.journalLength = 0;
    this.entryWork = 1;
    const memo = this.m.memo;
    if (memo.overwrites !== this.cachedOverwrites) {
      this.keyCodes.fill(UNKNOWN);
      this.actionCodes.fill(UNKNOWN);
      this.frameKeyCodes.fill(UNKNOWN);
      this.framePages = [];
      this.cachedOverwrites = memo.overwrites;
    }
  }

  /** The dict's memo opcode at `p`, then its MARK: the position of its first key, or CUT / NOT_OURS. */
  private dictOpening(p: number): number {
    const data = this.data;
    const end = this.end;
    if (p < end && data[p] === Op.MEMOIZE) {
      const memo = this.m.memo;
      const key = memo.memoizeConsumed();
      if (key >= 0) this.journal[this.journalLength++] = key;
      else if (!this.journalPut(memo.size, CONSUMED_ENTRY)) return NOT_OURS;
      p++;
    } else {
      this.p = p;
      if (!this.memoizeAfter(CONSUMED_ENTRY)) return this.cut ? CUT : NOT_OURS;
      p = this.p;
    }
    this.p = p;
    if (p >= end) return CUT;
    return data[p] === Op.MARK ? p + 1 : NOT_OURS;
  }

  /**
   * The code of the key at `p` (a `Key`; `this.p` is left after it): a str read back from the memo
   * (every key after the first entry), else read in full. CUT or NOT_OURS when it is not one.
   */
  private keyAt(p: number): number {
    const data = this.data;
    const end = this.end;
    const op = data[p];
    let code: number;
    if (op === Op.BINGET && p + 1 < end) {
      code = this.keyCodes[data[p + 1]];
      if (code === UNKNOWN) code = this.keyCode(data[p + 1]);
      this.p = p + 2;
      this.entryWork++;
    } else if (op === Op.LONG_BINGET && end - p >= 5) {
      const k = readUint32(data, p + 1);
      code = k < KEY_CACHE ? this.keyCodes[k] : UNKNOWN;
      if (code === UNKNOWN) code = this.keyCode(k);
      this.p = p + 5;
      this.entryWork++;
    } else {
      this.p = p;
      const key = this.value();
      if (typeof key !== 'string') return this.cut ? CUT : NOT_OURS;
      code = ENTRY_KEYS.get(key) ?? Key.Other;
    }
    return code < 0 ? NOT_OURS : code;
  }

  /** Reads the value of key `code` at `p`: the position after it, or CUT / NOT_OURS. */
  private valueOf(code: number, p: number): number {
    if (p >= this.end) return CUT;
    if (code <= Key.DeviceFree) {
      const next = this.intAt(code, p);
      if (next !== p) {
        this.fields.numeric |= 1 << code;
        return next;
      }
      return this.scalarAt(p, code);
    }
    if (code === Key.Action) return this.actionAt(p);
    if (code === Key.Frames) return this.framesAt(p);
    return this.scalarAt(p, code);
  }

  /**
   * An int at `p` written straight to `fields.numbers[code]` (a double in a local would be boxed):
   * BININT1, BININT2, BININT, or a non-negative LONG1 of 1 to 7 bytes below 2^53. Returns the position
   * after it, or `p` when it is not one of those (the general reader then reads it).
   */
  private intAt(code: number, p: number): number {
    const data = this.data;
    const end = this.end;
    const numbers = this.fields.numbers;
    switch (data[p]) {
      case Op.BININT1:
        if (p + 1 >= end) return p;
        numbers[code] = data[p + 1];
        return p + 2;
      case Op.BININT2:
        if (end - p < 3) return p;
        numbers[code] = readUint16(data, p + 1);
        return p + 3;
      case Op.BININT:
        if (end - p < 5) return p;
        numbers[code] = readInt32(data, p + 1);
        return p + 5;
      case Op.LONG1: {
        const n = p + 1 < end ? data[p + 1] : 9;
        if (n === 0 || n > 7 || end - p - 2 < n || data[p + 1 + n] >= 0x80) return p;
        const q = p + 2;
        if (n < 4) {
          numbers[code] = data[q] + (n > 1 ? data[q + 1] * 256 : 0) + (n > 2 ? data[q + 2] * 65536 : 0);
          return q + n;
        }
        let high = 0;
        for (let i = n - 1; i >= 4; i--) high = high * 256 + data[q + i];
        if (high >= 0x20_0000) return p;
        numbers[code] = high * 0x1_0000_0000 + readUint32(data, q);
        return q + n;
      }
      default:
        return p;
    }
  }

  /** The action at `p`: a name read back from the memo (its code cached per memo key), else read in full. */
  private actionAt(p: number): number {
    const data = this.data;
    const end = this.end;
    const f = this.fields;
    const op = data[p];
    const long = op === Op.LONG_BINGET;
    if (!((op === Op.BINGET && p + 1 < end) || (long && end - p >= 5))) return this.scalarAt(p, Key.Action);
    const k = long ? readUint32(data, p + 1) : data[p + 1];
    let action = k < KEY_CACHE ? this.actionCodes[k] : UNKNOWN;
    if (action < 0) {
      const name = this.m.memo.get(k);
      if (typeof name !== 'string') return NOT_OURS;
      if (action === UNKNOWN) {
        action = this.sink.actionCode(name);
        if (k < KEY_CACHE) this.actionCodes[k] = action;
      }
      f.action = name;
    }
    f.actionCode = action;
    this.entryWork++;
    return p + (long ? 5 : 2);
  }

  /** The frames at `p`: a list read back from the memo (an earlier entry's stack, or the general machine's list), else read. */
  private framesAt(p: number): number {
    const data = this.data;
    const end = this.end;
    const frames = this.fields.frames;
    const op = data[p];
    const long = op === Op.LONG_BINGET;
    if ((op === Op.BINGET && p + 1 < end) || (long && end - p >= 5)) {
      const value = this.m.memo.get(long ? readUint32(data, p + 1) : data[p + 1]);
      if (value instanceof MemoToken) {
        if (value !== CONSUMED_ENTRY) {
          frames.kind = 'stack';
          frames.stack = value.id;
          this.entryWork++;
          return p + (long ? 5 : 2);
        }
      } else if (Array.isArray(value)) {
        frames.kind = 'list';
        frames.list = value;
        this.entryWork++;
        return p + (long ? 5 : 2);
      }
    }
    this.p = p;
    if (!this.frames()) return this.cut ? CUT : NOT_OURS;
    return this.p;
  }

  /** Any other value at `p`, read by the general readers: a scalar, kept where the entry has a field for it. */
  private scalarAt(p: number, code: number): number {
    const f = this.fields;
    this.p = p;
    const read = this.value();
    if (read === NOT_READ) return this.cut ? CUT : NOT_OURS;
    switch (code) {
      case Key.Action:
        if (typeof read !== 'string') return NOT_OURS;
        f.action = read;
        f.actionCode = this.sink.actionCode(read);
        break;
      case Key.UserMetadata:
        f.userMetadata = read;
        break;
      case Key.CompileContext:
        f.compileContext = read;
        break;
      default:
        if (code <= Key.DeviceFree) f.values[code] = read;
        break;
    }
    return this.p;
  }

  /** Hands the entry read to the sink; false (the entry given back) when the sink refuses it. */
  private write(list: PyValue[], workBefore: number): boolean {
    let stack: number;
    try {
      stack = this.sink.push(list, this.fields);
    } catch (e) {
      // What the sink refuses (a frame with a line that is not one), the general machine meets again
      // when the batch is appended: the error comes from the same entry at the same point of decoding.
      if (e instanceof ContentError) return this.undo(workBefore);
      throw e;
    }
    this.m.work += this.entryWork;
    if (this.framesKey >= 0) this.m.memo.settle(this.framesKey, this.stackToken(stack));
    return true;
  }

  /**
   * The code of the key string stored under memo key `k` (-1: not a string), remembered per key
   * while the memo overwrites nothing (so the memo need not be read for each entry's keys).
   */
  private keyCode(k: number): number {
    const name = this.m.memo.get(k);
    const code = typeof name === 'string' ? (ENTRY_KEYS.get(name) ?? Key.Other) : -1;
    // A key not stored yet may be stored later: only a stored value's code is remembered.
    if (k < KEY_CACHE && name !== undefined) this.keyCodes[k] = code;
    return code;
  }

  /** The entry runs past the bytes at hand at `p`: give it back, noting the cut. */
  private cutAt(p: number, workBefore: number): false {
    this.p = p;
    this.cut = true;
    return this.undo(workBefore);
  }

  /** An entry's frames value at `p`; false when it is not one the fast path reads. */
  private frames(): boolean {
    const data = this.data;
    const frames = this.fields.frames;
    this.skipFrames();
    if (this.atEnd()) return false;
    const op = data[this.p];
    if (op !== Op.EMPTY_LIST) {
      const value = this.valueOrObject();
      if (value === NOT_READ) return false;
      if (value instanceof MemoToken) {
        frames.kind = 'stack';
        frames.stack = value.id;
      } else if (Array.isArray(value)) {
        frames.kind = 'list';
        frames.list = value;
      }
      return true;
    }
    this.p++;
    this.m.work++;
    frames.kind = 'ids';
    frames.idCount = 0;
    frames.pendingCount = 0;
    frames.hash = STACK_HASH_START;
    // Memoized as an entry until the entry is done, when its stack id is known.
    const key = this.memoKeyAfter();
    if (key === -2 || (key >= 0 && !this.journalPut(key, CONSUMED_ENTRY))) return false;
    this.framesKey = key;
    // Items: none, one with APPEND, or batches of MARK ... APPENDS.
    this.skipFrames();
    if (this.atEnd()) return false;
    if (data[this.p] !== Op.MARK) {
      if (data[this.p] !== Op.EMPTY_DICT && data[this.p] !== Op.BINGET && data[this.p] !== Op.LONG_BINGET) return true;
      if (!this.frameItem()) return false;
      this.skipFrames();
      return this.expect(Op.APPEND);
    }
    while (!this.atEnd() && data[this.p] === Op.MARK) {
      this.p++;
      for (;;) {
        this.knownFrames();
        this.skipFrames();
        if (this.atEnd()) return false;
        if (data[this.p] === Op.APPENDS) {
          this.p++;
          break;
        }
        if (!this.frameItem()) return false;
      }
      this.skipFrames();
    }
    return true;
  }

  /**
   * Reads the items at `p` that are memo reads of frame dicts whose ids are cached (nearly every item
   * PyTorch writes): one small loop, so that it is optimized early in a file; stops at anything else.
   */
  private knownFrames(): void {
    const data = this.data;
    const end = this.end;
    const pages = this.framePages;
    const frames = this.fields.frames;
    let ids = frames.ids;
    const first = frames.idCount;
    let n = first;
    let hash = frames.hash;
    let p = this.p;
    for (;;) {
      const op = data[p];
      let k: number;
      let next: number;
      if (op === Op.BINGET && p + 1 < end) {
        k = data[p + 1];
        next = p + 2;
      } else if (op === Op.LONG_BINGET && end - p >= 5) {
        k = readUint32(data, p + 1);
        next = p + 5;
      } else {
        break;
      }
      const page = pages[k >>> FRAME_PAGE_BITS];
      if (page === undefined) break;
      const id = page[k & (FRAME_PAGE - 1)];
      if (id < 0) break;
      if (n === ids.length) ids = this.growIds();
      ids[n++] = id;
      hash = Math.imul(hash ^ id, 0x01000193);
      p = next;
    }
    this.p = p;
    frames.idCount = n;
    frames.hash = hash;
    this.m.work += n - first;
  }

  /**
   * One item of a new frames list: a frame dict the sink interned before, read back from the memo (one
   * id, then cached for its memo key), else a frame dict, new or read back, that the sink interns when
   * the entry is written.
   */
  private frameItem(): boolean {
    const frames = this.fields.frames;
    const data = this.data;
    const p = this.p;
    const op = data[p];
    const long = op === Op.LONG_BINGET;
    if (frames.idCount === frames.ids.length) this.growIds();
    if ((op === Op.BINGET && p + 1 < this.end) || (long && this.end - p >= 5)) {
      const k = long ? readUint32(data, p + 1) : data[p + 1];
      const id = this.sink.frameIdOf(this.m.memo.get(k));
      if (id >= 0) {
        this.cacheFrameId(k, id);
        frames.ids[frames.idCount++] = id;
        frames.hash = stackHashStep(frames.hash, id);
        this.p = p + (long ? 5 : 2);
        this.m.work++;
        return true;
      }
    }
    let dict: PyDict;
    if (op === Op.EMPTY_DICT) {
      const read = this.frameDict();
      if (read === undefined) return false;
      // A new dict of a frame interned before (PyTorch 2.0 writes one per occurrence) is that frame's id.
      const id = this.sink.frameIdOf(read);
      if (id >= 0) {
        frames.ids[frames.idCount++] = id;
        frames.hash = stackHashStep(frames.hash, id);
        return true;
      }
      dict = read;
    } else {
      const value = this.valueOrObject();
      if (value === NOT_READ || value === null || typeof value !== 'object' || Array.isArray(value) || value instanceof MemoToken || value instanceof Uint8Array || value instanceof Set) return false;
      dict = value;
    }
    frames.ids[frames.idCount++] = -1 - frames.pendingCount;
    frames.pending[frames.pendingCount++] = dict;
    return true;
  }

  /** Remembers that memo key `k` holds the interned frame `id` (while the memo overwrites nothing). */
  private cacheFrameId(k: number, id: number): void {
    const index = k >>> FRAME_PAGE_BITS;
    let page = this.framePages[index];
    if (page === undefined) {
      while (this.framePages.length <= index) this.framePages.push(undefined);
      page = new Int32Array(FRAME_PAGE).fill(-1);
      this.framePages[index] = page;
    }
    page[k & (FRAME_PAGE - 1)] = id;
  }

  private growIds(): Int32Array {
    const frames = this.fields.frames;
    const grown = new Int32Array(2 * frames.ids.length);
    grown.set(frames.ids);
    frames.ids = grown;
    return grown;
  }

  /** A frame dict of str keys and plain values; undefined when it is not one. */
  private frameDict(): PyDict | undefined {
    this.p++; // EMPTY_DICT
    this.m.work++;
    // Memoized as a placeholder until its items are read (none can read it back: they are scalars).
    const key = this.memoKeyAfter();
    if (key === -2 || (key >= 0 && !this.journalPut(key, CONSUMED_ENTRY)) || !this.expect(Op.MARK)) return undefined;
    // Its items, kept aside: a dict is made only for a frame not interned before (or of another shape).
    // `order`: the keys `filename` (0), `line` (1), `name` (2) read so far, as digits in base 3 (-1: others).
    const names = this.frameNames;
    const values = this.frameValues;
    let n = 0;
    let order = 0;
    let filename: PyValue = null;
    let line: PyValue = null;
    let name: PyValue = null;
    for (;;) {
      this.skipFrames();
      if (this.atEnd()) return undefined;
      if (this.data[this.p] === Op.SETITEMS) {
        this.p++;
        break;
      }
      const key = this.value();
      if (typeof key !== 'string' || key === '__proto__') return undefined;
      for (let i = 0; i < n; i++) if (names[i] === key) return undefined;
      const value = this.value();
      if (value === NOT_READ) return undefined;
      names[n] = key;
      values[n] = value;
      n++;
      if (key === 'filename') {
        filename = value;
        order = order < 0 ? order : order * 3;
      } else if (key === 'line') {
        line = value;
        order = order < 0 ? order : order * 3 + 1;
      } else if (key === 'name') {
        name = value;
        order = order < 0 ? order : order * 3 + 2;
      } else {
        order = -1;
      }
    }
    const same = n === 3 && order >= 0 ? this.sink.sameFrame(order, filename, line, name) : undefined;
    const dict: PyDict = same ?? {};
    if (same === undefined) for (let i = 0; i < n; i++) dict[names[i]] = values[i];
    if (key >= 0) this.m.memo.settle(key, dict);
    return dict;
  }

  /**
   * A scalar at `p` (None, bool, int, float, str, or a str read back from the memo), with the memo
   * opcode after it; NOT_READ for anything else. With `objects`, a memo read may give any value.
   */
  private value(): Read {
    return this.scalarOrObject(false) as Read;
  }

  /** Like {@link value}, but a memo read may give any value or token. */
  private valueOrObject(): Read | MemoToken {
    return this.scalarOrObject(true);
  }

  private scalarOrObject(objects: boolean): Read | MemoToken {
    const data = this.data;
    const end = this.end;
    this.skipFrames();
    let p = this.p;
    if (p >= end) return this.short();
    let value: PyValue | MemoToken;
    switch (data[p]) {
      case Op.BINGET:
      case Op.LONG_BINGET: {
        const long = data[p] === Op.LONG_BINGET;
        if (end - p < (long ? 5 : 2)) return this.short();
        const got = this.m.memo.get(long ? readUint32(data, p + 1) : data[p + 1]);
        if (got === undefined || got === CONSUMED_ENTRY) return NOT_READ;
        if (!objects && typeof got === 'object' && got !== null) return NOT_READ;
        this.p = p + (long ? 5 : 2);
        this.m.work++;
        // A value read back is memoized already: no memo opcode follows it in a CPython pickle.
        return got;
      }
      case Op.SHORT_BINUNICODE: {
        if (p + 1 >= end) return this.short();
        const n = data[p + 1];
        if (end - p - 2 < n) return this.short();
        const text = decodeUtf8(data, p + 2, p + 2 + n);
        if (text === null) return NOT_READ;
        value = text;
        p += 2 + n;
        break;
      }
      case Op.BINUNICODE:
      case Op.BINUNICODE8: {
        const width = data[p] === Op.BINUNICODE ? 4 : 8;
        if (end - p - 1 < width) return this.short();
        const n = width === 4 ? readUint32(data, p + 1) : readUint64(data, p + 1);
        if (end - p - 1 - width < n) return this.short();
        const text = decodeUtf8(data, p + 1 + width, p + 1 + width + n);
        if (text === null) return NOT_READ;
        value = text;
        p += 1 + width + n;
        break;
      }
      case Op.BININT1:
        if (p + 1 >= end) return this.short();
        value = data[p + 1];
        p += 2;
        break;
      case Op.BININT2:
        if (end - p < 3) return this.short();
        value = readUint16(data, p + 1);
        p += 3;
        break;
      case Op.BININT:
        if (end - p < 5) return this.short();
        value = readInt32(data, p + 1);
        p += 5;
        break;
      case Op.LONG1: {
        if (p + 1 >= end) return this.short();
        const n = data[p + 1];
        if (end - p - 2 < n) return this.short();
        value = decodeLong(data, p + 2, n);
        p += 2 + n;
        break;
      }
      case Op.BINFLOAT:
        if (end - p < 9) return this.short();
        value = this.view.getFloat64(p + 1, false);
        p += 9;
        break;
      case Op.NONE:
        value = null;
        p += 1;
        break;
      case Op.NEWTRUE:
        value = true;
        p += 1;
        break;
      case Op.NEWFALSE:
        value = false;
        p += 1;
        break;
      default:
        return NOT_READ;
    }
    this.p = p;
    return this.memoizeAfter(value) ? value : NOT_READ;
  }

  /** Handles a memo opcode at `p`, if any, storing `value`; false when it cannot (cut, or a key in use). */
  private memoizeAfter(value: PyValue | MemoToken): boolean {
    const key = this.memoKeyAfter();
    if (key === -2) return false;
    return key < 0 || this.journalPut(key, value);
  }

  /** The key of a memo opcode at `p` (consumed), -1 when there is none, -2 when it is cut. */
  private memoKeyAfter(): number {
    const data = this.data;
    this.skipFrames();
    const p = this.p;
    if (this.atEnd()) return -2;
    switch (data[p]) {
      case Op.MEMOIZE:
        this.p = p + 1;
        return this.m.memo.size;
      case Op.BINPUT:
        if (p + 1 >= this.end) return this.short(-2);
        this.p = p + 2;
        return data[p + 1];
      case Op.LONG_BINPUT:
        if (this.end - p < 5) return this.short(-2);
        this.p = p + 5;
        return readUint32(data, p + 1);
      default:
        return -1;
    }
  }

  /** Stores a new memo key for this entry (false for a key in use, which the general machine handles). */
  private journalPut(key: number, value: PyValue | MemoToken): boolean {
    const memo = this.m.memo;
    if (this.journalLength >= MAX_JOURNAL || memo.has(key)) return false;
    memo.put(key, value);
    this.journal[this.journalLength++] = key;
    return true;
  }

  private expect(op: number): boolean {
    this.skipFrames();
    if (this.atEnd() || this.data[this.p] !== op) return false;
    this.p++;
    return true;
  }

  /** Steps over FRAME opcodes (CPython writes them between any two objects), noting where the frame ends. */
  private skipFrames(): void {
    const data = this.data;
    while (this.p < this.end && data[this.p] === Op.FRAME) {
      if (this.end - this.p < 9) {
        this.cut = true;
        return;
      }
      const m = this.m;
      m.frameAt = m.base + this.p;
      m.frameEnd = m.base + this.p + 9 + readUint64(data, this.p + 1);
      this.p += 9;
    }
  }

  /** Notes that the entry ran past the end of the bytes at hand (so it may be whole in the next chunk). */
  private short(): typeof NOT_READ;
  private short(result: number): number;
  private short(result: number | typeof NOT_READ = NOT_READ): number | typeof NOT_READ {
    this.cut = true;
    return result;
  }

  /** True (noting the cut) when the bytes at hand end at `p`. */
  private atEnd(): boolean {
    if (this.p < this.end) return false;
    this.cut = true;
    return true;
  }

  /** Gives the entry back to the general machine: its memo keys removed, its work uncounted. */
  private undo(workBefore: number): false {
    const memo = this.m.memo;
    for (let i = this.journalLength - 1; i >= 0; i--) memo.unput(this.journal[i]);
    this.journalLength = 0;
    this.m.work = workBefore;
    return false;
  }

  private stackToken(id: number): MemoToken {
    // Stack ids are small non-negative integers (or -1 for none, -2 for not read); one token each.
    const index = id + 2;
    let token = this.stackTokens[index];
    if (token === undefined) {
      while (this.stackTokens.length < index) this.stackTokens.push(undefined as unknown as MemoToken);
      token = new MemoToken('stack', id);
      this.stackTokens[index] = token;
    }
    return token;
  }
}
