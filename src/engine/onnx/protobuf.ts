/**
 * The protobuf wire format, as much of it as ONNX files need: a writer that builds messages bottom-up
 * and a bounds-checked reader that never reads past its input and always advances (so a corrupt file
 * ends in an `OnnxFormatError`, never a hang or an out-of-range read).
 */
import { GrowableBytes } from '../base/growableBytes';
import { OnnxFormatError } from './errors';

export const enum WireType {
  Varint = 0,
  Fixed64 = 1,
  LengthDelimited = 2,
  StartGroup = 3,
  EndGroup = 4,
  Fixed32 = 5,
}

const utf8 = new TextEncoder();
/** The most bytes a message's length takes (lengths below 2^35; protobuf's own limit is 2 GiB). */
const LENGTH_ROOM = 5;

/** Appends protobuf fields to a growing buffer; nested messages are written by `message()`. */
export class ProtoWriter extends GrowableBytes {
  private rawVarint(value: number): void {
    if (!Number.isSafeInteger(value)) throw new RangeError(`${value} is not an integer protobuf can hold exactly`);
    this.reserve(10);
    if (value < 0) {
      // int64 two's complement, always ten bytes.
      let v = BigInt.asUintN(64, BigInt(value));
      for (let i = 0; i < 10; i++) {
        const byte = Number(v & 0x7fn);
        v >>= 7n;
        this.buffer[this.length++] = v === 0n ? byte : byte | 0x80;
        if (v === 0n) break;
      }
      return;
    }
    let v = value;
    while (v >= 0x80) {
      this.buffer[this.length++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.buffer[this.length++] = v;
  }

  private tag(field: number, wire: WireType): void {
    this.rawVarint(field * 8 + wire);
  }

  /** int32/int64/enum/bool field (negative values as ten-byte two's complement, like protoc). */
  varint(field: number, value: number): this {
    this.tag(field, WireType.Varint);
    this.rawVarint(value);
    return this;
  }

  float(field: number, value: number): this {
    this.tag(field, WireType.Fixed32);
    this.reserve(4);
    this.view.setFloat32(this.length, value, true);
    this.length += 4;
    return this;
  }

  bytes(field: number, value: Uint8Array): this {
    this.tag(field, WireType.LengthDelimited);
    this.rawVarint(value.length);
    this.append(value);
    return this;
  }

  string(field: number, value: string): this {
    return this.bytes(field, utf8.encode(value));
  }

  /** A packed repeated varint field (e.g. `repeated int64 dims`). */
  packedVarints(field: number, values: readonly number[]): this {
    const inner = new ProtoWriter();
    for (const v of values) inner.rawVarint(v);
    return this.bytes(field, inner.written());
  }

  /**
   * An embedded message, written by `write` in place: its content goes after room for the longest
   * length it can have, then moves back once over the room its length does not need. (Written into a
   * writer of its own and copied, a model's weights were copied and grown again at every level.)
   */
  message(field: number, write: (w: ProtoWriter) => void): this {
    this.tag(field, WireType.LengthDelimited);
    const lengthAt = this.length;
    this.reserve(LENGTH_ROOM);
    const start = lengthAt + LENGTH_ROOM;
    this.length = start;
    write(this);
    const size = this.length - start;
    if (size >= 2 ** (7 * LENGTH_ROOM)) throw new RangeError(`a message of ${size} bytes is larger than protobuf allows`);
    // Room for the varint now, so that writing it (at lengthAt, below what was written) never grows the buffer.
    this.reserve(10);
    this.length = lengthAt;
    this.rawVarint(size);
    const contentAt = this.length;
    this.buffer.copyWithin(contentAt, start, start + size);
    this.length = contentAt + size;
    return this;
  }

  /** What was written so far, as a view (no copy): for a message copied into its parent. */
  private written(): Uint8Array {
    return this.buffer.subarray(0, this.length);
  }
}

/** One field as the reader met it; `value` is set for varints, `bytes` for length-delimited fields. */
export interface Field {
  readonly number: number;
  readonly wire: WireType;
  /** Varint value (int64 beyond 2^53 is rounded; negative int64 decoded from two's complement). */
  readonly value: number;
  /** Length-delimited payload: a view into the input, not a copy. */
  readonly bytes: Uint8Array | undefined;
  /** Offset of the field's tag in the whole file, for error messages. */
  readonly offset: number;
  /** Offset of `bytes` in the whole file. */
  readonly bytesOffset: number;
}

const utf8Decoder = new TextDecoder('utf-8', { fatal: true });

/** Reads the fields of one message; `base` is the message's offset in the file (for error offsets). */
export class ProtoReader {
  private pos = 0;

  constructor(
    private readonly data: Uint8Array,
    private readonly base = 0,
  ) {}

  get done(): boolean {
    return this.pos >= this.data.length;
  }

  private fail(message: string, at = this.pos): never {
    throw new OnnxFormatError('corrupt', this.base + at, message);
  }

  /** A bare varint at the current position (as in a packed list). */
  readVarint(): number {
    const start = this.pos;
    let low = 0;
    let high = 0;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.data.length) throw new OnnxFormatError('truncated', this.base + start, 'the data ends inside a number');
      const byte = this.data[this.pos++];
      if (i < 4) low |= (byte & 0x7f) << (7 * i);
      else if (i === 4) {
        low |= (byte & 0x0f) << 28;
        high |= (byte & 0x7f) >> 4;
      } else high |= (byte & 0x7f) << (7 * i - 32);
      if ((byte & 0x80) === 0) {
        if (high & 0x80000000) return Number(BigInt.asIntN(64, (BigInt(high >>> 0) << 32n) | BigInt(low >>> 0)));
        return (high >>> 0) * 0x1_0000_0000 + (low >>> 0);
      }
    }
    return this.fail('a number longer than ten bytes', start);
  }

