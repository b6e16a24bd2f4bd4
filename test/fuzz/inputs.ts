/**
 * Fuzz inputs, each a pure function of (run seed, index) so any failure is replayed from the two
 * numbers printed with it: byte mutations of seed files (small synthetic snapshots and real corpus
 * snapshots cut down to a few hundred trace entries), and generated snapshots whose fields hold
 * hostile values (NaN, negative and huge numbers, command links, control characters, shared long
 * strings, deep and odd shapes) that get past the decoder and reach the model and the analysis, and
 * snapshots that share one object many times through the memo (`amplification.ts`).
 */
import { readFileSync } from 'node:fs';
import { decodePickle } from '../../src/engine/pickle/decoder';
import { encodePickle, type PlainValue } from '../../src/engine/pickle/encoder';
import { corpusFiles } from '../helpers/corpus';
import { sharedShape } from './amplification';
import { SHAPES, shaped } from '../helpers/snapshotShapes';

/** xorshift32: small, fast, reproducible. */
export class Random {
  private state: number;
  constructor(seed: number) {
    this.state = seed >>> 0 || 0x9e3779b9;
  }
  next(): number {
    let x = this.state;
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    this.state = x >>> 0;
    return this.state;
  }
  below(n: number): number {
    return this.next() % n;
  }
  pick<T>(items: readonly T[]): T {
    return items[this.below(items.length)];
  }
  chance(p: number): boolean {
    return this.next() / 2 ** 32 < p;
  }
}

export function inputSeed(runSeed: number, index: number): number {
  return (Math.imul(runSeed ^ 0x85ebca6b, 0xc2b2ae35) + Math.imul(index + 1, 0x27d4eb2f)) >>> 0;
}

/** Longest seed kept: mutants stay small so tens of thousands run in minutes. */
const MAX_SEED_BYTES = 64_000;
const TRACE_ENTRIES_KEPT = 150;
const SEGMENTS_KEPT = 4;

/** Synthetic seeds: every layout PyTorch writes, with traces, frames and shared strings. */
function syntheticSeeds(): Uint8Array[] {
  const frames = [
    { filename: '/work/train.py', line: 12, name: 'step' },
    { filename: '/usr/lib/python3/site-packages/torch/nn/modules/module.py', line: 1500, name: '_call_impl' },
  ];
  const trace = Array.from({ length: 60 }, (_, i) => ({
    action: ['alloc', 'free_requested', 'free_completed', 'segment_alloc', 'oom', 'snapshot'][i % 6],
    addr: 4096 * (i % 7),
    size: 512 * (1 + (i % 5)),
    stream: 0,
    time_us: 1_000_000 + i,
    frames: i % 3 === 0 ? [] : frames,
    ...(i % 6 === 4 ? { device_free: 1024 } : {}),
  }));
  const segment = {
    device: 0,
    address: 0,
    total_size: 2 << 20,
    allocated_size: 1024,
    active_size: 1024,
    requested_size: 1000,
    stream: 0,
    segment_type: 'large',
    frames,
    blocks: [
      { size: 1024, requested_size: 1000, state: 'active_allocated', address: 0, frames },
      { size: (2 << 20) - 1024, state: 'inactive', address: 1024, frames: [] },
    ],
  };
  return [
    encodePickle({ segments: [segment], device_traces: [trace], allocator_settings: { expandable_segments: false } }),
    encodePickle([segment]),
    encodePickle({ segments: [{ ...segment, blocks: [{ size: 1024, state: 'active_allocated', history: [{ addr: 0, real_size: 1000, frames }] }] }] }),
    encodePickle({ segments: [segment, { ...segment, device: 1, address: 1 << 30 }], device_traces: [trace, trace.slice(0, 10)] }),
  ];
}

function plain(value: unknown): PlainValue {
  if (value === null || typeof value === 'boolean' || typeof value === 'number' || typeof value === 'bigint' || typeof value === 'string') return value;
  if (value instanceof Uint8Array) return value;
  if (Array.isArray(value)) return value.map(plain);
  if (typeof value === 'object') {
    const out: Record<string, PlainValue> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[k] = plain(v);
    return out;
  }
  return null;
}

