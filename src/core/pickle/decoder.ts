import { readInt32, readUint16, readUint32, readUint64 } from './binary';
import { PickleError, type PickleErrorCode } from './errors';
import { Memo } from './memo';
import { decodeLong, MAX_INT_TEXT_DIGITS, MAX_LONG_BYTES, parseDecimalInt, parseFloatText, parseMemoKey } from './numbers';
import { HIGHEST_PROTOCOL, Op } from './opcodes';
import { scanMemoReads } from './prescan';
import { refuseClass, refuseNamedGlobal, refuseOpcode } from './refusals';
import { decodeEscapedString, decodeLatin1, decodeRawUnicodeEscape, decodeUtf8 } from './strings';
import { isPyDict, PY_NON_STRING_KEYS, type PyDict, type PyValue } from './values';

export { isPyDict, PY_NON_STRING_KEYS, type PyDict, type PyValue } from './values';

/** Options for {@link decodePickle}. */
export interface DecodeOptions {
  /**
   * Called about every {@link PROGRESS_INTERVAL_BYTES} of input while decoding, with the bytes
   * decoded so far and the input length (for progress reports from a worker thread).
   */
  onProgress?: (bytesDecoded: number, bytesTotal: number) => void;
}

/** Input bytes between two {@link DecodeOptions.onProgress} calls. */
export const PROGRESS_INTERVAL_BYTES = 16 * 1024 * 1024;

const NEWLINE = 0x0a;

/**
 * Decodes a pickle (protocols 0 to 5) holding plain data: None, bools, ints, floats, str, bytes,
 * lists, tuples, dicts and sets (see {@link PyValue} for the mapping). Nothing is ever imported,
 * constructed or called: opcodes that would (GLOBAL, REDUCE, BUILD, ...) are refused.
 * Objects the pickle shares through its memo stay shared. Bytes after STOP are ignored.
 *
 * @throws PickleError for anything else: truncated, corrupt or forbidden input.
 */
