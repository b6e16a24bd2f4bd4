/** No record. (A slot with no address holds NaN, which equals no address.) */
const EMPTY = -1;
const MAX_LOAD = 0.5;

/**
 * An index from addresses (non-negative safe integers) to the records that hold them: an open-addressing
 * table of addresses and record numbers, 12 bytes a slot. It starts small and doubles: a program allocates
 * again at the addresses it freed (the corpus's recordings hold 5 to 13 allocations per address), so it
 * holds each address once, without the boxed keys and entry objects of a `Map`. The addresses are kept in
 * the table itself: a probe compares two numbers, and never calls out to read a record's address.
 */
export class AddressIndex {
  /** Per slot: the address (NaN: none), and its record. */
  private keys: Float64Array;
  private records: Int32Array;
  private mask: number;
  private count = 0;

  /** @param expected about how many addresses will be stored (the table grows past it) */
  constructor(expected = 0) {
    let capacity = 16;
    while (capacity * MAX_LOAD < expected) capacity *= 2;
    this.keys = new Float64Array(capacity).fill(NaN);
    this.records = new Int32Array(capacity);
    this.mask = capacity - 1;
  }

  get size(): number {
    return this.count;
  }

  /** The record stored for `address`, or -1 when there is none. */
  get(address: number): number {
    const { keys, mask } = this;
    for (let i = slotOf(address, mask); ; i = (i + 1) & mask) {
      const key = keys[i];
      if (key === address) return this.records[i];
      if (Number.isNaN(key)) return EMPTY;
    }
  }

  /** Stores `record` for `address`, in place of any record there; returns the record it replaces (-1: none). */
  swap(address: number, record: number): number {
    const { keys, mask } = this;
    for (let i = slotOf(address, mask); ; i = (i + 1) & mask) {
      const key = keys[i];
      if (key === address) {
        const held = this.records[i];
        this.records[i] = record;
        return held;
      }
      if (Number.isNaN(key)) {
        keys[i] = address;
        this.records[i] = record;
        if (++this.count > (mask + 1) * MAX_LOAD) this.grow();
        return EMPTY;
      }
    }
  }

  private grow(): void {
    const { keys, records } = this;
    const capacity = 2 * keys.length;
    this.keys = new Float64Array(capacity).fill(NaN);
    this.records = new Int32Array(capacity);
    this.mask = capacity - 1;
    for (let j = 0; j < keys.length; j++) {
      const key = keys[j];
      if (Number.isNaN(key)) continue;
      let i = slotOf(key, this.mask);
      while (!Number.isNaN(this.keys[i])) i = (i + 1) & this.mask;
      this.keys[i] = key;
      this.records[i] = records[j];
    }
  }
}

/**
 * A 32-bit hash of an address (a non-negative safe integer) for open-addressing tables: its low and high
 * 32 bits mixed with MurmurHash3's finaliser, so that every bit reaches the low bits a table uses
 * (addresses share their low bits: blocks are aligned to 512 bytes or more).
 */
export function addressHash(address: number): number {
  const low = address >>> 0;
  const high = (address / 0x1_0000_0000) >>> 0;
  let h = Math.imul(low ^ Math.imul(high, 0x9e3779b1), 0x85ebca6b);
  h ^= h >>> 15;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 13;
  return h >>> 0;
}

function slotOf(address: number, mask: number): number {
  return addressHash(address) & mask;
}