  /** The next field, or undefined at the end of the message. */
  next(): Field | undefined {
    if (this.done) return undefined;
    const offset = this.base + this.pos;
    const key = this.readVarint();
    const number = Math.floor(key / 8);
    const wire = (key % 8) as WireType;
    if (number === 0) this.fail('field number 0', offset - this.base);
    switch (wire) {
      case WireType.Varint:
        return { number, wire, value: this.readVarint(), bytes: undefined, offset, bytesOffset: offset };
      case WireType.Fixed64:
        return { number, wire, value: 0, bytesOffset: this.base + this.pos, bytes: this.take(8), offset };
      case WireType.Fixed32:
        return { number, wire, value: 0, bytesOffset: this.base + this.pos, bytes: this.take(4), offset };
      case WireType.LengthDelimited: {
        const length = this.readVarint();
        return { number, wire, value: 0, bytesOffset: this.base + this.pos, bytes: this.take(length), offset };
      }
      default:
        return this.fail(`unsupported wire type ${wire as number} (field ${number})`, offset - this.base);
    }
  }

  private take(length: number): Uint8Array {
    if (length < 0 || this.pos + length > this.data.length) {
      throw new OnnxFormatError('truncated', this.base + this.pos, `a field of ${length} bytes runs past the end of its message`);
    }
    const out = this.data.subarray(this.pos, this.pos + length);
    this.pos += length;
    return out;
  }
}

/** A length-delimited field as UTF-8 text; invalid UTF-8 is a format error. */
export function fieldText(field: Field): string {
  if (field.wire !== WireType.LengthDelimited || field.bytes === undefined) {
    throw new OnnxFormatError('corrupt', field.offset, `field ${field.number} should be text`);
  }
  try {
    return utf8Decoder.decode(field.bytes);
  } catch {
    throw new OnnxFormatError('corrupt', field.offset, `field ${field.number} is not valid UTF-8`);
  }
}

/** A varint field's value. */
export function fieldInt(field: Field): number {
  if (field.wire === WireType.Varint) return field.value;
  throw new OnnxFormatError('corrupt', field.offset, `field ${field.number} should be a number`);
}

/** The values of a repeated varint field, packed or not (call once per occurrence and concatenate). */
export function fieldInts(field: Field): number[] {
  if (field.wire === WireType.Varint) return [field.value];
  if (field.wire !== WireType.LengthDelimited || field.bytes === undefined) {
    throw new OnnxFormatError('corrupt', field.offset, `field ${field.number} should be a list of numbers`);
  }
  const reader = new ProtoReader(field.bytes, field.bytesOffset);
  const out: number[] = [];
  while (!reader.done) out.push(reader.readVarint());
  return out;
}

