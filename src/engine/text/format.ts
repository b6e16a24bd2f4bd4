/**
 * How numbers are written, in one module: byte counts (binary units, as PyTorch and nvidia-smi users read
 * them; a file's size in decimal units, as file managers show it; an axis label's short form), counts,
 * signed changes, shares, and addresses. Every surface (CLI, extension, webviews, the engine's own
 * messages) writes its numbers through these, so the same number reads the same everywhere.
 */
const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
const GiB = 1024 ** 3;

export function formatBytes(bytes: number, digits = 1): string {
  const sign = bytes < 0 ? '-' : '';
  let value = Math.abs(bytes);
  let unit = 0;
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024;
    unit++;
  }
  if (unit === 0) return `${sign}${value} B`;
  return `${sign}${value.toFixed(digits)} ${UNITS[unit]}`;
}

/** Bytes to two decimals from a GiB on, where one would hide a difference (the allocator's self-check): 1.50 GiB, 20.0 MiB. */
export function formatBytesFine(bytes: number): string {
  return formatBytes(bytes, Math.abs(bytes) >= GiB ? 2 : 1);
}

/** A byte count in the largest binary unit it fills, without trailing zeros (an axis label): 768 MiB, 1.25 GiB, 0. */
export function formatAxisBytes(bytes: number): string {
  if (bytes === 0) return '0';
  const k = Math.max(0, Math.min(UNITS.length - 1, Math.floor(Math.log2(bytes) / 10)));
  return `${+(bytes / Math.pow(1024, k)).toFixed(2)} ${UNITS[k]}`;
}

/** A file's size in decimal units, as file managers show them: "2.3 GB", "512 bytes". */
export function formatFileSize(bytes: number): string {
  if (bytes >= 1e9) return `${(bytes / 1e9).toFixed(1)} GB`;
  if (bytes >= 1e6) return `${(bytes / 1e6).toFixed(1)} MB`;
  if (bytes >= 1e3) return `${(bytes / 1e3).toFixed(1)} kB`;
  return `${bytes} bytes`;
}

/** A signed change, e.g. `+2.0 GiB` or `-512.0 MiB`. */
export function formatDelta(bytes: number, digits = 1): string {
  return bytes > 0 ? `+${formatBytes(bytes, digits)}` : formatBytes(bytes, digits);
}

/** A count with thousands separators, to the nearest whole number: 400,000,000. */
export function formatCount(n: number): string {
  const whole = Math.round(n);
  // toLocaleString's first call starts ICU's number formatting (about 10 ms, a command's worth): the digits
  // are grouped here instead, as 'en-US' groups them; what that cannot write (NaN, infinities, -0, 1e21 and
  // up, where toString turns exponential) still goes to toLocaleString.
  if (!Number.isFinite(whole) || Object.is(whole, -0) || Math.abs(whole) >= 1e21) return whole.toLocaleString('en-US');
  const digits = Math.abs(whole).toString();
  let grouped = digits.slice(0, digits.length % 3 || 3);
  for (let i = grouped.length; i < digits.length; i += 3) grouped += `,${digits.slice(i, i + 3)}`;
  return whole < 0 ? `-${grouped}` : grouped;
}

/** A signed change of a count, with thousands separators as every count: +3, -2, 0, +8,410. */
export function formatSignedCount(n: number): string {
  return n > 0 ? `+${formatCount(n)}` : formatCount(n);
}

/** A device address: 0x7f3a00000000. */
export function formatHex(address: number): string {
  return `0x${address.toString(16)}`;
}

export function formatPercent(part: number, whole: number): string {
  if (whole <= 0) return '0%';
  const p = (100 * part) / whole;
  return p >= 10 || p === 0 ? `${Math.round(p)}%` : `${p.toFixed(1)}%`;
}

const PARSE_UNITS: Readonly<Record<string, number>> = {
  b: 1,
  k: 1024,
  kb: 1000,
  kib: 1024,
  m: 1024 ** 2,
  mb: 1000 ** 2,
  mib: 1024 ** 2,
  g: 1024 ** 3,
  gb: 1000 ** 3,
  gib: 1024 ** 3,
  t: 1024 ** 4,
  tb: 1000 ** 4,
  tib: 1024 ** 4,
};

/**
 * A GPU's memory as people write it: GPUs are sold in binary units under decimal names (a "12 GB"
 * card has 12 GiB), so `12 GB`, `12G` and `12 GiB` are all 12 x 2^30 bytes (`MB`, `TB` alike); a
 * plain number is bytes. Undefined for anything else.
 */
export function parseGpuMemory(text: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$/.exec(text);
  if (!m) return undefined;
  const unit = m[2].toLowerCase().replace(/^([kmgt])b$/, '$1ib');
  return parseBytes(`${m[1]}${unit}`);
}

/**
 * A byte count as people write it: `12GiB`, `12 GB` (10^9), `12G` (binary), `1.5GiB`, `4096`.
 * Undefined for anything else.
 */
export function parseBytes(text: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$/.exec(text);
  if (!m) return undefined;
  const unit = PARSE_UNITS[m[2].toLowerCase() || 'b'];
  if (unit === undefined) return undefined;
  const value = Math.round(Number(m[1]) * unit);
  return Number.isSafeInteger(value) ? value : undefined;
}
