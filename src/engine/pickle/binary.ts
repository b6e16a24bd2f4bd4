/** Little-endian unsigned 16-bit integer at `p`; the caller checks the bounds. */
export function readUint16(data: Uint8Array, p: number): number {
  return data[p] | (data[p + 1] << 8);
}

/** Little-endian signed 32-bit integer at `p`; the caller checks the bounds. */
export function readInt32(data: Uint8Array, p: number): number {
  return data[p] | (data[p + 1] << 8) | (data[p + 2] << 16) | (data[p + 3] << 24);
}

/** Little-endian unsigned 32-bit integer at `p`; the caller checks the bounds. */
export function readUint32(data: Uint8Array, p: number): number {
  return readInt32(data, p) >>> 0;
}

/**
 * Little-endian unsigned 64-bit length at `p`, as a number; exact up to 2^53, and above that still
 * larger than any byte count the input can hold, which is all a length check needs.
 */
export function readUint64(data: Uint8Array, p: number): number {
  return readUint32(data, p) + readUint32(data, p + 4) * 0x1_0000_0000;
}
