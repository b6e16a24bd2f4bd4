/**
 * Arrays grown to an exact size in one step. Setting `length` allocates the backing store at
 * once, where pushing reallocates it repeatedly; V8 keeps such arrays in fast mode only up to
 * 32M elements, so longer ones are pushed.
 */
const ONE_STEP_LIMIT = 1 << 24;

/** Appends `source[start, end)` to `target`. */
export function appendRange<T>(target: T[], source: readonly T[], start: number, end: number): void {
  const base = target.length;
  if (base + (end - start) <= ONE_STEP_LIMIT) {
    target.length = base + (end - start);
    for (let i = start; i < end; i++) target[base + i - start] = source[i];
  } else {
    for (let i = start; i < end; i++) target.push(source[i]);
  }
}

/** A new array of `length` undefined elements. */
export function undefinedArray<T>(length: number): (T | undefined)[] {
  const array: (T | undefined)[] = [];
  if (length <= ONE_STEP_LIMIT) {
    array.length = length;
    array.fill(undefined);
  } else {
    for (let i = 0; i < length; i++) array.push(undefined);
  }
  return array;
}
