/** Why a pickle was rejected. */
export type PickleErrorCode =
  /** The input ends inside an opcode, or before STOP. */
  | 'truncated'
  /** A byte that is not a pickle opcode. */
  | 'bad-opcode'
  /** An opcode that would import, construct or call something: refused on principle. */
  | 'forbidden'
  /** Structurally invalid: stack underflow, missing MARK, unknown memo key, wrong container type, malformed argument. */
  | 'corrupt'
  /** PROTO names a protocol above 5. */
  | 'unsupported-protocol'
  /** A valid feature this decoder does not implement (out-of-band buffers). */
  | 'unsupported'
  /** A value too large to represent in JavaScript (string length, integer size). */
  | 'too-large';

/** A pickle that cannot be decoded safely; `offset` is the byte offset of the offending opcode. */
export class PickleError extends Error {
  override readonly name = 'PickleError';

  constructor(
    readonly code: PickleErrorCode,
    readonly offset: number,
    readonly detail: string,
  ) {
    super(`${detail} (at byte ${offset})`);
  }

  /** The same error for an opcode `delta` bytes further into the file (the decoder reads it in chunks). */
  movedBy(delta: number): PickleError {
    return delta === 0 ? this : new PickleError(this.code, this.offset + delta, this.detail);
  }
}
