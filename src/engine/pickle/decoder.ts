import { appendRange } from './arrays';
import { readInt32, readUint16, readUint32, readUint64 } from './binary';
import { PickleError } from './errors';
import { corrupt, missingMark, missingMemoKey, setItem, truncated, underflow, utf8OrThrow, wrongTarget, type EntryReader, type Machine } from './machine';
import { Memo, MemoToken, RestartWithoutFastPath } from './memo';
import { decodeLong } from './numbers';
import { HIGHEST_PROTOCOL, Op } from './opcodes';
import { decodeRareOpcode, leaveMark } from './rareOpcodes';
import { isPyDict, type PyValue } from './values';
import { ContentError } from '../base/errors';

export { isPyDict, PY_NON_STRING_KEYS, type PyDict, type PyValue } from './values';
export type { EntryReader } from './machine';

/** Options for {@link PickleDecoder} and {@link decodePickle}. */
export interface DecodeOptions {
  /**
   * Called about every {@link PROGRESS_INTERVAL_BYTES} of input while decoding (checked at each
   * MARK, which every container of two or more items uses), with the bytes decoded so far and
   * `totalBytes`: for progress reports from a worker thread.
   */
  onProgress?: (bytesDecoded: number, bytesTotal: number) => void;
  /** The input's length, for `onProgress` (`decodePickle` knows it). */
  totalBytes?: number;
  /**
   * Called before items are appended to a list (APPENDS, APPEND) with the list and the items
   * `items[start, end)`. Returning true means the hook consumed them and they are not appended:
   * a reader that streams a huge list (a snapshot's trace) into its own structure keeps no tree.
   * The hook must not throw; it gets plain decoded values and never anything executable.
   */
  onAppend?: (list: PyValue[], items: readonly PyValue[], start: number, end: number) => boolean;
  /**
   * The trace fast path. With it, the decoder may throw {@link RestartWithoutFastPath}: the caller
   * then decodes the input again without it.
   */
  entries?: EntryReader;
}

/** Input bytes between two {@link DecodeOptions.onProgress} calls. */
export const PROGRESS_INTERVAL_BYTES = 16 * 1024 * 1024;

/** Bytes added to a cut opcode beyond what it needs, so decoding goes on past it before returning to the chunk. */
const STITCH_EXTRA = 256;
/** Bytes first added to a trace entry cut by the end of a chunk (its length is not known). */
const STITCH_UNKNOWN = 64 * 1024;

/**
 * Decodes a pickle (protocols 0 to 5) holding plain data: None, bools, ints, floats, str, bytes,
 * lists, tuples, dicts and sets (see {@link PyValue} for the mapping). Nothing is ever imported,
 * constructed or called: opcodes that would (GLOBAL, REDUCE, BUILD, ...) are refused.
 * Objects the pickle shares through its memo stay shared. Bytes after STOP are ignored.
 * Tuples are plain arrays, so a few things CPython rejects but no pickler writes (APPEND to a
 * tuple, a list or dict as a dict key) decode here.
 *
 * Push-based: {@link feed} takes the input in chunks of any size (an opcode cut by a chunk's end
 * waits for the next), {@link finish} says it has ended and returns the value. Nothing of a chunk
 * is kept once fed, so the caller may reuse its buffer; decoding never holds the whole input.
 *
 * @throws PickleError for anything else: truncated, corrupt or forbidden input.
 */
export class PickleDecoder {
  private readonly m: Machine;
  private readonly onProgress: DecodeOptions['onProgress'];
  private readonly onAppend: DecodeOptions['onAppend'];
  private readonly entries: EntryReader | undefined;
  private readonly totalBytes: number;
  private nextProgress: number;
  /** Bytes of an opcode cut by the end of a chunk (a copy), `pendingLength` of them. */
  private pending = new Uint8Array(0);
  private pendingLength = 0;
  /** Offset in the input of the next opcode to decode (of `pending[0]` while an opcode is cut). */
  private offset = 0;
  /** Bytes fed so far. */
  private fed = 0;
  private done = false;
  private result: PyValue = null;

