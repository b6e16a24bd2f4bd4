/**
 * A pickle ENCODER for plain data, protocol 4: dict (string keys), list, str, int (number or
 * bigint), float, bool, None and bytes. It writes what `pickle.dumps` would need to rebuild the
 * value and nothing that imports or calls: Python's `pickle.loads`, PyTorch's memory_viz and our
 * own decoder all read it.
 *
 * Objects that appear more than once (PyTorch shares one frames list between the trace entry and the
 * block of an allocation) are written once and referenced through the memo, as Python does; strings
 * are memoized too, so a file name repeated in ten thousand frames costs a few bytes per repeat.
 */
import { GrowableBytes } from '../base/growableBytes';
import { Op } from './opcodes';

/** What the encoder accepts: the plain-data subset of `PyValue`. */
export type PlainValue =
  | null
  | boolean
  | number
  | bigint
  | string
  | Uint8Array
  | readonly PlainValue[]
  | { readonly [key: string]: PlainValue | undefined };

const PROTOCOL = 4;
/** Items per APPENDS / SETITEMS batch, as CPython writes them. */
const BATCH = 1000;

class ByteSink extends GrowableBytes {
  constructor() {
    super(1 << 16);
  }

  byte(b: number): void {
    this.reserve(1);
    this.buffer[this.length++] = b;
  }

  uint16(v: number): void {
    this.reserve(2);
    this.view.setUint16(this.length, v, true);
    this.length += 2;
  }

  int32(v: number): void {
    this.reserve(4);
    this.view.setInt32(this.length, v, true);
    this.length += 4;
  }

  uint32(v: number): void {
    this.reserve(4);
    this.view.setUint32(this.length, v, true);
    this.length += 4;
  }

  uint64(v: number): void {
    this.reserve(8);
    this.view.setBigUint64(this.length, BigInt(v), true);
    this.length += 8;
  }

  float64BigEndian(v: number): void {
    this.reserve(8);
    this.view.setFloat64(this.length, v, false);
    this.length += 8;
  }

  bytes(data: Uint8Array): void {
    this.append(data);
  }
}

const utf8 = new TextEncoder();

/** Two's complement little-endian bytes of `value`, as few as keep the sign (pickle's LONG1 payload). */
function longBytes(value: bigint): Uint8Array {
  const out: number[] = [];
  let v = value;
  for (;;) {
    const byte = Number(BigInt.asUintN(8, v));
    out.push(byte);
    v >>= 8n;
    const signBitSet = (byte & 0x80) !== 0;
    if ((v === 0n && !signBitSet) || (v === -1n && signBitSet)) break;
  }
  return Uint8Array.from(out);
}

class Pickler {
  private readonly out = new ByteSink();
  private readonly memo = new Map<unknown, number>();

  encode(value: PlainValue): Uint8Array {
    this.out.byte(Op.PROTO);
    this.out.byte(PROTOCOL);
    this.value(value);
    this.out.byte(Op.STOP);
    return this.out.finish();
  }

  private memoize(key: unknown): void {
    this.memo.set(key, this.memo.size);
    this.out.byte(Op.MEMOIZE);
  }

  private fromMemo(key: unknown): boolean {
    const index = this.memo.get(key);
    if (index === undefined) return false;
    if (index < 256) {
      this.out.byte(Op.BINGET);
      this.out.byte(index);
    } else {
      this.out.byte(Op.LONG_BINGET);
      this.out.uint32(index);
    }
    return true;
  }

  private value(value: PlainValue | undefined): void {
    if (value === null || value === undefined) this.out.byte(Op.NONE);
    else if (value === true) this.out.byte(Op.NEWTRUE);
    else if (value === false) this.out.byte(Op.NEWFALSE);
    else if (typeof value === 'number') this.number(value);
    else if (typeof value === 'bigint') this.bigint(value);
    else if (typeof value === 'string') this.string(value);
    else if (value instanceof Uint8Array) this.bytesValue(value);
    else if (Array.isArray(value)) this.list(value as readonly PlainValue[]);
    else this.dict(value as { readonly [key: string]: PlainValue | undefined });
  }

  private number(value: number): void {
    if (!Number.isInteger(value) || Object.is(value, -0)) {
      this.out.byte(Op.BINFLOAT);
      this.out.float64BigEndian(value);
    } else if (value >= 0 && value < 0x100) {
      this.out.byte(Op.BININT1);
      this.out.byte(value);
    } else if (value >= 0 && value < 0x10000) {
      this.out.byte(Op.BININT2);
      this.out.uint16(value);
    } else if (value >= -0x8000_0000 && value < 0x8000_0000) {
      this.out.byte(Op.BININT);
      this.out.int32(value);
    } else {
      // Integral: written as a Python int with the double's exact value.
      this.bigint(BigInt(value));
    }
  }

  private bigint(value: bigint): void {
    if (value >= -0x8000_0000n && value < 0x8000_0000n) {
      this.number(Number(value));
      return;
    }
    const payload = longBytes(value);
    if (payload.length < 256) {
      this.out.byte(Op.LONG1);
      this.out.byte(payload.length);
    } else {
      this.out.byte(Op.LONG4);
      this.out.int32(payload.length);
    }
    this.out.bytes(payload);
  }

  private string(value: string): void {
    if (this.fromMemo(value)) return;
    const data = utf8.encode(value);
    if (data.length < 256) {
      this.out.byte(Op.SHORT_BINUNICODE);
      this.out.byte(data.length);
    } else if (data.length <= 0xffff_ffff) {
      this.out.byte(Op.BINUNICODE);
      this.out.uint32(data.length);
    } else {
      this.out.byte(Op.BINUNICODE8);
      this.out.uint64(data.length);
    }
    this.out.bytes(data);
    this.memoize(value);
  }

  private bytesValue(value: Uint8Array): void {
    if (this.fromMemo(value)) return;
    if (value.length < 256) {
      this.out.byte(Op.SHORT_BINBYTES);
      this.out.byte(value.length);
    } else {
      this.out.byte(Op.BINBYTES);
      this.out.uint32(value.length);
    }
    this.out.bytes(value);
    this.memoize(value);
  }

  private list(items: readonly PlainValue[]): void {
    if (this.fromMemo(items)) return;
    this.out.byte(Op.EMPTY_LIST);
    this.memoize(items);
    for (let start = 0; start < items.length; start += BATCH) {
      const end = Math.min(items.length, start + BATCH);
      if (end - start === 1) {
        this.value(items[start]);
        this.out.byte(Op.APPEND);
        continue;
      }
      this.out.byte(Op.MARK);
      for (let i = start; i < end; i++) this.value(items[i]);
      this.out.byte(Op.APPENDS);
    }
  }

  private dict(object: { readonly [key: string]: PlainValue | undefined }): void {
    if (this.fromMemo(object)) return;
    this.out.byte(Op.EMPTY_DICT);
    this.memoize(object);
    const keys = Object.keys(object).filter((k) => object[k] !== undefined);
    for (let start = 0; start < keys.length; start += BATCH) {
      const end = Math.min(keys.length, start + BATCH);
      this.out.byte(Op.MARK);
      for (let i = start; i < end; i++) {
        this.string(keys[i]);
        this.value(object[keys[i]]);
      }
      this.out.byte(Op.SETITEMS);
    }
  }
}

/** Pickle bytes (protocol 4) of a plain value. Keys whose value is `undefined` are left out. */
export function encodePickle(value: PlainValue): Uint8Array {
  return new Pickler().encode(value);
}