function fewerBlocks(segment: unknown): unknown {
  if (typeof segment !== 'object' || segment === null || Array.isArray(segment)) return segment;
  const s = segment as Record<string, unknown>;
  return Array.isArray(s.blocks) ? { ...s, frames: shorterStack(s).frames, blocks: s.blocks.slice(0, 12).map(shorterStack) } : s;
}

/** An entry or block with its stack cut to its innermost frames (real stacks run to a hundred frames). */
function shorterStack(item: unknown): { frames?: unknown } {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) return item as { frames?: unknown };
  const i = item as Record<string, unknown>;
  return Array.isArray(i.frames) ? { ...i, frames: i.frames.slice(0, 12) } : i;
}

/** A corpus file cut down to its first segments and trace entries, keeping its real structure. */
function cutDown(bytes: Uint8Array): Uint8Array | undefined {
  if (bytes.length <= MAX_SEED_BYTES) return bytes;
  try {
    const root = decodePickle(bytes) as unknown;
    let value: unknown;
    if (Array.isArray(root)) value = root.slice(0, SEGMENTS_KEPT).map(fewerBlocks);
    else if (typeof root === 'object' && root !== null) {
      const dict = root as Record<string, unknown>;
      value = {
        ...dict,
        segments: Array.isArray(dict.segments) ? dict.segments.slice(0, SEGMENTS_KEPT).map(fewerBlocks) : dict.segments,
        device_traces: Array.isArray(dict.device_traces)
          ? dict.device_traces.map((t: unknown) => (Array.isArray(t) ? t.slice(0, TRACE_ENTRIES_KEPT).map(shorterStack) : t))
          : dict.device_traces,
      };
    } else return undefined;
    const out = encodePickle(plain(value));
    return out.length <= MAX_SEED_BYTES * 2 ? out : undefined;
  } catch {
    return undefined;
  }
}

/** Trace-rich corpus files whose events are also seeded in every shape PyTorch's readers must take. */
const SHAPED_FILES = ['wedsonlin-cs336-medium-512-training.pickle', 'constructor-sun-expandable-oom-4dev.pickle'];

/**
 * Synthetic seeds plus the corpus (cut down), trace-rich files included, and two trace-rich files in
 * each shape of `snapshotShapes` (high addresses, keys in another order, frames lists or frame dicts of
 * their own): every mutant of them is read by the fast path and by the general machine, which must agree
 * (`checkFastPath`). Names for messages.
 */
export function loadSeeds(): { name: string; bytes: Uint8Array }[] {
  const seeds = syntheticSeeds().map((bytes, i) => ({ name: `synthetic-${i}`, bytes }));
  for (const file of corpusFiles()) {
    const name = file.split('/').pop()!;
    const bytes = cutDown(readFileSync(file));
    if (bytes !== undefined) seeds.push({ name, bytes });
    if (!SHAPED_FILES.includes(name)) continue;
    const root = decodePickle(readFileSync(file));
    for (const shape of SHAPES) seeds.push({ name: `${name} (${shape})`, bytes: encodePickle(shaped(root, shape, TRACE_ENTRIES_KEPT)) });
  }
  return seeds;
}

const HOSTILE_NUMBERS: readonly PlainValue[] = [NaN, Infinity, -Infinity, -1, -0.5, 3.7, 0, 2 ** 53, 2 ** 64, -(2n ** 70n), 2n ** 64n - 1n, true, false, null, '12', 1e308];
const HOSTILE_TEXT: readonly string[] = [
  '[Show details](command:workbench.action.terminal.sendSequence?%7B%22text%22%3A%22echo%20owned%5Cn%22%7D)',
  '\u001b]8;;http://x\u0007link\u001b]8;;\u0007',
  '\u009b2J\u202egnp.niart',
  '',
  '/work/../../etc/passwd',
  'C:\\Users\\x\\train.py',
  '<img src=x onerror=alert(1)>',
  '__proto__',
  'constructor',
];

