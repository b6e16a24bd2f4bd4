import { readInt32 } from './binary';
import { PickleError } from './errors';
import { copyBytes, corrupt, missingMark, missingMemoKey, readLength, setItem, short, underflow, utf8OrThrow, wrongTarget, type Machine } from './machine';
import { MemoToken, RestartWithoutFastPath } from './memo';
import { decodeLong, MAX_LONG_BYTES, MAX_NUMBER_TEXT_BYTES, numberText, parseDecimalInt, parseFloatText, readMemoKey } from './numbers';
import { Op } from './opcodes';
import { refuseClass, refuseNamedGlobal, refuseOpcode } from './refusals';
import { decodeEscapedString, decodeLatin1, decodeRawUnicodeEscape } from './strings';
import { isPyDict, type PyDict, type PyValue } from './values';

/**
 * Decodes one of the opcodes that memory snapshots (protocol 4, written by CPython) never or
 * seldom use: protocol 0 text forms, Python 2 strings, bytes, sets, MARK-built containers, stack
 * shuffling, and the refused and unknown opcodes. `m.pos` is just past the opcode byte at `at`.
 * Returns false, changing nothing, when the opcode is cut short by the end of `m.data` before the
 * input has ended (see `short`). Kept apart from the decoding loop so that the loop stays small and
 * is optimized early.
 */
