/** Reading fields of decoded pickle values (plain objects, arrays, scalars) with clear errors. */
import { SnapshotFormatError } from './errors';
import type { LineNumber } from './model';

export type Dict = Record<string, unknown>;

export function isDict(value: unknown): value is Dict {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Uint8Array) && !(value instanceof Set);
}

/** How a value reads in an error message ("a list", "None", ...). */
export function describe(value: unknown): string {
  if (value === null) return 'None';
  if (Array.isArray(value)) return 'a list';
  if (value instanceof Uint8Array) return 'bytes';
  if (value instanceof Set) return 'a set';
  if (typeof value === 'object') return 'a dict';
  if (typeof value === 'bigint') return 'an int';
  return `a ${typeof value === 'number' ? 'number' : typeof value}`;
}

/** An integer field as a number; bigints only when exactly representable. Undefined if it is not one. */
export function asInteger(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'bigint') {
    const n = Number(value);
    return Number.isSafeInteger(n) ? n : undefined;
  }
  if (typeof value === 'boolean') return value ? 1 : 0;
  return undefined;
}

export function integer(value: unknown, what: string): number {
  const n = asInteger(value);
  if (n !== undefined) return n;
  if (typeof value === 'bigint') throw new SnapshotFormatError(`${what} is ${String(value)}, too large to be a byte count or address`);
  throw new SnapshotFormatError(`${what} is ${describe(value)}, expected a number`);
}

export function optionalInteger(value: unknown, fallback: number, what: string): number {
  return value === undefined || value === null ? fallback : integer(value, what);
}

export function text(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value === undefined || value === null) return '';
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  return '';
}

export function lineNumber(value: unknown): LineNumber {
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return value;
  return 0;
}

export function list(value: unknown, what: string): unknown[] {
  if (Array.isArray(value)) return value;
  throw new SnapshotFormatError(`${what} is ${describe(value)}, expected a list`);
}
