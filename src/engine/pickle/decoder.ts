import { appendRange } from './arrays';
import { readInt32, readUint16, readUint32 } from './binary';
import { PickleError } from './errors';
import { corrupt, missingMark, missingMemoKey, readLength, setItem, truncated, underflow, utf8OrThrow, wrongTarget, type Machine } from './machine';
import { Memo } from './memo';
import { decodeLong } from './numbers';
import { HIGHEST_PROTOCOL, Op } from './opcodes';
import { scanMemoReads } from './prescan';
import { decodeRareOpcode } from './rareOpcodes';
import { isPyDict, type PyValue } from './values';

export { isPyDict, PY_NON_STRING_KEYS, type PyDict, type PyValue } from './values';

/** Options for {@link decodePickle}. */
export interface DecodeOptions {
  /**
   * Called about every {@link PROGRESS_INTERVAL_BYTES} of input while decoding (checked at each
   * MARK, which every container of two or more items uses), with the bytes decoded so far and the
   * input length: for progress reports from a worker thread.
   */
  onProgress?: (bytesDecoded: number, bytesTotal: number) => void;
  /**
   * Called before items are appended to a list (APPENDS, APPEND) with the list and the items
   * `items[start, end)`. Returning true means the hook consumed them and they are not appended:
   * a reader that streams a huge list (a snapshot's trace) into its own structure keeps no tree.
   * The hook must not throw; it gets plain decoded values and never anything executable.
   */
  onAppend?: (list: PyValue[], items: readonly PyValue[], start: number, end: number) => boolean;
  /** Called once before decoding with facts from the first pass: how many dicts the pickle builds. */
  onScanned?: (facts: { readonly dicts: number }) => void;
}

/** Input bytes between two {@link DecodeOptions.onProgress} calls. */
export const PROGRESS_INTERVAL_BYTES = 16 * 1024 * 1024;

/**
 * Decodes a pickle (protocols 0 to 5) holding plain data: None, bools, ints, floats, str, bytes,
 * lists, tuples, dicts and sets (see {@link PyValue} for the mapping). Nothing is ever imported,
 * constructed or called: opcodes that would (GLOBAL, REDUCE, BUILD, ...) are refused.
 * Objects the pickle shares through its memo stay shared. Bytes after STOP are ignored.
 * Tuples are plain arrays, so a few things CPython rejects but no pickler writes (APPEND to a
 * tuple, a list or dict as a dict key) decode here.
 *
 * @throws PickleError for anything else: truncated, corrupt or forbidden input.
 */
