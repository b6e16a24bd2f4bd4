import type { PyValue } from './values';

/**
 * What the memo holds for an object the trace fast path read without building it (see
 * `traceEntries.ts`): a trace entry written straight into columns, or a frames list interned as a
 * stack. Only the fast path reads these back; the general machine, meeting one, restarts the decode
 * without the fast path ({@link RestartWithoutFastPath}), so every value it sees is a real one.
 */
export class MemoToken {
  constructor(
    /** 'entry': a consumed trace entry; 'stack': an interned frames list. */
    readonly kind: 'entry' | 'stack',
    /** The stack id of a 'stack' token. */
    readonly id: number,
  ) {}
}

/** The token of every consumed trace entry. */
export const CONSUMED_ENTRY = new MemoToken('entry', -1);

/**
 * Thrown (not a PickleError) when the general machine reads back something the fast path did not
 * build: a memo token, or a batch of trace entries that a pickle closes other than by APPENDS. The
 * snapshot reader then decodes the whole input again without the fast path, which gives exactly
 * Python's result; PyTorch's files never get here.
 */
export class RestartWithoutFastPath extends Error {
  override readonly name = 'RestartWithoutFastPath';
}

type Stored = PyValue | MemoToken;

/** Keys up to this far past the dense part extend it; a key further out goes to a map (a sparse PUT). */
const DENSE_REACH = 1 << 16;

/**
 * Python's unpickler memo: `memo[key] = value`, with `len(memo)` (the key MEMOIZE uses) counting the
 * distinct keys stored. Keys arrive nearly in order (MEMOIZE, or PUT with a counter), so they live in
 * a dense array; a far key from a hand-made PUT lives in a map.
 */
export class Memo {
  private readonly values: (Stored | undefined)[] = [];
  private far: Map<number, Stored> | null = null;
  /** `len(memo)`. */
  size = 0;

  /** MEMOIZE: stores `value` under `len(memo)`. */
  memoize(value: Stored): number {
    const key = this.size;
    this.put(key, value);
    return key;
  }

  /** PUT, BINPUT, LONG_BINPUT: stores `value` under `key`. */
  put(key: number, value: Stored): void {
    const values = this.values;
    if (key < values.length) {
      if (values[key] === undefined) this.size++;
      values[key] = value;
      return;
    }
    const far = this.far;
    if (key - values.length > DENSE_REACH) {
      const map = (this.far ??= new Map());
      if (!map.has(key)) this.size++;
      map.set(key, value);
      return;
    }
    // Extend the dense part, taking over any far keys it now covers.
    while (values.length < key) values.push(far === null ? undefined : this.takeFar(values.length));
    if (far === null || this.takeFar(key) === undefined) this.size++;
    values.push(value);
  }

  private takeFar(key: number): Stored | undefined {
    const value = this.far!.get(key);
    if (value !== undefined) this.far!.delete(key);
    return value;
  }

  /** The value stored under `key`, or undefined when there is none. */
  get(key: number): Stored | undefined {
    return key < this.values.length ? this.values[key] : this.far?.get(key);
  }

  /** Undoes a `put` of a key that was new (the fast path giving an entry back to the general machine). */
  unput(key: number): void {
    if (key < this.values.length) {
      if (this.values[key] === undefined) return;
      this.values[key] = undefined;
    } else if (!this.far?.delete(key)) {
      return;
    }
    this.size--;
  }

  /** True when `key` holds something. */
  has(key: number): boolean {
    return this.get(key) !== undefined;
  }
}
