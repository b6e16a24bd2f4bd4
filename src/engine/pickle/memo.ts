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

/**
 * Memo keys per page: values are stored in pages, made only when a value other than a consumed entry
 * lands there. A page is 256 KB of pointers: above V8's 128 KB bound for ordinary objects, so it is made
 * in the large-object space, where the young generation's collections never copy it. Pages of 4,096
 * keys (32 KB) were each copied twice as they survived, which in a PyTorch 2.0 file (a new frame dict,
 * so a memo key, for every frame of every entry) was most of the decoder's collection time: 109-123 ms
 * of scavenges against 24 ms now, 0.96x the time and 13 MiB less at the peak (257 MB, side by side).
 * Files without such keys pay for the bigger first page: up to 2 MiB more at the peak, the same time.
 */
const PAGE_BITS = 15;
const PAGE = 1 << PAGE_BITS;

/**
 * Python's unpickler memo: `memo[key] = value`, with `len(memo)` (the key MEMOIZE uses) counting the
 * distinct keys stored. Keys arrive in order (MEMOIZE, or PUT with a counter), so they live in pages
 * of a dense range; a key out of order, from a hand-made PUT, lives in a map. A consumed trace entry (most
 * of a snapshot's memo) costs one bit, not a slot: a file of 10 million entries keeps no array of
 * 10 million pointers.
 */
export class Memo {
  private readonly pages: ((Stored | undefined)[] | undefined)[] = [];
  /** One bit per key: a consumed trace entry is stored there. */
  private consumed = new Uint8Array(1024);
  /** One more than the largest dense key stored. */
  private limit = 0;
  private far: Map<number, Stored> | null = null;
  /** `len(memo)`. */
  size = 0;
  /**
   * Bumped whenever a key already stored is stored again (never, in CPython's pickles): what a
   * reader caches about a key's value holds while this stays the same.
   */
  overwrites = 0;

  /** MEMOIZE: stores `value` under `len(memo)`. */
  memoize(value: Stored): number {
    const key = this.size;
    this.put(key, value);
    return key;
  }

  /** PUT, BINPUT, LONG_BINPUT: stores `value` under `key`. */
  put(key: number, value: Stored): void {
    // The dense range grows one key at a time (so its pages cost at most a slot per key stored); a
    // key beyond it, from a hand-made PUT, goes to the map.
    if (key > this.limit || (this.far !== null && this.far.has(key))) {
      const far = (this.far ??= new Map());
      if (!far.has(key)) this.size++;
      else this.overwrites++;
      far.set(key, value);
      return;
    }
    if (key >= this.limit) this.limit = key + 1;
    const pageIndex = key >>> PAGE_BITS;
    let page = this.pages[pageIndex];
    const byte = key >>> 3;
    const bit = 1 << (key & 7);
    const wasConsumed = byte < this.consumed.length && (this.consumed[byte] & bit) !== 0;
    const had = wasConsumed || (page !== undefined && page[key & (PAGE - 1)] !== undefined);
    if (!had) this.size++;
    else this.overwrites++;
    if (value === CONSUMED_ENTRY) {
      if (byte >= this.consumed.length) this.growConsumed(byte);
      this.consumed[byte] |= bit;
      if (page !== undefined) page[key & (PAGE - 1)] = undefined;
      return;
    }
    if (wasConsumed) this.consumed[byte] &= ~bit;
    if (page === undefined) {
      while (this.pages.length <= pageIndex) this.pages.push(undefined);
      page = new Array<Stored | undefined>(PAGE).fill(undefined);
      this.pages[pageIndex] = page;
    }
    page[key & (PAGE - 1)] = value;
  }

  /**
   * MEMOIZE of a consumed trace entry when the keys so far are in order (a CPython pickle): the next
   * key, stored as one bit. Returns the key, or -1 when the general {@link put} must do it.
   */
  memoizeConsumed(): number {
    const key = this.size;
    if (key !== this.limit || this.far !== null) return -1;
    const byte = key >>> 3;
    if (byte >= this.consumed.length) this.growConsumed(byte);
    this.consumed[byte] |= 1 << (key & 7);
    this.limit = key + 1;
    this.size = key + 1;
    return key;
  }

  /** Replaces the value of a stored key without counting an overwrite (a reader's placeholder, settled). */
  settle(key: number, value: Stored): void {
    const before = this.overwrites;
    this.put(key, value);
    this.overwrites = before;
  }

  /** The value stored under `key`, or undefined when there is none. */
  get(key: number): Stored | undefined {
    const page = this.pages[key >>> PAGE_BITS];
    if (page !== undefined) {
      const value = page[key & (PAGE - 1)];
      if (value !== undefined) return value;
    }
    const byte = key >>> 3;
    if (byte < this.consumed.length && (this.consumed[byte] & (1 << (key & 7))) !== 0) return CONSUMED_ENTRY;
    return this.far === null ? undefined : this.far.get(key);
  }

  /** Undoes a `put` of a key that was new (the fast path giving an entry back to the general machine). */
  unput(key: number): void {
    if (this.far?.delete(key)) {
      this.size--;
      return;
    }
    const page = this.pages[key >>> PAGE_BITS];
    const byte = key >>> 3;
    const bit = 1 << (key & 7);
    if (byte < this.consumed.length && (this.consumed[byte] & bit) !== 0) {
      this.consumed[byte] &= ~bit;
      this.size--;
    } else if (page !== undefined && page[key & (PAGE - 1)] !== undefined) {
      page[key & (PAGE - 1)] = undefined;
      this.size--;
    }
  }

  /** True when `key` holds something. */
  has(key: number): boolean {
    return this.get(key) !== undefined;
  }

  private growConsumed(byte: number): void {
    const grown = new Uint8Array(Math.max(byte + 1, 2 * this.consumed.length));
    grown.set(this.consumed);
    this.consumed = grown;
  }
}