  constructor(options: DecodeOptions = {}) {
    this.m = { data: new Uint8Array(0), memo: new Memo(), stack: [], marks: [], sp: 0, floor: 0, pos: 0, final: false, need: 0, staged: -1, resume: -1, work: 0, base: 0, frameAt: -1, frameEnd: 0, entries: options.entries };
    this.onProgress = options.onProgress;
    this.onAppend = options.onAppend;
    this.entries = options.entries;
    this.totalBytes = options.totalBytes ?? 0;
    this.nextProgress = this.onProgress === undefined ? Infinity : PROGRESS_INTERVAL_BYTES;
  }

  /** True once STOP was read (what follows is ignored). */
  get stopped(): boolean {
    return this.done;
  }

  /** Bytes decoded so far: the offset of the next opcode. */
  get bytesDecoded(): number {
    return this.offset;
  }

  /** Containers built and memo entries read so far: the decoder's share of a work budget. */
  get work(): number {
    return this.m.work;
  }

  /** Decodes as much of the input as `chunk` completes. */
  feed(chunk: Uint8Array): void {
    this.fed += chunk.length;
    let from = 0;
    while (!this.done && from < chunk.length) {
      if (this.pendingLength === 0) {
        const cut = this.run(chunk, from, this.offset - from);
        if (cut >= 0) this.keep(chunk, cut);
        return;
      }
      // An opcode is cut: give it the bytes it needs (or, waiting for a newline, up to the next one).
      const had = this.pendingLength;
      const need = this.m.need;
      let take: number;
      if (need > 0) {
        take = need - had + STITCH_EXTRA;
      } else if (need < 0) {
        // A trace entry of unknown length: twice the bytes each time.
        take = Math.max(STITCH_UNKNOWN, had);
      } else {
        const newline = chunk.indexOf(0x0a, from);
        take = newline < 0 ? chunk.length - from : newline + 1 - from + STITCH_EXTRA;
      }
      take = Math.min(take, chunk.length - from);
      this.append(chunk, from, from + take);
      from += take;
      if (need > 0 ? this.pendingLength < need : need === 0 && chunk.lastIndexOf(0x0a, from - 1) < from - take) continue;
      const stitched = this.pending.subarray(0, this.pendingLength);
      const cut = this.run(stitched, 0, this.offset);
      if (cut < 0) return;
      if (cut >= had) {
        // Decoding went past the cut opcode into this chunk's bytes: go on in the chunk itself.
        this.pendingLength = 0;
        from = from - take + (cut - had);
      } else {
        this.pending.copyWithin(0, cut, this.pendingLength);
        this.pendingLength -= cut;
      }
    }
  }

  /**
   * Says the input has ended; returns the decoded value.
   * @throws PickleError when the input ends before STOP, inside an opcode, or inside a FRAME.
   */
  finish(): PyValue {
    if (!this.done) {
      this.m.final = true;
      this.run(this.pending.subarray(0, this.pendingLength), 0, this.offset);
    }
    if (this.m.frameEnd > this.fed) throw truncated(this.m.frameAt, 'FRAME');
    return this.result;
  }

  /** True while the input must go on: before STOP, or inside a FRAME that claims more bytes. */
  get wantsMore(): boolean {
    return !this.done || this.m.frameEnd > this.fed;
  }

  /** Keeps `chunk[cut..]`, the start of a cut opcode, for the next chunk. */
  private keep(chunk: Uint8Array, cut: number): void {
    this.pendingLength = 0;
    this.append(chunk, cut, chunk.length);
  }

  private append(chunk: Uint8Array, start: number, end: number): void {
    const length = this.pendingLength + (end - start);
    if (length > this.pending.length) {
      const grown = new Uint8Array(Math.max(length, 2 * this.pending.length, 64));
      grown.set(this.pending.subarray(0, this.pendingLength));
      this.pending = grown;
    }
    this.pending.set(chunk.subarray(start, end), this.pendingLength);
    this.pendingLength = length;
  }

