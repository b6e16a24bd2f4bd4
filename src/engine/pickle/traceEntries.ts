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
 * ints, blank metadata): the quick loop (`quickEntries.ts`) reads those over local variables and writes
 * them straight into the columns; the first byte of anything else leaves the entry to the small steps
 * below, which read every shape the fast path takes and fill the codes per memo key (`entryCodes.ts`)
 * the quick loop reads.
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
import { ENTRY_KEYS, FRAME_PAGE, FRAME_PAGE_BITS, KEY_CACHE, Key, MemoCodes, STACK_HASH_START, StackTokens, UNKNOWN, stackHashStep } from './entryCodes';
import type { QuickEntrySink, QuickEntryTarget } from './quickEntries';
import { QuickEntryLoop } from './quickEntries';
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

/** One entry's fields as read. */
export interface EntryFields {
  /** The action's code from {@link EntrySink.actionCode}; -1: not a known action, named by `action`. */
  actionCode: number;
  /** The action's name (set when `actionCode` is -1). */
  action: string;
  /**
   * The numeric fields (see `EntryNumber`, `entryCodes.ts`): field i is `numbers[i]` when bit i of `numeric` is
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

/** Where the fast path's entries go (the snapshot reader's trace sink): what the quick loop needs, and more. */
export interface EntrySink extends QuickEntrySink {
  /** True when `list` takes entries this way: a trace being streamed, or an empty list (its first entry starts one). */
  accepts(list: PyValue[]): boolean;
  /** True when `list` is a trace being streamed (an entry without an action is one of its entries). */
  isTrace(list: PyValue[]): boolean;
  /** Writes one entry to the trace of `list`; returns the stack id of its frames. */
  push(list: PyValue[], entry: EntryFields): number;
  /** The code of a known action name, -1 for any other (the reader remembers it per memo key). */
  actionCode(name: string): number;
  /** The trace being streamed into `list`, for the quick loop; undefined while `list` is no trace yet. */
  quickTarget(list: PyValue[]): QuickEntryTarget | undefined;
}

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
  /** What the readers remember per memo key (shared with the quick loop). */
  private readonly codes = new MemoCodes();
  private readonly tokens = new StackTokens();
  private readonly quick: QuickEntryLoop;

  constructor(private readonly sink: EntrySink) {
    this.quick = new QuickEntryLoop(sink, this.codes, this.tokens);
  }

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
      // The quick loop reads what it can (with the codes as they are: it stores no memo key twice); the
      // first entry it does not read goes through the steps below, which fill the codes it reads.
      if (target !== undefined && this.codes.holds(m.memo)) {
        const next = this.quick.read(m, this.p, target);
        if (next !== this.p) {
          pos = next;
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
    this.codes.sync(this.m.memo);
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
      code = this.codes.keyCodes[data[p + 1]];
      if (code === UNKNOWN) code = this.keyCode(data[p + 1]);
      this.p = p + 2;
      this.entryWork++;
    } else if (op === Op.LONG_BINGET && end - p >= 5) {
      const k = readUint32(data, p + 1);
      code = k < KEY_CACHE ? this.codes.keyCodes[k] : UNKNOWN;
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
    let action = k < KEY_CACHE ? this.codes.actionCodes[k] : UNKNOWN;
    if (action < 0) {
      const name = this.m.memo.get(k);
      if (typeof name !== 'string') return NOT_OURS;
      if (action === UNKNOWN) {
        action = this.sink.actionCode(name);
        if (k < KEY_CACHE) this.codes.actionCodes[k] = action;
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
    if (this.framesKey >= 0) this.m.memo.settle(this.framesKey, this.tokens.token(stack));
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
    if (k < KEY_CACHE && name !== undefined) this.codes.keyCodes[k] = code;
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
    const pages = this.codes.framePages;
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
        this.codes.cacheFrameId(k, id);
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
}
