/** Text decoders for the string opcodes; each returns null where Python would raise. */

/** Strings up to this many bytes are tried as ASCII in JavaScript before calling TextDecoder. */
const SHORT_STRING_BYTES = 48;
/** Code units handed to one `String.fromCharCode` call. */
const CHUNK_UNITS = 4096;

const utf8Decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Collects UTF-16 code units and turns them into a string a chunk at a time. */
class StringBuilder {
  private readonly units: number[] = [];
  private text = '';

  push(unit: number): void {
    this.units.push(unit);
    if (this.units.length >= CHUNK_UNITS) this.flush();
  }

  pushCodePoint(cp: number): void {
    if (cp < 0x10000) {
      this.push(cp);
    } else {
      this.push(0xd800 + ((cp - 0x10000) >> 10));
      this.push(0xdc00 + ((cp - 0x10000) & 0x3ff));
    }
  }

  finish(): string {
    this.flush();
    return this.text;
  }

  private flush(): void {
    this.text += String.fromCharCode(...this.units);
    this.units.length = 0;
  }
}

/** Decodes bytes as Latin-1 (each byte is one code point), as Python 2 `str` pickles are read. */
export function decodeLatin1(data: Uint8Array, start: number, end: number): string {
  let text = '';
  for (let i = start; i < end; i += CHUNK_UNITS) {
    text += String.fromCharCode(...data.subarray(i, Math.min(end, i + CHUNK_UNITS)));
  }
  return text;
}

/** Decodes UTF-8 like Python's `bytes.decode('utf-8', 'surrogatepass')`. */
export function decodeUtf8(data: Uint8Array, start: number, end: number): string | null {
  if (end - start <= SHORT_STRING_BYTES) {
    let text = '';
    for (let i = start; i < end; i++) {
      const c = data[i];
      if (c >= 0x80) return decodeUtf8General(data, start, end);
      text += String.fromCharCode(c);
    }
    return text;
  }
  return decodeUtf8General(data, start, end);
}

function decodeUtf8General(data: Uint8Array, start: number, end: number): string | null {
  try {
    return utf8Decoder.decode(data.subarray(start, end));
  } catch {
    // Strict UTF-8 failed; Python also accepts encoded lone surrogates.
    return decodeUtf8SurrogatePass(data, start, end);
  }
}

function isContinuation(byte: number): boolean {
  return (byte & 0xc0) === 0x80;
}

function decodeUtf8SurrogatePass(data: Uint8Array, start: number, end: number): string | null {
  const out = new StringBuilder();
  let i = start;
  while (i < end) {
    const b0 = data[i];
    let cp: number;
    if (b0 < 0x80) {
      cp = b0;
      i += 1;
    } else if (b0 >= 0xc2 && b0 < 0xe0) {
      if (i + 1 >= end || !isContinuation(data[i + 1])) return null;
      cp = ((b0 & 0x1f) << 6) | (data[i + 1] & 0x3f);
      i += 2;
    } else if (b0 >= 0xe0 && b0 < 0xf0) {
      if (i + 2 >= end || !isContinuation(data[i + 1]) || !isContinuation(data[i + 2])) return null;
      cp = ((b0 & 0x0f) << 12) | ((data[i + 1] & 0x3f) << 6) | (data[i + 2] & 0x3f);
      if (cp < 0x800) return null;
      i += 3;
    } else if (b0 >= 0xf0 && b0 < 0xf5) {
      if (i + 3 >= end || !isContinuation(data[i + 1]) || !isContinuation(data[i + 2]) || !isContinuation(data[i + 3])) {
        return null;
      }
      cp = ((b0 & 0x07) << 18) | ((data[i + 1] & 0x3f) << 12) | ((data[i + 2] & 0x3f) << 6) | (data[i + 3] & 0x3f);
      if (cp < 0x10000 || cp > 0x10ffff) return null;
      i += 4;
    } else {
      return null;
    }
    out.pushCodePoint(cp);
  }
  return out.finish();
}

function hexDigit(byte: number): number {
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30;
  const lower = byte | 0x20;
  if (lower >= 0x61 && lower <= 0x66) return lower - 0x61 + 10;
  return -1;
}

function isOctalDigit(byte: number): boolean {
  return byte >= 0x30 && byte <= 0x37;
}

const BACKSLASH = 0x5c;

/**
 * Decodes Python's `raw-unicode-escape` (protocol 0 UNICODE): bytes are Latin-1 except `\uXXXX`
 * and `\UXXXXXXXX`, which are escapes only after an odd run of backslashes.
 */
export function decodeRawUnicodeEscape(data: Uint8Array, start: number, end: number): string | null {
  const out = new StringBuilder();
  let i = start;
  while (i < end) {
    if (data[i] !== BACKSLASH) {
      out.push(data[i++]);
      continue;
    }
    let run = 0;
    while (i < end && data[i] === BACKSLASH) {
      i++;
      run++;
    }
    for (let k = 1; k < run; k++) out.push(BACKSLASH);
    if ((run & 1) === 0 || i >= end || (data[i] !== 0x75 && data[i] !== 0x55)) {
      out.push(BACKSLASH);
      continue;
    }
    const digits = data[i] === 0x75 ? 4 : 8;
    i++;
    if (end - i < digits) return null;
    let cp = 0;
    for (let k = 0; k < digits; k++) {
      const d = hexDigit(data[i + k]);
      if (d < 0) return null;
      cp = cp * 16 + d;
    }
    if (cp > 0x10ffff) return null;
    out.pushCodePoint(cp);
    i += digits;
  }
  return out.finish();
}

/** Escape letter -> byte, for the one-character escapes of `codecs.escape_decode`. */
const SIMPLE_ESCAPES: ReadonlyMap<number, number> = new Map([
  [0x5c, 0x5c], // \\
  [0x27, 0x27], // \'
  [0x22, 0x22], // \"
  [0x61, 0x07], // \a
  [0x62, 0x08], // \b
  [0x66, 0x0c], // \f
  [0x6e, 0x0a], // \n
  [0x72, 0x0d], // \r
  [0x74, 0x09], // \t
  [0x76, 0x0b], // \v
]);

/**
 * Decodes a protocol 0 STRING argument (a Python 2 `str` repr without its quotes) like
 * `codecs.escape_decode`, then reads the bytes as Latin-1.
 */
export function decodeEscapedString(data: Uint8Array, start: number, end: number): string | null {
  const out = new StringBuilder();
  let i = start;
  while (i < end) {
    const b = data[i++];
    if (b !== BACKSLASH) {
      out.push(b);
      continue;
    }
    if (i >= end) return null; // trailing backslash
    const e = data[i++];
    const simple = SIMPLE_ESCAPES.get(e);
    if (simple !== undefined) {
      out.push(simple);
    } else if (e === 0x0a) {
      // backslash-newline: a line continuation, dropped
    } else if (isOctalDigit(e)) {
      let value = e - 0x30;
      for (let k = 0; k < 2 && i < end && isOctalDigit(data[i]); k++) value = value * 8 + (data[i++] - 0x30);
      out.push(value & 0xff);
    } else if (e === 0x78) {
      const hi = i < end ? hexDigit(data[i]) : -1;
      const lo = i + 1 < end ? hexDigit(data[i + 1]) : -1;
      if (hi < 0 || lo < 0) return null;
      out.push(hi * 16 + lo);
      i += 2;
    } else {
      out.push(BACKSLASH);
      out.push(e);
    }
  }
  return out.finish();
}