  /**
   * Decodes opcodes of `data` from `start` (`base` is the input offset of `data[0]`) until STOP
   * (returns -1) or an opcode cut by the end of `data` (returns its index; `m.need` says how many
   * bytes it needs). At the end of the input (`m.final`) a cut opcode is an error instead.
   *
   * The loop reads an opcode, checks that its fixed-size argument is all there (`ARGUMENT_BYTES`), and
   * does it: the opcodes of every container item (memo reads and writes, ints, floats, strings, empty
   * containers) inline, on working copies of the machine's stack pointer, floor, position and work; the
   * ones of every container (a MARK, which may hand a batch of trace entries to the fast path, SETITEMS,
   * APPENDS, APPEND, tuples) and the rare ones as named steps on the machine (`m`).
   */
  private run(data: Uint8Array, start: number, base: number): number {
    const m = this.m;
    m.data = data;
    m.base = base;
    const { stack, memo } = m;
    const end = data.length;
    const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
    const entries = this.entries;
    // Working copies of m.sp, m.floor, m.pos and m.work (stored back around every named step).
    let sp = m.sp;
    let floor = m.floor;
    let pos = start;
    let work = m.work;
    /** Offset of the opcode being decoded. */
    let at = start;
    /** For an opcode cut short: the bytes it needs from `at` (-1: a trace entry of unknown length). */
    let need = 0;

    try {
      run: for (;;) {
        at = pos;
        // Past the end this reads undefined, which decodeRareOpcode reports.
        const op = data[pos++];
        if (end - pos < ARGUMENT_BYTES[op]) {
          need = 1 + ARGUMENT_BYTES[op];
          break;
        }
        switch (op) {
          case Op.BINGET:
            stack[sp++] = this.memoRead(data[pos++], at);
            work++;
            break;
          case Op.LONG_BINGET:
            stack[sp++] = this.memoRead(readUint32(data, pos), at);
            pos += 4;
            work++;
            break;
          case Op.MEMOIZE:
            if (sp <= floor) throw underflow(at, 'MEMOIZE');
            memo.memoize(stack[sp - 1]);
            break;
          case Op.BINPUT:
            if (sp <= floor) throw underflow(at, 'BINPUT');
            memo.put(data[pos++], stack[sp - 1]);
            break;
          case Op.LONG_BINPUT:
            if (sp <= floor) throw underflow(at, 'LONG_BINPUT');
            memo.put(readUint32(data, pos), stack[sp - 1]);
            pos += 4;
            break;
          case Op.BININT1:
            stack[sp++] = data[pos++];
            break;
          case Op.BININT2:
            stack[sp++] = readUint16(data, pos);
            pos += 2;
            break;
          case Op.BININT:
            stack[sp++] = readInt32(data, pos);
            pos += 4;
            break;
          case Op.LONG1: {
            const n = data[pos];
            if (end - pos - 1 < n) {
              need = 2 + n;
              break run;
            }
            stack[sp++] = decodeLong(data, pos + 1, n);
            pos += 1 + n;
            break;
          }
          case Op.BINFLOAT:
            stack[sp++] = view.getFloat64(pos, false);
            pos += 8;
            break;
          case Op.NONE:
            stack[sp++] = null;
            break;
          case Op.NEWTRUE:
            stack[sp++] = true;
            break;
          case Op.NEWFALSE:
            stack[sp++] = false;
            break;
          case Op.SHORT_BINUNICODE: {
            const n = data[pos];
            if (end - pos - 1 < n) {
              need = 2 + n;
              break run;
            }
            stack[sp++] = utf8OrThrow(data, pos + 1, pos + 1 + n, at);
            pos += 1 + n;
            break;
          }
          case Op.BINUNICODE: {
            const n = readUint32(data, pos);
            if (end - pos - 4 < n) {
              need = 5 + n;
              break run;
            }
            stack[sp++] = utf8OrThrow(data, pos + 4, pos + 4 + n, at);
            pos += 4 + n;
            break;
          }
          case Op.EMPTY_DICT:
            if (entries !== undefined && m.resume === m.marks.length && sp === floor) {
              // The fast path stopped at this entry at the end of the last chunk: it goes on from here.
              this.store(sp, floor, at, work);
              const cut = this.resumeEntries(entries);
              work = m.work;
              if (cut) {
                need = -1;
                at = m.pos;
                break run;
              }
              if (m.pos !== at) {
                pos = m.pos;
                break;
              }
            }
            stack[sp++] = {};
            work++;
            break;
          case Op.EMPTY_LIST:
          case Op.EMPTY_TUPLE:
            stack[sp++] = [];
            work++;
            break;
          case Op.MARK: {
            this.store(sp, floor, pos, work);
            const cut = this.mark();
            ({ sp, floor, pos, work } = m);
            if (cut) {
              need = -1;
              at = pos;
              break run;
            }
            break;
          }
          case Op.SETITEMS:
            this.store(sp, floor, pos, work);
            this.setItems(at);
            ({ sp, floor } = m);
            break;
          case Op.APPENDS:
            this.store(sp, floor, pos, work);
            this.appends(at);
            ({ sp, floor } = m);
            break;
          case Op.APPEND:
            this.store(sp, floor, pos, work);
            this.appendOne(at);
            sp = m.sp;
            break;
          case Op.TUPLE1:
            if (sp - 1 < floor) throw underflow(at, 'TUPLE1');
            stack[sp - 1] = [stack[sp - 1]];
            work++;
            break;
          case Op.TUPLE2:
            if (sp - 2 < floor) throw underflow(at, 'TUPLE2');
            stack[sp - 2] = [stack[sp - 2], stack[sp - 1]];
            sp -= 1;
            work++;
            break;
          case Op.TUPLE3:
            if (sp - 3 < floor) throw underflow(at, 'TUPLE3');
            stack[sp - 3] = [stack[sp - 3], stack[sp - 2], stack[sp - 1]];
            sp -= 2;
            work++;
            break;
          case Op.FRAME:
            // Frames only group opcodes for buffered reading; `finish` checks that the last is all there.
            m.frameAt = base + at;
            m.frameEnd = base + pos + 8 + readUint64(data, pos);
            pos += 8;
            break;
          case Op.PROTO:
            if (data[pos] > HIGHEST_PROTOCOL) throw new PickleError('unsupported-protocol', at, `unsupported pickle protocol ${data[pos]}`);
            pos++;
            break;
          case Op.STOP:
            this.store(sp, floor, pos, work);
            this.stop(at, base + pos);
            return -1;
          default:
            this.store(sp, floor, pos, work);
            if (!decodeRareOpcode(m, op, at)) {
              need = m.need;
              break run;
            }
            ({ sp, floor, pos } = m);
        }
      }
      // An opcode cut by the end of `data`: an error at the end of the input, else wait for more.
      if (m.final) throw truncated(at, OPCODE_NAMES[data[at]] ?? 'an opcode');
      m.need = need;
      this.store(sp, floor, at, work);
      this.offset = base + at;
      return at;
    } catch (error) {
      throw this.failure(error, base, at);
    }
  }

