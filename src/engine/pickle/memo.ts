import { undefinedArray } from './arrays';
import type { PyValue } from './values';

/**
 * The memo keys a pickle reads back (GET, BINGET, LONG_BINGET), found by a first pass so that
 * the decoding pass stores only the memo entries somebody will fetch.
 */
export class MemoReads {
  /**
   * How often `key` is read (saturating at 255, which means "keep for good"); covers keys below
   * the input length. After its last read an entry is dropped, so objects shared only briefly
   * (a frame list read by an alloc's two free events) do not live to the end of decoding.
   */
  dense = new Uint8Array(64);
  /** Keys read that are at least the input length: only explicit PUT keys can reach them. */
  far: Set<number> | null = null;
  /** One more than the largest key in `dense` that is read (0 when none is). */
  denseLimit = 0;
  /** Dicts the stream builds (EMPTY_DICT, DICT): an upper bound a reader can size its tables by. */
  dicts = 0;
  /** True when the stream both memoizes implicitly (MEMOIZE) and explicitly (PUT family). */
  mixed = false;

  constructor(private readonly inputLength: number) {}

  add(key: number): void {
    if (key >= this.inputLength) {
      (this.far ??= new Set()).add(key);
      return;
    }
    if (key >= this.dense.length) {
      const grown = new Uint8Array(Math.min(this.inputLength, Math.max(key + 1, this.dense.length * 2)));
      grown.set(this.dense);
      this.dense = grown;
    }
    if (this.dense[key] < KEEP) this.dense[key]++;
    if (key >= this.denseLimit) this.denseLimit = key + 1;
  }
}

/** A read count that is never decremented: the entry is kept to the end. */
const KEEP = 255;

/** Python's unpickler memo, holding only the entries listed in a {@link MemoReads}. */
export class Memo {
  /** Reads still to come per dense key (KEEP: unlimited). */
  private readonly wanted: Uint8Array;
  private readonly wantedFar: Set<number> | null;
  /** Stored values by key; `undefined` means never stored. */
  private readonly values: (PyValue | undefined)[];
  private farValues: Map<number, PyValue> | null = null;
  /** Every key written so far; tracked only when MEMOIZE and PUT are mixed. */
  private readonly written: Set<number> | null;
  /** `len(memo)` in Python: the key the next MEMOIZE uses. */
  private size = 0;

  constructor(reads: MemoReads) {
    this.wanted = reads.dense.subarray(0, reads.denseLimit);
    this.wantedFar = reads.far;
    this.written = reads.mixed ? new Set() : null;
    this.values = undefinedArray<PyValue>(this.wanted.length);
  }

  /** MEMOIZE: stores `value` under `len(memo)`. */
  memoize(value: PyValue): void {
    const key = this.size;
    if (this.written === null) this.size = key + 1;
    else this.track(key);
    this.keep(key, value);
  }

  /** PUT, BINPUT, LONG_BINPUT: stores `value` under `key`. */
  put(key: number, value: PyValue): void {
    if (this.written !== null) this.track(key);
    this.keep(key, value);
  }

  /** The value stored under `key`, or undefined when there is none. */
  get(key: number): PyValue | undefined {
    if (key >= this.values.length) return this.farValues?.get(key);
    const value = this.values[key];
    const left = this.wanted[key];
    if (left !== KEEP && value !== undefined) {
      this.wanted[key] = left - 1;
      if (left === 1) this.values[key] = undefined;
    }
    return value;
  }

  private track(key: number): void {
    if (this.written === null || this.written.has(key)) return;
    this.written.add(key);
    this.size++;
  }

  private keep(key: number, value: PyValue): void {
    if (key < this.wanted.length) {
      if (this.wanted[key] !== 0) this.values[key] = value;
    } else if (this.wantedFar?.has(key)) {
      (this.farValues ??= new Map()).set(key, value);
    }
  }
}