export function decodePickle(data: Uint8Array, options: DecodeOptions = {}): PyValue {
  const end = data.length;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const onProgress = options.onProgress;
  const onAppend = options.onAppend;
  let nextProgress = onProgress === undefined ? Infinity : PROGRESS_INTERVAL_BYTES;
  // Working copies of m.sp, m.floor and m.pos.
  let sp = 0;
  let floor = 0;
  let pos = 0;
  /** Offset of the opcode being decoded. */
  let at = 0;

  try {
    // Inside the wrapper: sizing the memo or the caller's storage from the first pass may hit an
    // engine limit, which must read as a PickleError like any other.
    const reads = scanMemoReads(data);
    options.onScanned?.({ dicts: reads.dicts });
    const memo = new Memo(reads);
    const m: Machine = { data, memo, stack: [], marks: [], sp: 0, floor: 0, pos: 0 };
    const { stack, marks } = m;
    for (;;) {
      at = pos;
      // Past the end this reads undefined, which decodeRareOpcode reports.
      const op = data[pos++];
      switch (op) {
        case Op.BINGET: {
          if (pos >= end) throw truncated(at, 'BINGET');
          const key = data[pos++];
          const value = memo.get(key);
          if (value === undefined) throw missingMemoKey(at, key);
          stack[sp++] = value;
          break;
        }
        case Op.LONG_BINGET: {
          if (end - pos < 4) throw truncated(at, 'LONG_BINGET');
          const key = readUint32(data, pos);
          pos += 4;
          const value = memo.get(key);
          if (value === undefined) throw missingMemoKey(at, key);
          stack[sp++] = value;
          break;
        }
        case Op.MEMOIZE:
          if (sp <= floor) throw underflow(at, 'MEMOIZE');
          memo.memoize(stack[sp - 1]);
          break;
        case Op.BINPUT:
          if (pos >= end) throw truncated(at, 'BINPUT');
          if (sp <= floor) throw underflow(at, 'BINPUT');
          memo.put(data[pos++], stack[sp - 1]);
          break;
        case Op.LONG_BINPUT:
          if (end - pos < 4) throw truncated(at, 'LONG_BINPUT');
          if (sp <= floor) throw underflow(at, 'LONG_BINPUT');
          memo.put(readUint32(data, pos), stack[sp - 1]);
          pos += 4;
          break;
        case Op.BININT1:
          if (pos >= end) throw truncated(at, 'BININT1');
          stack[sp++] = data[pos++];
          break;
        case Op.BININT2:
          if (end - pos < 2) throw truncated(at, 'BININT2');
          stack[sp++] = readUint16(data, pos);
          pos += 2;
          break;
        case Op.BININT:
          if (end - pos < 4) throw truncated(at, 'BININT');
          stack[sp++] = readInt32(data, pos);
          pos += 4;
          break;
        case Op.LONG1: {
          if (pos >= end) throw truncated(at, 'LONG1');
          const n = data[pos++];
          if (end - pos < n) throw truncated(at, 'LONG1');
          stack[sp++] = decodeLong(data, pos, n);
          pos += n;
          break;
        }
        case Op.BINFLOAT:
          if (end - pos < 8) throw truncated(at, 'BINFLOAT');
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
          if (pos >= end) throw truncated(at, 'SHORT_BINUNICODE');
          const n = data[pos++];
          if (end - pos < n) throw truncated(at, 'SHORT_BINUNICODE');
          stack[sp++] = utf8OrThrow(data, pos, pos + n, at);
          pos += n;
          break;
        }
        case Op.BINUNICODE: {
          const n = readLength(data, pos, 4, at, 'BINUNICODE');
          pos += 4;
          stack[sp++] = utf8OrThrow(data, pos, pos + n, at);
          pos += n;
          break;
        }
        case Op.EMPTY_DICT:
          stack[sp++] = {};
          break;
        case Op.EMPTY_LIST:
        case Op.EMPTY_TUPLE:
          stack[sp++] = [];
          break;
        case Op.MARK:
          marks.push(floor);
          floor = sp;
          if (pos >= nextProgress) {
            onProgress?.(pos, end);
            nextProgress = pos + PROGRESS_INTERVAL_BYTES;
          }
          break;
        case Op.SETITEMS: {
          if (marks.length === 0) throw missingMark(at, 'SETITEMS');
          const first = floor;
          floor = marks.pop()!;
          if (first <= floor) throw underflow(at, 'SETITEMS');
          const dict = stack[first - 1];
          if (!isPyDict(dict)) throw wrongTarget(at, 'SETITEMS', 'dict');
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
          const first = floor;
          floor = marks.pop()!;
          if (first <= floor) throw underflow(at, 'APPENDS');
          const list = stack[first - 1];
          if (!Array.isArray(list)) throw wrongTarget(at, 'APPENDS', 'list');
          if (onAppend === undefined || !onAppend(list, stack, first, sp)) appendRange(list, stack, first, sp);
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
          break;
        case Op.TUPLE2:
          if (sp - 2 < floor) throw underflow(at, 'TUPLE2');
          stack[sp - 2] = [stack[sp - 2], stack[sp - 1]];
          sp -= 1;
          break;
        case Op.TUPLE3:
          if (sp - 3 < floor) throw underflow(at, 'TUPLE3');
          stack[sp - 3] = [stack[sp - 3], stack[sp - 2], stack[sp - 1]];
          sp -= 2;
          break;
        case Op.FRAME:
          // Frames only group opcodes for buffered reading; check that the frame is all there.
          readLength(data, pos, 8, at, 'FRAME');
          pos += 8;
          break;
        case Op.PROTO: {
          if (pos >= end) throw truncated(at, 'PROTO');
          const protocol = data[pos++];
          if (protocol > HIGHEST_PROTOCOL) {
            throw new PickleError('unsupported-protocol', at, `unsupported pickle protocol ${protocol}`);
          }
          break;
        }
        case Op.STOP:
          if (sp <= floor) throw underflow(at, 'STOP');
          return stack[sp - 1];
        default:
          m.sp = sp;
          m.floor = floor;
          m.pos = pos;
          decodeRareOpcode(m, op, at);
          sp = m.sp;
          floor = m.floor;
          pos = m.pos;
      }
    }
  } catch (error) {
    throw asPickleError(error, at);
  }
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