  /** Stores the loop's working copies back into the machine, before a named step reads them. */
  private store(sp: number, floor: number, pos: number, work: number): void {
    const m = this.m;
    m.sp = sp;
    m.floor = floor;
    m.pos = pos;
    m.work = work;
  }

  /** BINGET, LONG_BINGET: the value stored under `key` (a token of the fast path makes the decode start over without it). */
  private memoRead(key: number, at: number): PyValue {
    const value = this.m.memo.get(key);
    if (value === undefined) throw missingMemoKey(at, key);
    if (value instanceof MemoToken) throw new RestartWithoutFastPath();
    return value;
  }

  /**
   * MARK (the machine is just past it): opens a batch, and when the batch is a list's items starting
   * with a dict, lets the fast path read trace entries from it. Reports progress. Returns true when the
   * fast path stopped at an entry cut by the end of the bytes at hand.
   */
  private mark(): boolean {
    const m = this.m;
    m.marks.push(m.floor);
    m.floor = m.sp;
    const entries = this.entries;
    // The batch's first item is a dict, or a FRAME opcode before it (CPython writes one wherever a 64 KiB frame ends).
    const next = m.data[m.pos];
    if (entries !== undefined && m.sp > 0 && (next === Op.EMPTY_DICT || next === Op.FRAME) && Array.isArray(m.stack[m.sp - 1]) && this.readEntries(entries, m.stack[m.sp - 1] as PyValue[])) {
      return true;
    }
    const offset = m.base + m.pos;
    if (offset >= this.nextProgress) {
      this.onProgress?.(offset, this.totalBytes);
      this.nextProgress = offset + PROGRESS_INTERVAL_BYTES;
    }
    return false;
  }

