/** Reading fields of decoded pickle values (plain objects, arrays, scalars) with clear errors. */
import { SnapshotFormatError } from './errors';
import type { LineNumber } from './model';

export type Dict = Record<string, unknown>;

export function isDict(value: unknown): value is Dict {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array) && !(value instanceof Set);
}

/** How a value reads in an error message ("a list", "None", "missing", ...). */
export function describe(value: unknown): string {
  if (value === undefined) return 'missing';
  if (value === null) return 'None';
  if (Array.isArray(value)) return 'a list';
  if (value instanceof Uint8Array) return 'bytes';
  if (value instanceof Set) return 'a set';
  if (typeof value === 'object') return 'a dict';
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  if (typeof value === 'number') return pythonNumber(value);
  if (typeof value === 'bigint') return String(value);
  if (typeof value === 'string') return `a string ('${value.length > 40 ? `${value.slice(0, 40)}...` : value}')`;
  return `a ${typeof value}`;
}

/** A float as Python prints it in a message: nan, inf, -inf, 3.7. */
function pythonNumber(value: number): string {
  if (Number.isNaN(value)) return 'nan';
  if (value === Infinity) return 'inf';
  if (value === -Infinity) return '-inf';
  return String(value);
}

/**
 * A non-negative integer field (sizes, addresses, times) as a number; bigints only when exactly
 * representable. Undefined if it is not one: booleans, floats (NaN, infinities, fractions) and
 * negative numbers are not integers of the format.
 */
export function asInteger(value: unknown): number | undefined {
  if (typeof value === 'number') return value >= 0 && Number.isSafeInteger(value) ? value : undefined;
  if (typeof value === 'bigint') {
    const n = Number(value);
    return value >= 0n && Number.isSafeInteger(n) ? n : undefined;
  }
  return undefined;
}

/** Why `value` is not a non-negative integer, for "<what> is <why>". */
export function notAnInteger(value: unknown): string {
  if (typeof value === 'bigint' && value >= 0n) return `${String(value)}, too large to be a byte count or address`;
  return `${describe(value)}, expected a non-negative integer`;
}

export function integer(value: unknown, what: string): number {
  const n = asInteger(value);
  if (n !== undefined) return n;
  throw new SnapshotFormatError(`${what} is ${notAnInteger(value)}`);
}

export function optionalInteger(value: unknown, fallback: number, what: string): number {
  return value === undefined || value === null ? fallback : integer(value, what);
}

/** Devices are small non-negative integers (CUDA ordinals). */
export const MAX_DEVICE = 1023;

export function device(value: unknown, what: string): number {
  if (value === undefined || value === null) return 0;
  const n = asInteger(value);
  if (n !== undefined && n <= MAX_DEVICE) return n;
  throw new SnapshotFormatError(`${what} is ${describe(value)}, expected a device number from 0 to ${MAX_DEVICE}`);
}

export function text(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) return '';
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  return '';
}

/**
 * A frame's line: a non-negative integer (0 where PyTorch knows no line, 2^64-1 in some files, kept
 * exact as a bigint). Missing reads as 0; anything else (floats, booleans, text) is an error.
 */
export function lineNumber(value: unknown, where: () => string): LineNumber {
  if (value === undefined || value === null) return 0;
  if (typeof value === 'number' && value >= 0 && Number.isSafeInteger(value)) return value;
  if (typeof value === 'bigint' && value >= 0n) return value;
  throw new SnapshotFormatError(`${where()} has line ${describe(value)}, expected a non-negative integer`);
}

export function list(value: unknown, what: string): unknown[] {
  if (Array.isArray(value)) return value;
  throw new SnapshotFormatError(`${what} is ${describe(value)}, expected a list`);
}
