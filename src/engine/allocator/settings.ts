/**
 * The caching allocator's configuration: what `PYTORCH_CUDA_ALLOC_CONF` (or `PYTORCH_ALLOC_CONF`)
 * sets, read from a snapshot's `allocator_settings` or parsed from a configuration string the way
 * PyTorch's `AllocatorConfig::parseArgs` lexes it.
 */
import { LARGE_BUFFER, MiB, ROUNDUP_INTERVALS, floorLog2, isPowerOfTwo } from './sizes';

export interface AllocatorSettings {
  /** Blocks this large or larger are never split (`max_split_size_mb`); Infinity when unset. */
  readonly maxSplitSize: number;
  /** How much larger than an oversize request a cached block may be (`max_non_split_rounding_mb`, 20 MiB). */
  readonly maxNonSplitRoundingSize: number;
  /** Divisions per power-of-two interval, 1 MiB to 32 GiB and above (`roundup_power2_divisions`); 0 or 1: none. */
  readonly roundupPower2Divisions: readonly number[];
  /** Fraction of the allowed memory above which cached blocks are garbage collected (0: off). */
  readonly garbageCollectionThreshold: number;
  readonly expandableSegments: boolean;
  /** Segment size for large requests under 10 MiB, and the large pool's expandable page (20 MiB). */
  readonly largeSegmentSize: number;
  /** `per_process_memory_fraction` from the configuration string (PyTorch 2.10+), if set there. */
  readonly memoryFraction?: number;
}

export const DEFAULT_SETTINGS: AllocatorSettings = {
  maxSplitSize: Infinity,
  maxNonSplitRoundingSize: LARGE_BUFFER,
  roundupPower2Divisions: new Array<number>(ROUNDUP_INTERVALS).fill(0),
  garbageCollectionThreshold: 0,
  expandableSegments: false,
  largeSegmentSize: LARGE_BUFFER,
};

/** A configuration string PyTorch would refuse. */
export class AllocConfError extends Error {
  override readonly name = 'AllocConfError';
}

/** Options PyTorch accepts that do not change where blocks go (pinned memory, locking, backend, IPC). */
const IGNORED_KEYS = new Set([
  'backend',
  'release_lock_on_cudamalloc',
  'pinned_use_cuda_host_register',
  'pinned_num_register_threads',
  'pinned_use_background_threads',
  'pinned_reserve_segment_size_mb',
  'graph_capture_record_stream_reuse',
  'expandable_segments_handle_type',
]);

/** `lexArgs`: words and the single characters `,` `:` `[` `]`; spaces dropped. */
function lex(text: string): string[] {
  const out: string[] = [];
  let word = '';
  for (const ch of text) {
    if (ch === ',' || ch === ':' || ch === '[' || ch === ']') {
      if (word) out.push(word);
      word = '';
      out.push(ch);
    } else if (ch !== ' ') {
      word += ch;
    }
  }
  if (word) out.push(word);
  return out;
}

function wholeNumber(token: string | undefined, what: string): number {
  if (token === undefined || !/^\d+$/.test(token)) throw new AllocConfError(`${what} takes a whole number, not '${token ?? ''}'`);
  return Number(token);
}

/**
 * The settings `base` becomes with the options of `text` applied (`key:value,key:value`, as in
 * `PYTORCH_CUDA_ALLOC_CONF`). Keys not in `text` keep their value from `base`.
 */
export function applyAllocConf(base: AllocatorSettings, text: string): AllocatorSettings {
  const t = lex(text);
  const out: { -readonly [K in keyof AllocatorSettings]: AllocatorSettings[K] } = { ...base, roundupPower2Divisions: [...base.roundupPower2Divisions] };
  let i = 0;
  const expect = (c: string) => {
    if (t[i] !== c) throw new AllocConfError(`expected '${c}' after ${t[i - 1] ?? 'the start'}`);
    i++;
  };
  while (i < t.length) {
    const key = t[i++];
    expect(':');
    switch (key) {
      case 'max_split_size_mb': {
        const mb = wholeNumber(t[i++], key);
        if (mb < LARGE_BUFFER / MiB) throw new AllocConfError(`max_split_size_mb must be >= ${LARGE_BUFFER / MiB}`);
        out.maxSplitSize = mb * MiB;
        break;
      }
      case 'max_non_split_rounding_mb': {
        const mb = wholeNumber(t[i++], key);
        if (mb < LARGE_BUFFER / MiB) throw new AllocConfError(`max_non_split_rounding_mb must be >= ${LARGE_BUFFER / MiB}`);
        out.maxNonSplitRoundingSize = mb * MiB;
        break;
      }
      case 'garbage_collection_threshold': {
        const value = Number(t[i++]);
        if (!(value > 0 && value < 1)) throw new AllocConfError('garbage_collection_threshold must be in (0.0, 1.0)');
        out.garbageCollectionThreshold = value;
        break;
      }
      case 'per_process_memory_fraction': {
        const value = Number(t[i++]);
        if (!(value >= 0 && value <= 1)) throw new AllocConfError('per_process_memory_fraction must be in [0.0, 1.0]');
        out.memoryFraction = value;
        break;
      }
      case 'expandable_segments': {
        const value = t[i++];
        if (value !== 'True' && value !== 'False') throw new AllocConfError('expandable_segments takes True or False');
        out.expandableSegments = value === 'True';
        break;
      }
      case 'roundup_power2_divisions':
        i = parseDivisions(t, i, out.roundupPower2Divisions as number[]);
        break;
      default: {
        if (!IGNORED_KEYS.has(key)) throw new AllocConfError(`unrecognized allocator option: ${key}`);
        i++;
        break;
      }
    }
    if (i < t.length) expect(',');
  }
  return out;
}