  /** The fast path resumes a batch of trace entries cut by the end of the last chunk, at the entry at `m.pos`. */
  private resumeEntries(entries: EntryReader): boolean {
    const m = this.m;
    m.resume = -1;
    return this.readEntries(entries, m.stack[m.floor - 1] as PyValue[]);
  }

  /**
   * Lets the fast path read trace entries of `list` from `m.pos`: those it writes to columns make the
   * batch staged (it must end in APPENDS); true when it stopped at an entry cut by the end of the bytes.
   */
  private readEntries(entries: EntryReader, list: PyValue[]): boolean {
    const m = this.m;
    const from = m.pos;
    const cut = entries.read(list, m);
    if (m.pos !== from) {
      // A batch inside another whose entries went to columns: the general machine reads such a pickle.
      if (m.staged >= 0 && m.staged !== m.marks.length) throw new RestartWithoutFastPath();
      m.staged = m.marks.length;
    }
    if (cut) m.resume = m.marks.length;
    return cut;
  }

  /** SETITEMS: the items since the innermost MARK set on the dict below it. */
  private setItems(at: number): void {
    const m = this.m;
    const stack = m.stack;
    if (m.marks.length === 0) throw missingMark(at, 'SETITEMS');
    leaveMark(m);
    const first = m.floor;
    const sp = m.sp;
    m.floor = m.marks.pop()!;
    if (first <= m.floor) throw underflow(at, 'SETITEMS');
    const dict = stack[first - 1];
    if (!isPyDict(dict)) throw wrongTarget(at, 'SETITEMS', 'dict');
    if (this.entries !== undefined && this.entries.readsDict(dict)) throw new RestartWithoutFastPath();
    if ((sp - first) % 2 !== 0) throw corrupt(at, 'SETITEMS has an odd number of items');
    for (let i = first; i < sp; i += 2) {
      const key = stack[i];
      if (typeof key === 'string' && key !== '__proto__') dict[key] = stack[i + 1];
      else setItem(dict, key, stack[i + 1]);
    }
    m.sp = first;
  }

  /** APPENDS: the items since the innermost MARK appended to the list below it (or streamed by `onAppend`). */
  private appends(at: number): void {
    const m = this.m;
    const stack = m.stack;
    if (m.marks.length === 0) throw missingMark(at, 'APPENDS');
    // The batch the fast path wrote to columns closes here only if this APPENDS holds: until then a
    // failure leaves it staged, and the general machine says what is wrong (see `failure`).
    const closesStaged = m.marks.length === m.staged;
    const first = m.floor;
    const sp = m.sp;
    m.floor = m.marks.pop()!;
    if (first <= m.floor) throw underflow(at, 'APPENDS');
    const list = stack[first - 1];
    if (!Array.isArray(list)) throw wrongTarget(at, 'APPENDS', 'list');
    if (closesStaged) m.staged = -1;
    if (first < sp && (this.onAppend === undefined || !this.onAppend(list, stack, first, sp))) appendRange(list, stack, first, sp);
    m.sp = first;
  }

  /** APPEND: the top of the stack appended to the list below it (or streamed by `onAppend`). */
  private appendOne(at: number): void {
    const m = this.m;
    const stack = m.stack;
    const sp = m.sp;
    if (sp - 2 < m.floor) throw underflow(at, 'APPEND');
    const list = stack[sp - 2];
    if (!Array.isArray(list)) throw wrongTarget(at, 'APPEND', 'list');
    if (this.onAppend === undefined || !this.onAppend(list, stack, sp - 1, sp)) list.push(stack[sp - 1]);
    m.sp = sp - 1;
  }

