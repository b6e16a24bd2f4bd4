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
  readonly data: Uint8Array;
  readonly memo: Memo;
  /** Values; only `stack[0 .. sp)` is live. */
  readonly stack: PyValue[];
  /** The enclosing floors of the open MARKs, innermost last. */
  readonly marks: number[];
  sp: number;
  /** Stack index of the innermost open MARK (0 when none): nothing below it may be popped. */
  floor: number;
  /** Offset of the next byte to read. */
  pos: number;
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

/** Reads a `width`-byte little-endian length at `pos` and checks that many bytes follow it. */
export function readLength(data: Uint8Array, pos: number, width: 4 | 8, at: number, opName: string): number {
  if (data.length - pos < width) throw truncated(at, opName);
  const n = width === 4 ? readUint32(data, pos) : readUint64(data, pos);
  if (data.length - pos - width < n) throw truncated(at, opName);
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
