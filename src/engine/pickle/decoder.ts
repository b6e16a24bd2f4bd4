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
   */
  private run(data: Uint8Array, start: number, base: number): number {
    const m = this.m;
    m.data = data;
    m.base = base;
    const { stack, marks, memo } = m;
    const end = data.length;
    const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
    const { onAppend, entries, onProgress } = this;
    // Working copies of m.sp, m.floor, m.pos and m.work.
    let sp = m.sp;
    let floor = m.floor;
    let pos = start;
    let work = m.work;
    /** Offset of the opcode being decoded. */
    let at = start;
    /** For an opcode cut short: the bytes it needs from `at`, and its name. */
    let need = 0;
    let cutName = '';

    try {
      run: for (;;) {
        at = pos;
        // Past the end this reads undefined, which decodeRareOpcode reports.
        const op = data[pos++];
        switch (op) {
          case Op.BINGET: {
            if (pos >= end) {
              need = 2;
              cutName = 'BINGET';
              break run;
            }
            const key = data[pos++];
            const value = memo.get(key);
            if (value === undefined) throw missingMemoKey(at, key);
            if (entries !== undefined && value instanceof MemoToken) throw new RestartWithoutFastPath();
            stack[sp++] = value as PyValue;
            work++;
            break;
          }
          case Op.LONG_BINGET: {
            if (end - pos < 4) {
              need = 5;
              cutName = 'LONG_BINGET';
              break run;
            }
            const key = readUint32(data, pos);
            pos += 4;
            const value = memo.get(key);
            if (value === undefined) throw missingMemoKey(at, key);
            if (entries !== undefined && value instanceof MemoToken) throw new RestartWithoutFastPath();
            stack[sp++] = value as PyValue;
            work++;
            break;
          }
          case Op.MEMOIZE:
            if (sp <= floor) throw underflow(at, 'MEMOIZE');
            memo.memoize(stack[sp - 1]);
            break;
          case Op.BINPUT:
            if (pos >= end) {
              need = 2;
              cutName = 'BINPUT';
              break run;
            }
            if (sp <= floor) throw underflow(at, 'BINPUT');
            memo.put(data[pos++], stack[sp - 1]);
            break;
          case Op.LONG_BINPUT:
            if (end - pos < 4) {
              need = 5;
              cutName = 'LONG_BINPUT';
              break run;
            }
            if (sp <= floor) throw underflow(at, 'LONG_BINPUT');
            memo.put(readUint32(data, pos), stack[sp - 1]);
            pos += 4;
            break;
          case Op.BININT1:
            if (pos >= end) {
              need = 2;
              cutName = 'BININT1';
              break run;
            }
            stack[sp++] = data[pos++];
            break;
          case Op.BININT2:
            if (end - pos < 2) {
              need = 3;
              cutName = 'BININT2';
              break run;
            }
            stack[sp++] = readUint16(data, pos);
            pos += 2;
            break;
          case Op.BININT:
            if (end - pos < 4) {
              need = 5;
              cutName = 'BININT';
              break run;
            }
            stack[sp++] = readInt32(data, pos);
            pos += 4;
            break;
          case Op.LONG1: {
            if (pos >= end || end - pos - 1 < data[pos]) {
              need = pos >= end ? 2 : 2 + data[pos];
              cutName = 'LONG1';
              break run;
            }
            const n = data[pos++];
            stack[sp++] = decodeLong(data, pos, n);
            pos += n;
            break;
          }
          case Op.BINFLOAT:
            if (end - pos < 8) {
              need = 9;
              cutName = 'BINFLOAT';
              break run;
            }
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
            if (pos >= end || end - pos - 1 < data[pos]) {
              need = pos >= end ? 2 : 2 + data[pos];
              cutName = 'SHORT_BINUNICODE';
              break run;
            }
            const n = data[pos++];
            stack[sp++] = utf8OrThrow(data, pos, pos + n, at);
            pos += n;
            break;
          }
          case Op.BINUNICODE: {
            if (end - pos < 4) {
              need = 5;
              cutName = 'BINUNICODE';
              break run;
            }
            const n = readUint32(data, pos);
            if (end - pos - 4 < n) {
              need = 5 + n;
              cutName = 'BINUNICODE';
              break run;
            }
            pos += 4;
            stack[sp++] = utf8OrThrow(data, pos, pos + n, at);
            pos += n;
            break;
          }
          case Op.EMPTY_DICT:
            if (m.resume === marks.length && sp === floor) {
              // The fast path stopped here at the end of the last chunk: it goes on with this entry.
              m.resume = -1;
              m.sp = sp;
              m.floor = floor;
              m.pos = at;
              m.work = work;
              const cut = entries!.read(stack[floor - 1] as PyValue[], m);
              if (m.pos !== at) {
                m.staged = marks.length;
                work = m.work;
              }
              if (cut) {
                m.resume = marks.length;
                at = m.pos;
                need = -1;
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
          case Op.MARK:
            marks.push(floor);
            floor = sp;
            if (entries !== undefined && sp > 0 && data[pos] === Op.EMPTY_DICT) {
              const list = stack[sp - 1];
              if (Array.isArray(list)) {
                m.sp = sp;
                m.floor = floor;
                m.pos = pos;
                m.work = work;
                const cut = entries.read(list, m);
                if (m.pos !== pos) {
                  // Entries went to columns: the batch must end in APPENDS (see Machine.staged).
                  m.staged = marks.length;
                  pos = m.pos;
                  work = m.work;
                }
                if (cut) {
                  m.resume = marks.length;
                  at = pos;
                  need = -1;
                  break run;
                }
              }
            }
            if (base + pos >= this.nextProgress) {
              onProgress?.(base + pos, this.totalBytes);
              this.nextProgress = base + pos + PROGRESS_INTERVAL_BYTES;
            }
            break;
          case Op.SETITEMS: {
            if (marks.length === 0) throw missingMark(at, 'SETITEMS');
            if (marks.length === m.staged) leaveMark(m);
            const first = floor;
            floor = marks.pop()!;
            if (first <= floor) throw underflow(at, 'SETITEMS');
            const dict = stack[first - 1];
            if (!isPyDict(dict)) throw wrongTarget(at, 'SETITEMS', 'dict');
            if (entries !== undefined && entries.readsDict(dict)) throw new RestartWithoutFastPath();
            if ((sp - first) % 2 !== 0) throw corrupt(at, 'SETITEMS has an odd number of items');
            for (let i = first; i < sp; i += 2) {
              const key = stack[i];
              if (typeof key === 'string' && key !== '__proto__') dict[key] = stack[i + 1];
              else setItem(dict, key, stack[i + 1]);
            }
            sp = first;
            break;
          }
          case Op.APPENDS: {
            if (marks.length === 0) throw missingMark(at, 'APPENDS');
            if (marks.length === m.staged) m.staged = -1;
            const first = floor;
            floor = marks.pop()!;
            if (first <= floor) throw underflow(at, 'APPENDS');
            const list = stack[first - 1];
            if (!Array.isArray(list)) throw wrongTarget(at, 'APPENDS', 'list');
            if (first < sp && (onAppend === undefined || !onAppend(list, stack, first, sp))) appendRange(list, stack, first, sp);
            sp = first;
            break;
          }
          case Op.APPEND: {
            if (sp - 2 < floor) throw underflow(at, 'APPEND');
            const list = stack[sp - 2];
            if (!Array.isArray(list)) throw wrongTarget(at, 'APPEND', 'list');
            if (onAppend === undefined || !onAppend(list, stack, sp - 1, sp)) list.push(stack[sp - 1]);
            sp--;
            break;
          }
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
            if (end - pos < 8) {
              need = 9;
              cutName = 'FRAME';
              break run;
            }
            m.frameAt = base + at;
            m.frameEnd = base + pos + 8 + readUint64(data, pos);
            pos += 8;
            break;
          case Op.PROTO: {
            if (pos >= end) {
              need = 2;
              cutName = 'PROTO';
              break run;
            }
            const protocol = data[pos++];
            if (protocol > HIGHEST_PROTOCOL) {
              throw new PickleError('unsupported-protocol', at, `unsupported pickle protocol ${protocol}`);
            }
            break;
          }
          case Op.STOP:
            if (sp <= floor) throw underflow(at, 'STOP');
            // Entries written to columns in a batch that never closed were not appended after all.
            if (m.staged >= 0) throw new RestartWithoutFastPath();
            this.result = stack[sp - 1];
            this.done = true;
            this.offset = base + pos;
            stack.length = 0;
            m.sp = 0;
            m.work = work;
            return -1;
          default:
            m.sp = sp;
            m.floor = floor;
            m.pos = pos;
            if (!decodeRareOpcode(m, op, at)) {
              need = m.need;
              break run;
            }
            sp = m.sp;
            floor = m.floor;
            pos = m.pos;
        }
      }
      // An opcode cut by the end of `data`: an error at the end of the input, else wait for more.
      if (m.final) throw truncated(at, cutName);
      m.need = need;
      m.sp = sp;
      m.floor = floor;
      m.work = work;
      this.offset = base + at;
      return at;
    } catch (error) {
      if (error instanceof RestartWithoutFastPath || error instanceof ContentError) throw error;
      // Entries the fast path wrote to columns are not on the stack: an opcode of their batch that
      // needed them (a MEMOIZE after an entry's SETITEMS, a POP) fails here where the general machine
      // would not, or not yet. Only the general machine says what is wrong with such a file.
      if (m.staged >= 0) throw new RestartWithoutFastPath();
      throw error instanceof PickleError ? error.movedBy(base) : asPickleError(error, base + at);
    }
  }
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