export function decodePickle(data: Uint8Array, options: DecodeOptions = {}): PyValue {
  const memo = new Memo(scanMemoReads(data));
  const end = data.length;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const onProgress = options.onProgress;
  let nextProgress = onProgress === undefined ? Infinity : PROGRESS_INTERVAL_BYTES;
  /** Values; only `stack[0 .. sp)` is live. */
  const stack: PyValue[] = [];
  let sp = 0;
  /** Stack index of the innermost open MARK (0 when none): nothing below it may be popped. */
  let floor = 0;
  /** The enclosing floors of the open MARKs, innermost last. */
  const marks: number[] = [];
  let pos = 0;
  /** Offset of the opcode being decoded. */
  let at = 0;

  try {
    for (;;) {
      if (pos >= nextProgress) {
        onProgress?.(pos, end);
        nextProgress = pos + PROGRESS_INTERVAL_BYTES;
      }
      if (pos >= end) throw new PickleError('truncated', end, 'the pickle ends before STOP');
      at = pos;
      const op = data[pos++];
      switch (op) {
        // ---- memo ----------------------------------------------------------------------
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
        case Op.GET: {
          const newline = lineEnd(data, pos, at, 'GET');
          const key = parseMemoKey(decodeLatin1(data, pos, newline));
          if (key === null) throw corrupt(at, 'GET has a malformed memo key');
          pos = newline + 1;
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
        case Op.PUT: {
          const newline = lineEnd(data, pos, at, 'PUT');
          const key = parseMemoKey(decodeLatin1(data, pos, newline));
          if (key === null) throw corrupt(at, 'PUT has a malformed memo key');
          if (sp <= floor) throw underflow(at, 'PUT');
          memo.put(key, stack[sp - 1]);
          pos = newline + 1;
          break;
        }

        // ---- scalars -------------------------------------------------------------------
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
        case Op.LONG4: {
          if (end - pos < 4) throw truncated(at, 'LONG4');
          const n = readInt32(data, pos);
          pos += 4;
          if (n < 0) throw corrupt(at, 'LONG4 has a negative byte count');
          if (end - pos < n) throw truncated(at, 'LONG4');
          if (n > MAX_LONG_BYTES) throw new PickleError('too-large', at, `LONG4 integer of ${n} bytes`);
          stack[sp++] = decodeLong(data, pos, n);
          pos += n;
          break;
        }
        case Op.INT: {
          const newline = lineEnd(data, pos, at, 'INT');
          const text = intText(data, pos, newline, at);
          // Protocol 0 spells True and False as INT 01 and INT 00.
          stack[sp++] = text === '01' ? true : text === '00' ? false : parseIntOrThrow(text, at);
          pos = newline + 1;
          break;
        }
        case Op.LONG: {
          const newline = lineEnd(data, pos, at, 'LONG');
          const text = intText(data, pos, newline, at);
          stack[sp++] = parseIntOrThrow(text.endsWith('L') ? text.slice(0, -1) : text, at);
          pos = newline + 1;
          break;
        }
        case Op.BINFLOAT:
          if (end - pos < 8) throw truncated(at, 'BINFLOAT');
          stack[sp++] = view.getFloat64(pos, false);
          pos += 8;
          break;
        case Op.FLOAT: {
          const newline = lineEnd(data, pos, at, 'FLOAT');
          const value = parseFloatText(decodeLatin1(data, pos, Math.min(newline, pos + MAX_INT_TEXT_DIGITS)));
          if (value === null) throw corrupt(at, 'FLOAT has a malformed argument');
          stack[sp++] = value;
          pos = newline + 1;
          break;
        }
        case Op.NONE:
          stack[sp++] = null;
          break;
        case Op.NEWTRUE:
          stack[sp++] = true;
          break;
        case Op.NEWFALSE:
          stack[sp++] = false;
          break;

        // ---- strings and bytes ---------------------------------------------------------
        case Op.SHORT_BINUNICODE: {
          if (pos >= end) throw truncated(at, 'SHORT_BINUNICODE');
          const n = data[pos++];
          if (end - pos < n) throw truncated(at, 'SHORT_BINUNICODE');
          stack[sp++] = utf8OrThrow(data, pos, pos + n, at);
          pos += n;
          break;
        }
        case Op.BINUNICODE:
        case Op.BINUNICODE8: {
          const width = op === Op.BINUNICODE ? 4 : 8;
          const n = readLength(data, pos, width, at, op === Op.BINUNICODE ? 'BINUNICODE' : 'BINUNICODE8');
          pos += width;
          stack[sp++] = utf8OrThrow(data, pos, pos + n, at);
          pos += n;
          break;
        }
        case Op.UNICODE: {
          const newline = lineEnd(data, pos, at, 'UNICODE');
          const text = decodeRawUnicodeEscape(data, pos, newline);
          if (text === null) throw corrupt(at, 'UNICODE has a malformed \\u escape');
          stack[sp++] = text;
          pos = newline + 1;
          break;
        }
        case Op.SHORT_BINSTRING: {
          if (pos >= end) throw truncated(at, 'SHORT_BINSTRING');
          const n = data[pos++];
          if (end - pos < n) throw truncated(at, 'SHORT_BINSTRING');
          stack[sp++] = decodeLatin1(data, pos, pos + n);
          pos += n;
          break;
        }
        case Op.BINSTRING: {
          if (end - pos < 4) throw truncated(at, 'BINSTRING');
          const n = readInt32(data, pos);
          pos += 4;
          if (n < 0) throw corrupt(at, 'BINSTRING has a negative byte count');
          if (end - pos < n) throw truncated(at, 'BINSTRING');
          stack[sp++] = decodeLatin1(data, pos, pos + n);
          pos += n;
          break;
        }
        case Op.STRING: {
          const newline = lineEnd(data, pos, at, 'STRING');
          const quote = data[pos];
          if (newline - pos < 2 || (quote !== 0x27 && quote !== 0x22) || data[newline - 1] !== quote) {
            throw corrupt(at, 'STRING argument is not quoted');
          }
          const text = decodeEscapedString(data, pos + 1, newline - 1);
          if (text === null) throw corrupt(at, 'STRING has a malformed escape');
          stack[sp++] = text;
          pos = newline + 1;
          break;
        }
        case Op.SHORT_BINBYTES: {
          if (pos >= end) throw truncated(at, 'SHORT_BINBYTES');
          const n = data[pos++];
          if (end - pos < n) throw truncated(at, 'SHORT_BINBYTES');
          stack[sp++] = copyBytes(data, pos, pos + n);
          pos += n;
          break;
        }
        case Op.BINBYTES:
        case Op.BINBYTES8:
        case Op.BYTEARRAY8: {
          const width = op === Op.BINBYTES ? 4 : 8;
          const n = readLength(data, pos, width, at, op === Op.BINBYTES ? 'BINBYTES' : op === Op.BINBYTES8 ? 'BINBYTES8' : 'BYTEARRAY8');
          pos += width;
          stack[sp++] = copyBytes(data, pos, pos + n);
          pos += n;
          break;
        }

        // ---- containers ----------------------------------------------------------------
        case Op.EMPTY_DICT:
          stack[sp++] = {};
          break;
        case Op.EMPTY_LIST:
        case Op.EMPTY_TUPLE:
          stack[sp++] = [];
          break;
        case Op.EMPTY_SET:
          stack[sp++] = new Set<PyValue>();
          break;
        case Op.MARK:
          marks.push(floor);
          floor = sp;
          break;
        case Op.SETITEMS: {
          if (marks.length === 0) throw missingMark(at, 'SETITEMS');
          const first = floor;
          floor = marks.pop()!;
          if (first <= floor) throw underflow(at, 'SETITEMS');
          const dict = stack[first - 1];
          if (!isPyDict(dict)) throw wrongTarget(at, 'SETITEMS', 'dict');
          if ((sp - first) % 2 !== 0) throw corrupt(at, 'SETITEMS has an odd number of items');
          for (let i = first; i < sp; i += 2) setItem(dict, stack[i], stack[i + 1]);
          sp = first;
          break;
        }
        case Op.SETITEM: {
          if (sp - 3 < floor) throw underflow(at, 'SETITEM');
          const dict = stack[sp - 3];
          if (!isPyDict(dict)) throw wrongTarget(at, 'SETITEM', 'dict');
          setItem(dict, stack[sp - 2], stack[sp - 1]);
          sp -= 2;
          break;
        }
        case Op.DICT: {
          if (marks.length === 0) throw missingMark(at, 'DICT');
          const first = floor;
          floor = marks.pop()!;
          if ((sp - first) % 2 !== 0) throw corrupt(at, 'DICT has an odd number of items');
          const dict: PyDict = {};
          for (let i = first; i < sp; i += 2) setItem(dict, stack[i], stack[i + 1]);
          sp = first;
          stack[sp++] = dict;
          break;
        }
        case Op.APPENDS: {
          if (marks.length === 0) throw missingMark(at, 'APPENDS');
          const first = floor;
          floor = marks.pop()!;
          if (first <= floor) throw underflow(at, 'APPENDS');
          const list = stack[first - 1];
          if (!Array.isArray(list)) throw wrongTarget(at, 'APPENDS', 'list');
          for (let i = first; i < sp; i++) list.push(stack[i]);
          sp = first;
          break;
        }
        case Op.APPEND: {
          if (sp - 2 < floor) throw underflow(at, 'APPEND');
          const list = stack[sp - 2];
          if (!Array.isArray(list)) throw wrongTarget(at, 'APPEND', 'list');
          list.push(stack[--sp]);
          break;
        }
        case Op.LIST:
        case Op.TUPLE: {
          if (marks.length === 0) throw missingMark(at, op === Op.LIST ? 'LIST' : 'TUPLE');
          const first = floor;
          floor = marks.pop()!;
          const items = stack.slice(first, sp);
          sp = first;
          stack[sp++] = items;
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
        case Op.ADDITEMS: {
          if (marks.length === 0) throw missingMark(at, 'ADDITEMS');
          const first = floor;
          floor = marks.pop()!;
          if (first <= floor) throw underflow(at, 'ADDITEMS');
          const set = stack[first - 1];
          if (!(set instanceof Set)) throw wrongTarget(at, 'ADDITEMS', 'set');
          for (let i = first; i < sp; i++) set.add(stack[i]);
          sp = first;
          break;
        }
        case Op.FROZENSET: {
          if (marks.length === 0) throw missingMark(at, 'FROZENSET');
          const first = floor;
          floor = marks.pop()!;
          const set = new Set<PyValue>();
          for (let i = first; i < sp; i++) set.add(stack[i]);
          sp = first;
          stack[sp++] = set;
          break;
        }

        // ---- stack and framing ---------------------------------------------------------
        case Op.POP:
          if (sp > floor) {
            sp -= 1;
          } else if (marks.length > 0) {
            // An empty stack above a MARK: Python pops the mark itself.
            floor = marks.pop()!;
          } else {
            throw underflow(at, 'POP');
          }
          break;
        case Op.POP_MARK:
          if (marks.length === 0) throw missingMark(at, 'POP_MARK');
          sp = floor;
          floor = marks.pop()!;
          break;
        case Op.DUP:
          if (sp <= floor) throw underflow(at, 'DUP');
          stack[sp] = stack[sp - 1];
          sp += 1;
          break;
        case Op.PROTO: {
          if (pos >= end) throw truncated(at, 'PROTO');
          const protocol = data[pos++];
          if (protocol > HIGHEST_PROTOCOL) {
            throw new PickleError('unsupported-protocol', at, `unsupported pickle protocol ${protocol}`);
          }
          break;
        }
        case Op.FRAME:
          // Frames only group opcodes for buffered reading; check that the frame is all there.
          readLength(data, pos, 8, at, 'FRAME');
          pos += 8;
          break;
        case Op.STOP:
          if (sp <= floor) throw underflow(at, 'STOP');
          return stack[sp - 1];

        // ---- refused -------------------------------------------------------------------
        case Op.GLOBAL:
          throw refuseNamedGlobal(data, pos, at, 'GLOBAL');
        case Op.INST:
          throw refuseNamedGlobal(data, pos, at, 'INST');
        case Op.STACK_GLOBAL: {
          const module = sp - 2 >= floor ? stack[sp - 2] : null;
          const name = sp - 1 >= floor ? stack[sp - 1] : null;
          if (typeof module === 'string' && typeof name === 'string') throw refuseClass(at, module, name);
          throw refuseOpcode(at, 'imports a global (STACK_GLOBAL)');
        }
        case Op.REDUCE:
          throw refuseOpcode(at, 'calls an object (REDUCE)');
        case Op.BUILD:
          throw refuseOpcode(at, 'sets the state of an object (BUILD)');
        case Op.OBJ:
          throw refuseOpcode(at, 'constructs an object (OBJ)');
        case Op.NEWOBJ:
          throw refuseOpcode(at, 'constructs an object (NEWOBJ)');
        case Op.NEWOBJ_EX:
          throw refuseOpcode(at, 'constructs an object (NEWOBJ_EX)');
        case Op.EXT1:
        case Op.EXT2:
        case Op.EXT4:
          throw refuseOpcode(at, 'loads an object from the copyreg extension registry (EXT1/EXT2/EXT4)');
        case Op.PERSID:
        case Op.BINPERSID:
          throw refuseOpcode(at, 'loads a persistent object (PERSID/BINPERSID)');
        case Op.NEXT_BUFFER:
        case Op.READONLY_BUFFER:
          throw new PickleError('unsupported', at, 'out-of-band buffers (NEXT_BUFFER/READONLY_BUFFER) are not supported');
        default:
          throw new PickleError('bad-opcode', at, `unknown opcode 0x${op.toString(16).padStart(2, '0')}`);
      }
    }
  } catch (error) {
    throw asPickleError(error, at);
  }
}

/** Stores one dict entry: `str` keys as properties, other keys in the dict's non-string-key map. */
function setItem(dict: PyDict, key: PyValue, value: PyValue): void {
  if (typeof key === 'string') {
    if (key === '__proto__') {
      Object.defineProperty(dict, key, { value, writable: true, enumerable: true, configurable: true });
    } else {
      dict[key] = value;
    }
  } else {
    let others = dict[PY_NON_STRING_KEYS];
    if (others === undefined) {
      others = new Map();
      dict[PY_NON_STRING_KEYS] = others;
    }
    others.set(key, value);
  }
}

/** A copy of `data[start, end)` as a plain Uint8Array, whatever subclass `data` is. */
function copyBytes(data: Uint8Array, start: number, end: number): Uint8Array {
  return new Uint8Array(data.subarray(start, end));
}

/** Reads a `width`-byte little-endian length at `pos` and checks that many bytes follow it. */
function readLength(data: Uint8Array, pos: number, width: 4 | 8, at: number, opName: string): number {
  if (data.length - pos < width) throw truncated(at, opName);
  const n = width === 4 ? readUint32(data, pos) : readUint64(data, pos);
  if (data.length - pos - width < n) throw truncated(at, opName);
  return n;
}

/** Index of the newline ending the text argument that starts at `pos`. */
function lineEnd(data: Uint8Array, pos: number, at: number, opName: string): number {
  const newline = data.indexOf(NEWLINE, pos);
  if (newline < 0) throw truncated(at, opName);
  return newline;
}

function utf8OrThrow(data: Uint8Array, start: number, end: number, at: number): string {
  const text = decodeUtf8(data, start, end);
  if (text === null) throw corrupt(at, 'string is not valid UTF-8');
  return text;
}

function intText(data: Uint8Array, start: number, end: number, at: number): string {
  if (end - start > MAX_INT_TEXT_DIGITS + 8) {
    throw new PickleError('too-large', at, `integer text longer than ${MAX_INT_TEXT_DIGITS} digits`);
  }
  return decodeLatin1(data, start, end);
}

function parseIntOrThrow(text: string, at: number): number | bigint {
  const value = parseDecimalInt(text);
  if (value === null) throw corrupt(at, 'malformed integer text');
  return value;
}

function truncated(at: number, opName: string): PickleError {
  return new PickleError('truncated', at, `the pickle ends inside the argument of ${opName}`);
}

function corrupt(at: number, detail: string): PickleError {
  return new PickleError('corrupt', at, detail);
}

function underflow(at: number, opName: string): PickleError {
  return corrupt(at, `stack underflow at ${opName}`);
}

function missingMark(at: number, opName: string): PickleError {
  return corrupt(at, `${opName} without a MARK`);
}

function missingMemoKey(at: number, key: number): PickleError {
  return corrupt(at, `memo key ${key} was never stored`);
}

function wrongTarget(at: number, opName: string, expected: string): PickleError {
  return corrupt(at, `${opName} applied to something other than a ${expected}`);
}

/** Any failure as a PickleError: engine limits (RangeError) read as 'too-large'. */
function asPickleError(error: unknown, at: number): PickleError {
  if (error instanceof PickleError) return error;
  const code: PickleErrorCode = error instanceof RangeError ? 'too-large' : 'corrupt';
  const detail = error instanceof Error ? error.message : String(error);
  return new PickleError(code, at, `cannot decode: ${detail}`);
}
