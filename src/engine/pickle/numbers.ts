import { readUint32 } from './binary';
import { decodeLatin1 } from './strings';

/** Integer and float decoding: Python ints become numbers when safe, bigints otherwise. */

/**
 * Longest text argument accepted for INT, LONG, FLOAT, GET and PUT: Python's `int()` refuses
 * more than 4300 digits (`sys.int_max_str_digits`); the rest allows a sign, spaces and an L.
 */
export const MAX_NUMBER_TEXT_BYTES = 4300 + 16;

/**
 * Longest LONG4 body accepted: 2 KiB, a little more than the 4300 decimal digits Python's `int()`
 * reads from text. A memory snapshot's integers fit in 9 bytes; a larger claim is refused before
 * any of it is decoded (a 100 MB LONG4 used to cost gigabytes before being rejected).
 */
export const MAX_LONG_BYTES = 2048;

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const HEX_BYTES: readonly string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

/** A bigint as a number when it is a safe integer, else unchanged. */
function toPyInt(value: bigint): number | bigint {
  return value >= -MAX_SAFE && value <= MAX_SAFE ? Number(value) : value;
}

/**
 * Decodes `n` bytes at `start` as a little-endian two's-complement integer (LONG1/LONG4); the
 * caller checks the bounds and that `n` is at most {@link MAX_LONG_BYTES}.
 */
export function decodeLong(data: Uint8Array, start: number, n: number): number | bigint {
  if (n <= 6) {
    let value = 0;
    let scale = 1;
    for (let i = 0; i < n; i++) {
      value += data[start + i] * scale;
      scale *= 256;
    }
    return n > 0 && data[start + n - 1] >= 0x80 ? value - scale : value;
  }
  if (n <= 8) {
    const low = readUint32(data, start);
    let high = 0;
    let scale = 1;
    for (let i = 4; i < n; i++) {
      high += data[start + i] * scale;
      scale *= 256;
    }
    if (data[start + n - 1] >= 0x80) high -= scale;
    // Both terms are exact; the sum is exact whenever the true value is a safe integer, and
    // otherwise rounds to something unsafe, so this test is exact.
    const value = high * 0x1_0000_0000 + low;
    if (Number.isSafeInteger(value)) return value;
  }
  return decodeBigLong(data, start, n);
}

function decodeBigLong(data: Uint8Array, start: number, n: number): number | bigint {
  const hex: string[] = [];
  for (let i = start + n - 1; i >= start; i--) hex.push(HEX_BYTES[data[i]]);
  return toPyInt(BigInt.asIntN(n * 8, BigInt('0x' + hex.join(''))));
}

const DECIMAL_INT = /^[+-]?[0-9]+$/;

/** Strips the ASCII whitespace Python's `int()` and `float()` ignore around their argument. */
function trimPython(text: string): string {
  return text.replace(/^[ \t\n\r\v\f]+|[ \t\n\r\v\f]+$/g, '');
}

/**
 * Parses a decimal integer as Python's `int(text)` does (surrounding whitespace allowed);
 * null when it is not one. Callers bound the length (see {@link numberText}).
 */
export function parseDecimalInt(text: string): number | bigint | null {
  const trimmed = trimPython(text);
  if (!DECIMAL_INT.test(trimmed)) return null;
  // Adding 0 turns -0 into 0: Python ints have no negative zero.
  if (trimmed.length <= 15) return Number(trimmed) + 0;
  return toPyInt(BigInt(trimmed));
}

/** The text argument `data[start, end)` of a numeric opcode; null when longer than {@link MAX_NUMBER_TEXT_BYTES}. */
export function numberText(data: Uint8Array, start: number, end: number): string | null {
  return end - start <= MAX_NUMBER_TEXT_BYTES ? decodeLatin1(data, start, end) : null;
}

/** Reads a GET/PUT memo key (Python `int(text)`); null unless it is a non-negative safe integer. */
export function readMemoKey(data: Uint8Array, start: number, end: number): number | null {
  const text = numberText(data, start, end);
  const key = text === null ? null : parseDecimalInt(text);
  return typeof key === 'number' && key >= 0 ? key : null;
}

const DECIMAL_FLOAT = /^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$/;
const SPECIAL_FLOAT = /^([+-]?)(inf|infinity|nan)$/i;

/** Parses a float as Python's `float(text)` does for repr output; null when it is not one. */
export function parseFloatText(text: string): number | null {
  const trimmed = trimPython(text);
  if (DECIMAL_FLOAT.test(trimmed)) return Number(trimmed);
  const special = SPECIAL_FLOAT.exec(trimmed);
  if (special === null) return null;
  if (special[2].toLowerCase() === 'nan') return NaN;
  return special[1] === '-' ? -Infinity : Infinity;
}