export function decodeRareOpcode(m: Machine, op: number, at: number): boolean {
  const { data, stack } = m;
  switch (op) {
    case Op.GET: {
      const newline = lineEnd(m, at, 'GET', MAX_NUMBER_TEXT_BYTES);
      if (newline < 0) return false;
      const key = readMemoKey(data, m.pos, newline);
      if (key === null) throw corrupt(at, 'GET has a malformed memo key');
      const value = m.memo.get(key);
      if (value === undefined) throw missingMemoKey(at, key);
      if (value instanceof MemoToken) throw new RestartWithoutFastPath();
      return push(m, value, newline + 1);
    }
    case Op.PUT: {
      const newline = lineEnd(m, at, 'PUT', MAX_NUMBER_TEXT_BYTES);
      if (newline < 0) return false;
      const key = readMemoKey(data, m.pos, newline);
      if (key === null) throw corrupt(at, 'PUT has a malformed memo key');
      if (m.sp <= m.floor) throw underflow(at, 'PUT');
      m.memo.put(key, stack[m.sp - 1]);
      m.pos = newline + 1;
      return true;
    }
    case Op.INT: {
      const newline = lineEnd(m, at, 'INT', MAX_NUMBER_TEXT_BYTES);
      if (newline < 0) return false;
      const text = numberTextOrThrow(m, newline, at, 'INT');
      // Protocol 0 spells True and False as INT 01 and INT 00.
      return push(m, text === '01' ? true : text === '00' ? false : parseIntOrThrow(text, at), newline + 1);
    }
    case Op.LONG: {
      const newline = lineEnd(m, at, 'LONG', MAX_NUMBER_TEXT_BYTES);
      if (newline < 0) return false;
      const text = numberTextOrThrow(m, newline, at, 'LONG');
      return push(m, parseIntOrThrow(text.endsWith('L') ? text.slice(0, -1) : text, at), newline + 1);
    }
    case Op.LONG4: {
      if (data.length - m.pos < 4) return short(m, at, 'LONG4', 5);
      const n = readInt32(data, m.pos);
      const start = m.pos + 4;
      if (n < 0) throw corrupt(at, 'LONG4 has a negative byte count');
      if (n > MAX_LONG_BYTES) throw new PickleError('too-large', at, `LONG4 integer of ${n} bytes (at most ${MAX_LONG_BYTES} are read)`);
      if (data.length - start < n) return short(m, at, 'LONG4', 5 + n);
      return push(m, decodeLong(data, start, n), start + n);
    }
    case Op.FLOAT: {
      const newline = lineEnd(m, at, 'FLOAT', MAX_NUMBER_TEXT_BYTES);
      if (newline < 0) return false;
      const value = parseFloatText(numberTextOrThrow(m, newline, at, 'FLOAT'));
      if (value === null) throw corrupt(at, 'FLOAT has a malformed argument');
      return push(m, value, newline + 1);
    }
    case Op.BINUNICODE8: {
      const n = readLength(m, 8, at, 'BINUNICODE8');
      if (n < 0) return false;
      const start = m.pos + 8;
      return push(m, utf8OrThrow(data, start, start + n, at), start + n);
    }
    case Op.UNICODE: {
      const newline = lineEnd(m, at, 'UNICODE', Infinity);
      if (newline < 0) return false;
      const text = decodeRawUnicodeEscape(data, m.pos, newline);
      if (text === null) throw corrupt(at, 'UNICODE has a malformed \\u escape');
      return push(m, text, newline + 1);
    }
    case Op.STRING: {
      const newline = lineEnd(m, at, 'STRING', Infinity);
      if (newline < 0) return false;
      const quote = data[m.pos];
      if (newline - m.pos < 2 || (quote !== 0x27 && quote !== 0x22) || data[newline - 1] !== quote) {
        throw corrupt(at, 'STRING argument is not quoted');
      }
      const text = decodeEscapedString(data, m.pos + 1, newline - 1);
      if (text === null) throw corrupt(at, 'STRING has a malformed escape');
      return push(m, text, newline + 1);
    }
    case Op.SHORT_BINSTRING:
    case Op.SHORT_BINBYTES: {
      const name = op === Op.SHORT_BINSTRING ? 'SHORT_BINSTRING' : 'SHORT_BINBYTES';
      if (m.pos >= data.length) return short(m, at, name, 2);
      const n = data[m.pos];
      const start = m.pos + 1;
      if (data.length - start < n) return short(m, at, name, 2 + n);
      return push(m, op === Op.SHORT_BINSTRING ? decodeLatin1(data, start, start + n) : copyBytes(data, start, start + n), start + n);
    }
    case Op.BINSTRING: {
      if (data.length - m.pos < 4) return short(m, at, 'BINSTRING', 5);
      const n = readInt32(data, m.pos);
      const start = m.pos + 4;
      if (n < 0) throw corrupt(at, 'BINSTRING has a negative byte count');
      if (data.length - start < n) return short(m, at, 'BINSTRING', 5 + n);
      return push(m, decodeLatin1(data, start, start + n), start + n);
    }
    case Op.BINBYTES:
    case Op.BINBYTES8:
    case Op.BYTEARRAY8: {
      const width = op === Op.BINBYTES ? 4 : 8;
      const n = readLength(m, width, at, op === Op.BINBYTES ? 'BINBYTES' : op === Op.BINBYTES8 ? 'BINBYTES8' : 'BYTEARRAY8');
      if (n < 0) return false;
      const start = m.pos + width;
      return push(m, copyBytes(data, start, start + n), start + n);
    }
    case Op.EMPTY_SET:
      return push(m, new Set<PyValue>(), m.pos);
    case Op.ADDITEMS: {
      const first = popMark(m, at, 'ADDITEMS');
      if (first <= m.floor) throw underflow(at, 'ADDITEMS');
      const set = stack[first - 1];
      if (!(set instanceof Set)) throw wrongTarget(at, 'ADDITEMS', 'set');
      for (let i = first; i < m.sp; i++) set.add(stack[i]);
      m.sp = first;
      return true;
    }
    case Op.FROZENSET: {
      const first = popMark(m, at, 'FROZENSET');
      const set = new Set<PyValue>();
      for (let i = first; i < m.sp; i++) set.add(stack[i]);
      m.sp = first;
      return push(m, set, m.pos);
    }
    case Op.DICT: {
      const first = popMark(m, at, 'DICT');
      if ((m.sp - first) % 2 !== 0) throw corrupt(at, 'DICT has an odd number of items');
      const dict: PyDict = {};
      for (let i = first; i < m.sp; i += 2) setItem(dict, stack[i], stack[i + 1]);
      m.sp = first;
      return push(m, dict, m.pos);
    }
    case Op.LIST:
    case Op.TUPLE: {
      const first = popMark(m, at, op === Op.LIST ? 'LIST' : 'TUPLE');
      const items = stack.slice(first, m.sp);
      m.sp = first;
      return push(m, items, m.pos);
    }
    case Op.SETITEM: {
      if (m.sp - 3 < m.floor) throw underflow(at, 'SETITEM');
      const dict = stack[m.sp - 3];
      if (!isPyDict(dict)) throw wrongTarget(at, 'SETITEM', 'dict');
      if (m.entries?.readsDict(dict)) throw new RestartWithoutFastPath();
      setItem(dict, stack[m.sp - 2], stack[m.sp - 1]);
      m.sp -= 2;
      return true;
    }
    case Op.POP:
      if (m.sp > m.floor) {
        m.sp -= 1;
      } else if (m.marks.length > 0) {
        // An empty stack above a MARK: Python pops the mark itself.
        leaveMark(m);
        m.floor = m.marks.pop()!;
      } else {
        throw underflow(at, 'POP');
      }
      return true;
    case Op.POP_MARK:
      m.sp = popMark(m, at, 'POP_MARK');
      return true;
    case Op.DUP:
      if (m.sp <= m.floor) throw underflow(at, 'DUP');
      return push(m, stack[m.sp - 1], m.pos);
    case Op.GLOBAL:
    case Op.INST: {
      const name = op === Op.GLOBAL ? 'GLOBAL' : 'INST';
      // Wait for both lines of `module\nname\n`, to name what the pickle would import.
      const second = m.final ? 0 : lineAfter(data, lineAfter(data, m.pos));
      if (second < 0) return short(m, at, name, 0);
      throw refuseNamedGlobal(data, m.pos, at, name);
    }
    case Op.STACK_GLOBAL: {
      const module = m.sp - 2 >= m.floor ? stack[m.sp - 2] : null;
      const name = m.sp - 1 >= m.floor ? stack[m.sp - 1] : null;
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
      if (at >= data.length) {
        if (m.final) throw new PickleError('truncated', data.length, 'the pickle ends before STOP');
        m.need = 1;
        return false;
      }
      throw new PickleError('bad-opcode', at, `unknown opcode 0x${op.toString(16).padStart(2, '0')}`);
  }
}

function push(m: Machine, value: PyValue, nextPos: number): true {
  m.stack[m.sp++] = value;
  m.pos = nextPos;
  return true;
}

/** Before the innermost MARK is closed: a batch the fast path wrote to columns must end in APPENDS. */
export function leaveMark(m: Machine): void {
  if (m.marks.length === m.staged) throw new RestartWithoutFastPath();
}

/** Closes the innermost MARK; returns the stack index of its first item. */
function popMark(m: Machine, at: number, opName: string): number {
  if (m.marks.length === 0) throw missingMark(at, opName);
  leaveMark(m);
  const first = m.floor;
  m.floor = m.marks.pop()!;
  return first;
}

/** Offset just past the newline ending the line at `pos`, or -1 when there is none (or `pos` is -1). */
function lineAfter(data: Uint8Array, pos: number): number {
  if (pos < 0) return -1;
  const newline = data.indexOf(0x0a, pos);
  return newline < 0 ? -1 : newline + 1;
}

/**
 * Index of the newline ending the text argument at `m.pos`; -1 when the chunk ends first. A numeric
 * argument (`maxBytes`) that is already longer than any accepted is refused without waiting for its end.
 */
function lineEnd(m: Machine, at: number, opName: string, maxBytes: number): number {
  const newline = m.data.indexOf(0x0a, m.pos);
  if (newline >= 0) return newline;
  if (m.data.length - m.pos > maxBytes) throw new PickleError('too-large', at, `${opName} argument longer than ${maxBytes} bytes`);
  short(m, at, opName, 0);
  return -1;
}

function numberTextOrThrow(m: Machine, newline: number, at: number, opName: string): string {
  const text = numberText(m.data, m.pos, newline);
  if (text === null) throw new PickleError('too-large', at, `${opName} argument longer than ${MAX_NUMBER_TEXT_BYTES} bytes`);
  return text;
}

function parseIntOrThrow(text: string, at: number): number | bigint {
  const value = parseDecimalInt(text);
  if (value === null) throw corrupt(at, 'malformed integer text');
  return value;
}
