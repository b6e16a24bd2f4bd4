/**
 * A map from addresses to values with open addressing over a Float64Array of keys: a replay looks
 * an address up on every allocation and free, and a `Map` keyed by numbers beyond 2^31 boxes each
 * key it stores. Addresses are non-negative integers below 2^53 (hashed as `AddressIndex` hashes
 * them); a deleted slot keeps a tombstone. Unlike `AddressIndex` it holds any value and forgets keys.
 */
import { addressHash } from '../base/addressIndex';

const EMPTY = -1;
const TOMBSTONE = -2;

export class AddressMap<V> {
  private keys: Float64Array;
  private values: (V | undefined)[];
  private used = 0;
  private live = 0;

  constructor(capacity = 1024) {
    let n = 16;
    while (n < capacity * 2) n *= 2;
    this.keys = new Float64Array(n).fill(EMPTY);
    this.values = new Array<V | undefined>(n).fill(undefined);
  }

  get size(): number {
    return this.live;
  }

  get(key: number): V | undefined {
    const mask = this.keys.length - 1;
    for (let i = addressHash(key) & mask; ; i = (i + 1) & mask) {
      const k = this.keys[i];
      if (k === key) return this.values[i];
      if (k === EMPTY) return undefined;
    }
  }

  has(key: number): boolean {
    return this.get(key) !== undefined;
  }

  set(key: number, value: V): void {
    if ((this.used + 1) * 2 > this.keys.length) this.grow();
    const mask = this.keys.length - 1;
    let free = -1;
    for (let i = addressHash(key) & mask; ; i = (i + 1) & mask) {
      const k = this.keys[i];
      if (k === key) {
        this.values[i] = value;
        return;
      }
      if (k === TOMBSTONE && free < 0) free = i;
      if (k === EMPTY) {
        const at = free >= 0 ? free : i;
        if (at === i) this.used++;
        this.keys[at] = key;
        this.values[at] = value;
        this.live++;
        return;
      }
    }
  }

  /** Removes the key; its value, or undefined when there was none. */
  take(key: number): V | undefined {
    const mask = this.keys.length - 1;
    for (let i = addressHash(key) & mask; ; i = (i + 1) & mask) {
      const k = this.keys[i];
      if (k === key) {
        const value = this.values[i];
        this.keys[i] = TOMBSTONE;
        this.values[i] = undefined;
        this.live--;
        return value;
      }
      if (k === EMPTY) return undefined;
    }
  }

  delete(key: number): boolean {
    const mask = this.keys.length - 1;
    for (let i = addressHash(key) & mask; ; i = (i + 1) & mask) {
      const k = this.keys[i];
      if (k === key) {
        this.keys[i] = TOMBSTONE;
        this.values[i] = undefined;
        this.live--;
        return true;
      }
      if (k === EMPTY) return false;
    }
  }

  /** A copy whose values are `f` of these (same keys, same layout). */
  mapValues<W>(f: (value: V) => W): AddressMap<W> {
    const copy = new AddressMap<W>(1);
    copy.keys = this.keys.slice();
    copy.values = this.values.map((v) => (v === undefined ? undefined : f(v)));
    copy.used = this.used;
    copy.live = this.live;
    return copy;
  }

  private grow(): void {
    const keys = this.keys;
    const values = this.values;
    const n = this.live * 4 > keys.length ? keys.length * 2 : keys.length;
    this.keys = new Float64Array(n).fill(EMPTY);
    this.values = new Array<V | undefined>(n).fill(undefined);
    this.used = 0;
    this.live = 0;
    for (let i = 0; i < keys.length; i++) if (keys[i] >= 0) this.set(keys[i], values[i] as V);
  }
}