  /** STOP at `at`, the pickle ending at input offset `offset`: its value is the top of the stack. */
  private stop(at: number, offset: number): void {
    const m = this.m;
    if (m.sp <= m.floor) throw underflow(at, 'STOP');
    // Entries written to columns in a batch that never closed were not appended after all.
    if (m.staged >= 0) throw new RestartWithoutFastPath();
    this.result = m.stack[m.sp - 1];
    this.done = true;
    this.offset = offset;
    m.stack.length = 0;
    m.sp = 0;
  }

  /** What to throw for a failure while decoding at `at` (`base` is the input offset of the bytes at hand). */
  private failure(error: unknown, base: number, at: number): unknown {
    if (error instanceof RestartWithoutFastPath || error instanceof ContentError) return error;
    // Entries the fast path wrote to columns are not on the stack: an opcode of their batch that
    // needed them (a MEMOIZE after an entry's SETITEMS, a POP) fails here where the general machine
    // would not, or not yet. Only the general machine says what is wrong with such a file.
    if (this.m.staged >= 0) return new RestartWithoutFastPath();
    return error instanceof PickleError ? error.movedBy(base) : asPickleError(error, base + at);
  }
}

/**
 * The opcodes whose argument the decoding loop checks is all there before it decodes them: their names
 * (for messages) and the bytes of their argument (its fixed size, or the size of its length for one of
 * variable length: LONG1, SHORT_BINUNICODE, BINUNICODE). Every other opcode has none, or is one that
 * `decodeRareOpcode` checks itself.
 */
const CHECKED_OPCODES: readonly (readonly [Op, string, number])[] = [
  [Op.BINGET, 'BINGET', 1],
  [Op.LONG_BINGET, 'LONG_BINGET', 4],
  [Op.BINPUT, 'BINPUT', 1],
  [Op.LONG_BINPUT, 'LONG_BINPUT', 4],
  [Op.BININT1, 'BININT1', 1],
  [Op.BININT2, 'BININT2', 2],
  [Op.BININT, 'BININT', 4],
  [Op.LONG1, 'LONG1', 1],
  [Op.BINFLOAT, 'BINFLOAT', 8],
  [Op.SHORT_BINUNICODE, 'SHORT_BINUNICODE', 1],
  [Op.BINUNICODE, 'BINUNICODE', 4],
  [Op.FRAME, 'FRAME', 8],
  [Op.PROTO, 'PROTO', 1],
];

/** Per opcode byte: the bytes of its argument the decoding loop checks (see {@link CHECKED_OPCODES}). */
const ARGUMENT_BYTES = new Uint8Array(256);
/** Names of the opcodes the decoding loop checks, for its messages. */
const OPCODE_NAMES: string[] = [];
for (const [op, name, bytes] of CHECKED_OPCODES) {
  ARGUMENT_BYTES[op] = bytes;
  OPCODE_NAMES[op] = name;
}

/**
 * Decodes a whole pickle held in memory (see {@link PickleDecoder}).
 * @throws PickleError for truncated, corrupt or forbidden input.
 */
export function decodePickle(data: Uint8Array, options: DecodeOptions = {}): PyValue {
  const decoder = new PickleDecoder({ totalBytes: data.length, ...options });
  decoder.feed(data);
  return decoder.finish();
}

/**
 * Any failure as a PickleError, in our words (the engine's own message is not for the user): engine
 * limits (RangeError) read as 'too-large', anything else as a damaged file.
 */
function asPickleError(error: unknown, at: number): PickleError {
  if (error instanceof PickleError) return error;
  if (error instanceof RangeError) return new PickleError('too-large', at, 'cannot decode: a value in the file is larger than this program can hold in memory');
  return new PickleError('corrupt', at, 'cannot decode: the data is damaged here');
}
