/** Growable typed-array buffers for building the timeline's columnar results without boxing numbers. */

export class IntBuffer {
  private data: Int32Array;
  length = 0;
  constructor(capacity = 64) {
    this.data = new Int32Array(Math.max(1, capacity));
  }
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
  toArray(): Int32Array {
    return this.data.slice(0, this.length);
  }
  private grow(): void {
    const next = new Int32Array(this.data.length * 2);
    next.set(this.data);
    this.data = next;
  }
}

export class FloatBuffer {
  private data: Float64Array;
  length = 0;
  constructor(capacity = 64) {
    this.data = new Float64Array(Math.max(1, capacity));
  }
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
  toArray(): Float64Array {
    return this.data.slice(0, this.length);
  }
  private grow(): void {
    const next = new Float64Array(this.data.length * 2);
    next.set(this.data);
    this.data = next;
  }
}

/** Smallest i in [0, length) with values[i] >= x, or length (values non-decreasing). */
export function lowerBound(values: ArrayLike<number>, x: number, length = values.length): number {
  let lo = 0;
  let hi = length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
