/** The output buffer of our binary encoders (pickle, protobuf): bytes written forward, grown by doubling. */
export class GrowableBytes {
  protected buffer: Uint8Array;
  protected view: DataView;
  length = 0;

  constructor(capacity = 256) {
    this.buffer = new Uint8Array(capacity);
    this.view = new DataView(this.buffer.buffer);
  }

  /** Makes room for `n` more bytes at `length`. */
  protected reserve(n: number): void {
    if (this.length + n <= this.buffer.length) return;
    let size = this.buffer.length * 2;
    while (size < this.length + n) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buffer.subarray(0, this.length));
    this.buffer = next;
    this.view = new DataView(next.buffer);
  }

  protected append(data: Uint8Array): void {
    this.reserve(data.length);
    this.buffer.set(data, this.length);
    this.length += data.length;
  }

  /** A right-sized copy of what was written. */
  finish(): Uint8Array {
    return this.buffer.slice(0, this.length);
  }
}
