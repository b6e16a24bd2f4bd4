/** Growable typed-array buffers for building columnar results (replay records, timeline summaries) without boxing numbers. */

/** A typed array that grows by doubling as values are pushed. */
abstract class GrowableBuffer<T extends Int32Array | Float64Array> {
  private data: T;
  length = 0;
  constructor(capacity: number) {
    this.data = this.allocate(Math.max(1, capacity));
  }
  protected abstract allocate(length: number): T;
  push(value: number): void {
    if (this.length === this.data.length) this.grow();
    this.data[this.length++] = value;
  }
  get(i: number): number {
    return this.data[i];
  }
  set(i: number, value: number): void {
    this.data[i] = value;
  }
  /** A right-sized copy. */
  toArray(): T {
    return this.data.slice(0, this.length) as T;
  }
  /**
   * The values, for a buffer that is done growing: a view of its storage, not a copy. For a buffer
   * sized by an upper bound: the storage past `length` was never written, so its pages cost address
   * space, not memory.
   */
  take(): T {
    return this.data.subarray(0, this.length) as T;
  }
  private grow(): void {
    const next = this.allocate(Math.ceil(this.data.length * 1.5) + 16);
    next.set(this.data);
    this.data = next;
  }
}

export class IntBuffer extends GrowableBuffer<Int32Array> {
  constructor(capacity = 64) {
    super(capacity);
  }
  protected allocate(length: number): Int32Array {
    return new Int32Array(length);
  }
}

export class FloatBuffer extends GrowableBuffer<Float64Array> {
  constructor(capacity = 64) {
    super(capacity);
  }
  protected allocate(length: number): Float64Array {
    return new Float64Array(length);
  }
}