/** A generated snapshot with hostile values in random fields. */
function generated(r: Random): Uint8Array {
  // Most generated snapshots are valid (they reach the analysis, advice and timeline); some carry a few hostile values.
  const hostility = r.pick([0, 0, 0, 0.001, 0.01, 0.1]);
  const long = r.chance(0.1) ? 'L'.repeat(1 + r.below(65_536)) : undefined;
  const text = (): PlainValue => (long !== undefined && r.chance(0.3) ? long : r.chance(0.5) ? r.pick(HOSTILE_TEXT) : `/work/f${r.below(5)}.py`);
  const num = (good: () => number): PlainValue => (r.chance(hostility) ? r.pick(HOSTILE_NUMBERS) : good());
  const frame = (): PlainValue => ({ filename: text(), line: num(() => r.below(400)), name: text() });
  const shared = Array.from({ length: 1 + r.below(4) }, () => Array.from({ length: r.below(6) }, frame));
  const frames = (): PlainValue => (r.chance(hostility) ? r.pick(HOSTILE_NUMBERS) : r.pick(shared));
  const actions = r.chance(hostility) ? ['workspace_snapshot', text() as string] : ['alloc', 'free_requested', 'free_completed', 'segment_alloc', 'segment_free', 'segment_map', 'segment_unmap', 'oom', 'snapshot'];
  const devices = 1 + r.below(3);
  const traces = Array.from({ length: devices }, () =>
    Array.from({ length: r.below(150) }, () => {
      const entry: Record<string, PlainValue> = {
        action: r.pick(actions),
        addr: num(() => 512 * r.below(64)),
        size: num(() => 512 * (1 + r.below(16))),
        stream: num(() => r.below(3)),
        time_us: num(() => 1_000_000 + r.below(100_000)),
        frames: frames(),
      };
      if (r.chance(0.05)) entry.device_free = num(() => r.below(1 << 20));
      if (r.chance(0.05)) entry.user_metadata = text();
      if (r.chance(0.05)) entry.compile_context = text();
      if (r.chance(hostility)) delete entry[r.pick(Object.keys(entry))];
      return entry;
    }),
  );
  const segments = Array.from({ length: r.below(5) }, () => {
    const blocks = Array.from({ length: r.below(6) }, () => ({
      size: num(() => 512 * (1 + r.below(16))),
      requested_size: num(() => 500 * (1 + r.below(16))),
      state: r.pick(['active_allocated', 'active_pending_free', 'inactive', r.chance(hostility) ? (text() as string) : 'inactive']),
      frames: frames(),
      ...(r.chance(0.5) ? { address: num(() => 512 * r.below(64)) } : {}),
    }));
    return {
      device: num(() => r.below(devices)),
      address: num(() => (1 << 20) * r.below(8)),
      total_size: num(() => 1 << 20),
      stream: num(() => 0),
      segment_type: r.pick(['large', 'small']),
      frames: frames(),
      blocks,
    };
  });
  const root: Record<string, PlainValue> = { segments, device_traces: traces };
  if (r.chance(0.1)) root.external_annotations = [{ stage: text(), name: text(), device: num(() => 0), time_us: num(() => 1_000_000) }];
  if (r.chance(0.1)) root.vram_lens = { device_memory: { source: text(), time_us: [num(() => 1), num(() => 2)], bytes: [num(() => 1), num(() => 2)] } };
  if (r.chance(0.05)) delete root[r.pick(['segments', 'device_traces'])];
  if (r.chance(0.05)) root[text() as string] = 1;
  return encodePickle(r.chance(0.05) ? segments : root);
}

/**
 * Opcodes put at a trace entry's first byte by `mutated`: they open, close, split and pop the batches the
 * decoder's fast path keeps books on (MARK, APPENDS, APPEND, POP, POP_MARK, SETITEMS, a new list or dict,
 * MEMOIZE, BINGET), alone or two at once (APPENDS then MARK splits a batch in two, as a valid pickle may).
 */
const STRUCTURAL: readonly (readonly number[])[] = [[0x28], [0x65], [0x61], [0x30], [0x31], [0x75], [0x5d, 0x94], [0x7d], [0x94], [0x65, 0x28], [0x28, 0x65], [0x28, 0x28], [0x65, 0x65]];

