/** Human-readable byte counts (binary units, as PyTorch and nvidia-smi users read them). */
const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];

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

/** A signed change, e.g. `+2.0 GiB` or `-512.0 MiB`. */
export function formatDelta(bytes: number, digits = 1): string {
  return bytes > 0 ? `+${formatBytes(bytes, digits)}` : formatBytes(bytes, digits);
}

export function formatPercent(part: number, whole: number): string {
  if (whole <= 0) return '0%';
  const p = (100 * part) / whole;
  return p >= 10 || p === 0 ? `${Math.round(p)}%` : `${p.toFixed(1)}%`;
}
