import { readUint32, readUint64 } from './binary';
import { PickleError } from './errors';
import type { Memo } from './memo';
import { decodeUtf8 } from './strings';
import { PY_NON_STRING_KEYS, type PyDict, type PyValue } from './values';

/**
 * The unpickler's state. The decoding loop works on copies of `sp`, `floor` and `pos` in locals
 * and stores them here only around calls to the handler of rarely used opcodes.
 */
export interface Machine {
  /** The bytes being decoded now: one chunk of the input, or an opcode stitched across two. */
  data: Uint8Array;
  readonly memo: Memo;
  /** Values; only `stack[0 .. sp)` is live. */
  readonly stack: PyValue[];
  /** The enclosing floors of the open MARKs, innermost last. */
  readonly marks: number[];
  sp: number;
  /** Stack index of the innermost open MARK (0 when none): nothing below it may be popped. */
  floor: number;
  /** Offset of the next byte to read in `data`. */
  pos: number;
  /** True once the input has ended: an opcode cut short is an error, not a wait for more bytes. */
  final: boolean;
  /**
   * Set when an opcode is cut short by the end of `data`: how many bytes from its start it needs at
   * least (0: a text argument waiting for its newline; -1: unknown, a trace entry the fast path reads).
   */
  need: number;
  /**
   * `marks.length` of the MARK whose batch the fast path was reading when the bytes at hand ended
   * (-1: none): decoding resumes there, at the next entry, with the fast path.
   */
  resume: number;
  /**
   * `marks.length` of the MARK whose batch holds trace entries the fast path already wrote to columns
   * (-1: none). Closing that MARK other than by APPENDS means the pickle did not append them after all.
   */
  staged: number;
  /** Containers built and memo entries read: what the decoder counts toward a work budget. */
  work: number;
  /** Offset in the whole input of `data[0]`. */
  base: number;
  /** Offset of the last FRAME opcode, and where it says its frame ends (checked when the input ends). */
  frameAt: number;
  frameEnd: number;
  /** The trace fast path, when decoding with it. */
  readonly entries: EntryReader | undefined;
}

/**
 * Reads trace entries straight from the bytes (`traceEntries.ts`): called after a MARK over a list
 * when the next opcode builds a dict. It reads entries from `m.pos` while they have the shape it
 * knows, advances `m.pos` past them and leaves the stack alone; it reads none (and changes nothing)
 * when the first is not one of them. Returns true when it stopped at an entry cut by the end of
 * `m.data` (and the input goes on): the decoder then waits for more bytes and resumes there.
 */
export interface EntryReader {
  read(list: PyValue[], m: Machine): boolean;
  /**
   * True for a dict the fast path has read (a frame it interned as it was then): a later SETITEM on
   * it would change what the general machine sees, so it makes the reader start over without the fast path.
   */
  readsDict(dict: PyDict): boolean;
}

/**
 * An opcode at `at` is cut short: at the end of the input that is an error; otherwise the decoder
 * waits for `need` bytes from `at` (0: unknown) and returns false, changing nothing.
 */
export function short(m: Machine, at: number, opName: string, need: number): false {
  if (m.final) throw truncated(at, opName);
  m.need = need;
  return false;
}

/** Stores one dict entry: `str` keys as properties, other keys in the dict's non-string-key map. */
export function setItem(dict: PyDict, key: PyValue, value: PyValue): void {
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
export function copyBytes(data: Uint8Array, start: number, end: number): Uint8Array {
  return new Uint8Array(data.subarray(start, end));
}

/**
 * Reads a `width`-byte little-endian length at `m.pos` for the opcode at `at` and checks that many bytes
 * follow it; -1 when the chunk ends first (see {@link short}).
 */
export function readLength(m: Machine, width: 4 | 8, at: number, opName: string): number {
  const { data, pos } = m;
  if (data.length - pos < width) {
    short(m, at, opName, pos - at + width);
    return -1;
  }
  const n = width === 4 ? readUint32(data, pos) : readUint64(data, pos);
  if (data.length - pos - width < n) {
    short(m, at, opName, pos - at + width + n);
    return -1;
  }
  return n;
}

/** Decodes UTF-8 string bytes, or throws for malformed UTF-8. */
export function utf8OrThrow(data: Uint8Array, start: number, end: number, at: number): string {
  const text = decodeUtf8(data, start, end);
  if (text === null) throw corrupt(at, 'string is not valid UTF-8');
  return text;
}

// Errors for the opcode at offset `at`.

export function truncated(at: number, opName: string): PickleError {
  return new PickleError('truncated', at, `the pickle ends inside the argument of ${opName}`);
}

export function corrupt(at: number, detail: string): PickleError {
  return new PickleError('corrupt', at, detail);
}

export function underflow(at: number, opName: string): PickleError {
  return corrupt(at, `stack underflow at ${opName}`);
}

export function missingMark(at: number, opName: string): PickleError {
  return corrupt(at, `${opName} without a MARK`);
}

export function missingMemoKey(at: number, key: number): PickleError {
  return corrupt(at, `memo key ${key} was never stored`);
}

export function wrongTarget(at: number, opName: string, expected: string): PickleError {
  return corrupt(at, `${opName} applied to something other than a ${expected}`);
}
