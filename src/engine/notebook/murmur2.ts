/**
 * The hash ipykernel (6 and later) names a cell's code by: MurmurHash2, x86 32-bit, of the cell's text
 * as UTF-8, seed 0xC70F6907, written in decimal (`ipykernel/compiler.py`: `murmur2_x86`,
 * `get_tmp_hash_seed`, `get_file_name`). The kernel's `debugInfo` reply advertises the same method and
 * seed (`hashMethod: "Murmur2"`, `hashSeed`), so a frontend can compute the file name of any cell.
 */

/** ipykernel's seed (`get_tmp_hash_seed`). */
export const IPYKERNEL_HASH_SEED = 0xc70f6907;

const M = 0x5bd1e995;

/** MurmurHash2 (x86, 32-bit) of `data` with `seed`, as an unsigned 32-bit integer. */
export function murmur2x86(data: Uint8Array, seed: number): number {
  const length = data.length;
  let h = (seed ^ length) >>> 0;
  const roundedEnd = length & ~3;
  for (let i = 0; i < roundedEnd; i += 4) {
    let k = data[i] | (data[i + 1] << 8) | (data[i + 2] << 16) | (data[i + 3] << 24);
    k = Math.imul(k, M);
    k ^= k >>> 24;
    k = Math.imul(k, M);
    h = Math.imul(h, M) ^ k;
  }
  const tail = length & 3;
  if (tail > 0) {
    let k = 0;
    if (tail === 3) k ^= data[roundedEnd + 2] << 16;
    if (tail >= 2) k ^= data[roundedEnd + 1] << 8;
    k ^= data[roundedEnd];
    h = Math.imul(h ^ k, M);
  }
  h ^= h >>> 13;
  h = Math.imul(h, M);
  h ^= h >>> 15;
  return h >>> 0;
}

const utf8 = new TextEncoder();

/** The number ipykernel names a cell's code file by (`<tmp>/ipykernel_<pid>/<this>.py`). */
export function ipykernelCellHash(source: string): number {
  return murmur2x86(utf8.encode(source), IPYKERNEL_HASH_SEED);
}