/** `roundup_power2_divisions:N` or `[256:1,512:2,>:4]` (interval starts in MiB, powers of two). */
function parseDivisions(t: readonly string[], start: number, divisions: number[]): number {
  let i = start;
  if (t[i] !== '[') {
    const n = wholeNumber(t[i++], 'roundup_power2_divisions');
    if (!isPowerOfTwo(n)) throw new AllocConfError('roundup_power2_divisions must be a power of 2');
    divisions.fill(n);
    return i;
  }
  i++;
  let first = true;
  let last = 0;
  while (i < t.length && t[i] !== ']') {
    const interval = t[i++];
    if (t[i++] !== ':') throw new AllocConfError("expected ':' in roundup_power2_divisions");
    const value = wholeNumber(t[i++], 'roundup_power2_divisions');
    if (value !== 0 && !isPowerOfTwo(value)) throw new AllocConfError('roundup_power2_divisions values must be 0 or a power of 2');
    if (interval === '>') {
      divisions.fill(value, last + 1);
    } else {
      const mb = wholeNumber(interval, 'roundup_power2_divisions interval');
      if (!isPowerOfTwo(mb)) throw new AllocConfError('roundup_power2_divisions intervals must be powers of 2');
      const index = Math.min(floorLog2(mb), divisions.length - 1);
      if (first) divisions.fill(value, 0, index);
      first = false;
      divisions[index] = value;
      last = index;
    }
    if (t[i] === ',') i++;
  }
  if (t[i] !== ']') throw new AllocConfError("expected ']' to close roundup_power2_divisions");
  return i + 1;
}

function finite(value: unknown): number | undefined {
  if (typeof value === 'number' && Number.isFinite(value)) return value;
  if (typeof value === 'bigint') return Number(value);
  return undefined;
}

/**
 * The settings a snapshot was recorded with: its `allocator_settings` (PyTorch 2.3+), with the
 * options only the configuration string carries (`max_non_split_rounding_mb`, fractions) read
 * from `PYTORCH_CUDA_ALLOC_CONF`. Older snapshots say nothing: the defaults, with expandable
 * segments on when a segment says it is expandable.
 */
export function recordedSettings(raw: Readonly<Record<string, unknown>> | undefined, anyExpandableSegment: boolean): AllocatorSettings {
  if (raw === undefined) return { ...DEFAULT_SETTINGS, expandableSegments: anyExpandableSegment };
  let settings: AllocatorSettings = DEFAULT_SETTINGS;
  const conf = raw.PYTORCH_CUDA_ALLOC_CONF;
  if (typeof conf === 'string' && conf.trim() !== '') {
    try {
      settings = applyAllocConf(settings, conf);
    } catch {
      // The fields below are what the allocator used; the string is only a source of extras.
    }
  }
  const maxSplit = finite(raw.max_split_size);
  const gc = finite(raw.garbage_collection_threshold);
  const divisions = raw.roundup_power2_divisions;
  const readDivisions = (): number[] | undefined => {
    if (Array.isArray(divisions)) return divisions.map((d) => finite(d) ?? 0);
    if (typeof divisions === 'object' && divisions !== null) {
      const out = new Array<number>(ROUNDUP_INTERVALS).fill(0);
      for (const [key, value] of Object.entries(divisions)) {
        const mb = Number(key);
        if (!isPowerOfTwo(mb)) continue;
        out[Math.min(floorLog2(mb), ROUNDUP_INTERVALS - 1)] = finite(value) ?? 0;
      }
      return out;
    }
    const single = finite(divisions);
    return single === undefined ? undefined : new Array<number>(ROUNDUP_INTERVALS).fill(single);
  };
  return {
    ...settings,
    maxSplitSize: maxSplit === undefined || maxSplit < 0 || maxSplit >= 2 ** 53 ? settings.maxSplitSize : maxSplit,
    garbageCollectionThreshold: gc ?? settings.garbageCollectionThreshold,
    expandableSegments: typeof raw.expandable_segments === 'boolean' ? raw.expandable_segments : settings.expandableSegments || anyExpandableSegment,
    roundupPower2Divisions: readDivisions() ?? settings.roundupPower2Divisions,
  };
}

/** The settings as a configuration string (only what differs from the defaults; '' for none). */
export function describeSettings(s: AllocatorSettings): string {
  const parts: string[] = [];
  if (s.expandableSegments) parts.push('expandable_segments:True');
  if (Number.isFinite(s.maxSplitSize)) parts.push(`max_split_size_mb:${Math.floor(s.maxSplitSize / MiB)}`);
  if (s.maxNonSplitRoundingSize !== LARGE_BUFFER) parts.push(`max_non_split_rounding_mb:${Math.floor(s.maxNonSplitRoundingSize / MiB)}`);
  if (s.garbageCollectionThreshold > 0) parts.push(`garbage_collection_threshold:${s.garbageCollectionThreshold}`);
  const d = s.roundupPower2Divisions;
  if (d.some((x) => x > 1)) {
    parts.push(d.every((x) => x === d[0]) ? `roundup_power2_divisions:${d[0]}` : `roundup_power2_divisions:[${d.map((x, k) => `${2 ** k}:${x}`).join(',')}]`);
  }
  if (s.memoryFraction !== undefined) parts.push(`per_process_memory_fraction:${s.memoryFraction}`);
  return parts.join(',');
}
