/**
 * The trace reader's quick loop: nearly every trace entry PyTorch writes has one shape (its keys, action
 * name and frames read back from the memo, ints, blank metadata; an alloc's own frames list of frames read
 * before, or, from PyTorch 2.0, of new frame dicts just like interned ones), and this loop reads entries of
 * that shape over local variables and writes each straight into its trace's columns. The first byte of
 * anything else ends the loop at that entry's first byte, and the reader's steps (`traceEntries.ts`) read
 * it, as they read every shape, and fill the codes (`MemoCodes`) this loop reads. It writes to the memo what
 * the steps write for the same entries, in the same order, and counts the same work toward the budget.
 */
import { readUint16, readUint32 } from './binary';
import type { MemoCodes, StackTokens } from './entryCodes';
import { FRAME_PAGE, FRAME_PAGE_BITS, KEY_CACHE, Key, STACK_HASH_START, UNKNOWN, isBlankContext, isBlankMetadata } from './entryCodes';
import type { Machine } from './machine';
import { CONSUMED_ENTRY, MemoToken } from './memo';
import { Op } from './opcodes';
import type { PyDict, PyValue } from './values';

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

/** What the quick loop hands its entries' frames to (the snapshot reader's trace sink). */
export interface QuickEntrySink {
  /** Counts `n` entries the quick loop wrote (as the steps count their own). */
  countQuick(n: number): void;
  /**
   * The stack id of a new frames list the quick loop read, from its first `count` frame ids (interned
   * before) and their hash (`stackHash`), as the steps give it for such a list.
   */
  quickStack(ids: Int32Array, count: number, hash: number): number;
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
   * the decode start over without the fast path (`TraceEntryReader.readsDict`).
   */
  sameFrame(order: number, filename: PyValue, line: PyValue, name: PyValue): PyDict | undefined;
  /**
   * The stack id of a frames list the general machine built (a block's frames in `segments`, which
   * PyTorch shares with the trace entry that allocated the block) once the sink has read it as a stack
   * (the steps do, the first time an entry names it); undefined for anything else.
   */
  stackOfListRead(value: unknown): number | undefined;
}

export class QuickEntryLoop {
  /** `addr`, `size`, `time_us` and `stream` of the entry being read. */
  private readonly numbers = new Float64Array(4);
  /** The frame ids of the new frames list being read (`idCount` of them) and their hash. */
  private readonly frames: { ids: Int32Array; idCount: number; hash: number } = { ids: new Int32Array(256), idCount: 0, hash: STACK_HASH_START };
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
  // The state of one `read` call, as fields so that the readers below share it.
  private m!: Machine;
  private data: Uint8Array = new Uint8Array(0);
  private end = 0;
  private p = 0;

  constructor(
    private readonly sink: QuickEntrySink,
    private readonly codes: MemoCodes,
    private readonly tokens: StackTokens,
  ) {}

  /**
   * Reads the entries of the quick loop's shape at `p` of the bytes at hand (`m.data`), writing them to
   * `target`; returns the position of the first entry it did not read (`p` when it read none).
   */
  read(m: Machine, p: number, target: QuickEntryTarget): number {
    this.m = m;
    this.data = m.data;
    this.end = m.data.length;
    this.p = p;
    this.quickEntries(target);
    return this.p;
  }