/** Where trace entries begin in `bytes` (EMPTY_DICT, MEMOIZE, MARK), at most `limit` of them. */
function entryStarts(bytes: Uint8Array, limit = 4096): number[] {
  const starts: number[] = [];
  for (let p = bytes.indexOf(0x7d); p >= 0 && p + 2 < bytes.length && starts.length < limit; p = bytes.indexOf(0x7d, p + 1)) {
    if (bytes[p + 1] === 0x94 && bytes[p + 2] === 0x28) starts.push(p);
  }
  return starts;
}

/** `bytes` with `inserted` put at `at`. */
function insertAt(bytes: Uint8Array, at: number, inserted: readonly number[] | Uint8Array): Uint8Array {
  const out = new Uint8Array(bytes.length + inserted.length);
  out.set(bytes.subarray(0, at));
  out.set(inserted, at);
  out.set(bytes.subarray(at), at + inserted.length);
  return out;
}

/** `bytes` without those from `from` to `to` (excluded). */
function without(bytes: Uint8Array, from: number, to: number): Uint8Array {
  const out = new Uint8Array(bytes.length - (to - from));
  out.set(bytes.subarray(0, from));
  out.set(bytes.subarray(to), from);
  return out;
}

/**
 * Mutations of a seed: byte flips, overwrites with interesting bytes, cuts, splices and repeats, and
 * structural ones at a trace entry's first byte (an opcode of `STRUCTURAL` put there, a BINGET of a
 * random key, or the whole entry up to the next one dropped or repeated).
 */
function mutated(r: Random, seed: Uint8Array): Uint8Array {
  // A copy (a Buffer's slice would be a view, and the mutations below would change the seed).
  let bytes: Uint8Array = new Uint8Array(seed);
  const rounds = 1 + r.below(6);
  const interesting = [0x00, 0xff, 0x7f, 0x80, 0x28, 0x29, 0x5b, 0x5d, 0x1b, 0x9b, 0x8b, 0x8a, 0x4a, 0x47, 0x2e, 0x7d, 0x5d, 0x94, 0x68, 0x71];
  for (let k = 0; k < rounds; k++) {
    if (bytes.length === 0) break;
    const at = r.below(bytes.length);
    if (r.chance(0.25)) {
      const starts = entryStarts(bytes);
      if (starts.length === 0) continue;
      const e = r.below(starts.length);
      const from = starts[e];
      const to = e + 1 < starts.length ? starts[e + 1] : Math.min(bytes.length, from + 1 + r.below(64));
      switch (r.below(4)) {
        case 0:
          bytes = insertAt(bytes, from, [0x68, r.below(256)]);
          break;
        case 1:
          bytes = without(bytes, from, to);
          break;
        case 2:
          bytes = insertAt(bytes, from, bytes.slice(from, to));
          break;
        default:
          bytes = insertAt(bytes, from, r.pick(STRUCTURAL));
      }
      continue;
    }
    switch (r.below(6)) {
      case 0:
        bytes[at] ^= 1 << r.below(8);
        break;
      case 1:
        bytes[at] = r.pick(interesting);
        break;
      case 2:
        bytes = bytes.subarray(0, at);
        break;
      case 3: {
        const len = Math.min(bytes.length - at, 1 + r.below(64));
        bytes = insertAt(bytes, r.below(bytes.length), bytes.slice(at, at + len));
        break;
      }
      case 4: {
        const n = Math.min(4, bytes.length - at);
        for (let i = 0; i < n; i++) bytes[at + i] = r.below(256);
        break;
      }
      default: {
        bytes = without(bytes, at, at + Math.min(bytes.length - at, 1 + r.below(256)));
      }
    }
  }
  return bytes;
}

/** Input `index` of run `runSeed`. */
export function fuzzInput(seeds: readonly { bytes: Uint8Array }[], runSeed: number, index: number): Uint8Array {
  const r = new Random(inputSeed(runSeed, index));
  const kind = r.below(20);
  if (kind < 8) return generated(r);
  if (kind < 10) return mutated(r, generated(r));
  if (kind < 11) return sharedShape(r);
  return mutated(r, r.pick(seeds).bytes);
}
