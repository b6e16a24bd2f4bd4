/**
 * An index from addresses (non-negative safe integers) to the records that hold them: an open-addressing
 * table of record numbers only, 4 bytes a slot, whose keys are read back from the records themselves
 * (`addressOf`). What a replay keeps per address, without the boxed keys and entry objects of a `Map`
 * (a tenth of the memory, for millions of addresses), and without a second copy of the addresses.
 */
const EMPTY = -1;
const MAX_LOAD = 0.7;

export class AddressIndex {
  private slots: Int32Array;
  private mask: number;
  private count = 0;

  /**
   * @param expected about how many addresses will be stored (the table grows past it)
   * @param addressOf the address of a record (>= 0) stored in the index
   */
  constructor(
    expected: number,
    private readonly addressOf: (record: number) => number,
  ) {
    let capacity = 16;
    while (capacity * MAX_LOAD < expected) capacity *= 2;
    this.slots = new Int32Array(capacity).fill(EMPTY);
    this.mask = capacity - 1;
  }

  get size(): number {
    return this.count;
  }

  /** The record stored for `address`, or -1 when there is none. */
  get(address: number): number {
    const { slots, mask } = this;
    for (let i = slotOf(address, mask); ; i = (i + 1) & mask) {
      const record = slots[i];
      if (record === EMPTY || this.addressOf(record) === address) return record;
    }
  }

  /** Stores `record` (whose address is `address`) for its address, in place of any record there. */
  set(address: number, record: number): void {
    this.swap(address, record);
  }

  /** {@link set}, returning the record it replaces (-1: none): one probe where get and set take two. */
  swap(address: number, record: number): number {
    const { slots, mask } = this;
    for (let i = slotOf(address, mask); ; i = (i + 1) & mask) {
      const held = slots[i];
      if (held === EMPTY) {
        slots[i] = record;
        if (++this.count > (mask + 1) * MAX_LOAD) this.grow();
        return EMPTY;
      }
      if (this.addressOf(held) === address) {
        slots[i] = record;
        return held;
      }
    }
  }

  private grow(): void {
    const old = this.slots;
    this.slots = new Int32Array(2 * old.length).fill(EMPTY);
    this.mask = this.slots.length - 1;
    this.count = 0;
    for (const record of old) if (record !== EMPTY) this.set(this.addressOf(record), record);
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