  /**
   * The quick loop: entries at `p` in the one shape nearly every entry of PyTorch's files has, read with
   * locals and written straight to `target`, until one that is not (`p` is left at its first byte): a
   * dict memoized by MEMOIZE whose keys are read back from the memo (their codes cached), each at most
   * once, among `action` (a name read back, its code cached), `addr`, `size`, `time_us`, `stream` (ints
   * as `intAt` reads them, non-negative), `frames` (a list read before, as its stack's token or as a list
   * of `segments` the sink has read, or a new list of frame dicts read back or just like interned ones), and `user_metadata` and `compile_context`
   * when blank ('', or 'N/A' for the latter; read back, or new and memoized). It writes to the memo what
   * the steps below write (the entry's key, then those of its new values) and counts the same work.
   * Memo reads are decoded in place here and in `quickFrames` and `quickFrameDict`: one helper for them
   * read the plain 20 MB file 15-20% slower (min of 15 warm reads, 57-61 ms against 49-50).
   */
  private quickEntries(target: QuickEntryTarget): void {
    const data = this.data;
    const end = this.end;
    const memo = this.m.memo;
    const keyCodes = this.codes.keyCodes;
    const actionCodes = this.codes.actionCodes;
    const numbers = this.numbers;
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
      /** Blank strings read back from the memo (a new one counts no work). */
      let blanksReadBack = 0;
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
          listed = this.frames.idCount;
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
          // SHORT_BINUNICODE, its length, its bytes (ASCII), MEMOIZE.
          q += 3 + BLANKS[-1 - v].length;
          this.quickMemo[this.quickMemoCount++] = BLANKS[-1 - v];
        } else {
          break entries;
        }
        if (code === Key.Action) {
          action = v < KEY_CACHE ? actionCodes[v] : UNKNOWN;
          if (action < 0) break entries;
        } else if (code === Key.Frames) {
          const value = memo.get(v);
          if (value instanceof MemoToken) {
            if (value === CONSUMED_ENTRY) break entries;
            stack = value.id;
          } else {
            // A list the general machine built: a block's frames, read as a stack before.
            const known = this.sink.stackOfListRead(value);
            if (known === undefined) break entries;
            stack = known;
          }
        } else {
          // A blank `user_metadata` or `compile_context` (what PyTorch writes when there is none): the
          // columns keep nothing of it. Any other value goes through the steps, and the columns keep it.
          const value = v < 0 ? BLANKS[-1 - v] : memo.get(v);
          if (!(code === Key.UserMetadata ? isBlankMetadata(value) : isBlankContext(value))) break entries;
          if (v >= 0) blanksReadBack++;
        }
      }
      if ((seen & (1 << Key.Action)) === 0 || memo.memoizeConsumed() < 0) break;
      if (listed >= 0) {
        // A new list's memo key holds its stack's token.
        const frames = this.frames;
        stack = this.sink.quickStack(frames.ids, listed, frames.hash);
        this.quickMemo[this.quickListSlot] = this.tokens.token(stack);
      }
      // The memo keys after the entry's, in the order of their MEMOIZE opcodes.
      for (let j = 0; j < this.quickMemoCount; j++) memo.memoize(this.quickMemo[j]!);
      target.pushNumbers(action, numbers, stack);
      // As `entry` counts: the dict, each key, each value read back (the action, a list read before,
      // blanks read back), and a new list and its items (a new frame dict counts itself, its three keys
      // and two strings read back: 6, where a frame read back counts 1).
      work += 2 + keys + blanksReadBack + (listed >= 0 ? 1 + listed + 5 * this.quickNewDicts : (seen & (1 << Key.Frames)) !== 0 ? 1 : 0);
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
   * `this.frames` (`ids`, `idCount`, `hash`); its memo slot and the interned dicts that stand for its new
   * ones to `quickMemo`. Returns the position after it, or -1 when it is not such a list (nothing is
   * written to the memo: the caller memoizes what `quickMemo` holds, in the order of their memo keys).
   */
  private quickFrames(q: number): number {
    const data = this.data;
    const end = this.end;
    const pages = this.codes.framePages;
    const frames = this.frames;
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
        hash = Math.imul(hash ^ id, 0x01000193); // stackHashStep, written out as in the steps' knownFrames
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
    const codes = this.codes.frameKeyCodes;
    if (end - q < 3 || data[q + 1] !== Op.MEMOIZE || data[q + 2] !== Op.MARK) return -1;
    q += 3;
    let order = 0;
    let seen = 0;
    /** The memo keys of the filename and name strings. */
    let filenameKey = 0;
    let nameKey = 0;
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
      if (code === 0) filenameKey = v;
      else nameKey = v;
    }
    if (q >= end || data[q] !== Op.SETITEMS) return -1;
    // The interned dict this one stands for: cached by memo keys, line and order once the sink matched it.
    const cache = this.codes.frameDicts;
    let dict = cache.get(filenameKey, line, nameKey, order);
    if (dict === undefined) {
      const filename = memo.get(filenameKey);
      const name = memo.get(nameKey);
      if (typeof filename !== 'string' || typeof name !== 'string') return -1;
      dict = this.sink.sameFrame(order, filename, line, name);
      if (dict === undefined) return -1;
      cache.set(filenameKey, line, nameKey, order, dict);
    }
    this.quickMemo[this.quickMemoCount++] = dict;
    return q + 1;
  }

  private growIds(): Int32Array {
    const frames = this.frames;
    const grown = new Int32Array(2 * frames.ids.length);
    grown.set(frames.ids);
    frames.ids = grown;
    return grown;
  }
}
