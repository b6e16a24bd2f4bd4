/**
 * Places a predicted run in the chosen GPU's memory: replays PyTorch's caching allocator
 * (`engine/allocator/cachingAllocator.ts`, the model that puts 100% of allocations at PyTorch's own
 * addresses on the corpus's recordings) over the bootstrap's provisional snapshot, and writes the snapshot
 * that GPU would record: every allocation and free at the address the allocator chose, the segment events
 * (cudaMalloc, cudaFree, page maps of expandable segments) where they happen, the segments as they are at
 * the end, and PyTorch's `allocator_settings`. An allocation the GPU cannot hold ends the trace with an
 * `oom` entry, as the program would have died there.
 *
 * The input is the decoded pickle (plain values), so that every key the bootstrap wrote passes through; the
 * output is plain values for the pickle encoder. Events before the trace (`vram_lens.predicted.history`:
 * `address, size` for an allocation, `address, -1` for a free, `0, -2` for `empty_cache()`) are replayed
 * first, without being written, so that the allocator holds what it held when the trace begins.
 */
import type { PlainValue } from '../pickle/encoder';
import type { Block } from '../allocator/blocks';
import { BEFORE_TRACE } from '../allocator/blocks';
import type { SegmentEventKind } from '../allocator/cachingAllocator';
import { CachingAllocator } from '../allocator/cachingAllocator';
import { ExpandableSegment } from '../allocator/segments';
import type { AllocatorSettings } from '../allocator/settings';
import { recordedSettings } from '../allocator/settings';
import { ROUNDUP_INTERVALS } from '../allocator/sizes';
import type { PredictionPlacement } from '../snapshot/model';
import type { CapacityDevice } from '../allocator/devices';
import { predictedDevice } from './predictedDevice';

type Dict = { [key: string]: PlainValue | undefined };

const HISTORY_FREE = -1;
const HISTORY_EMPTY_CACHE = -2;

/** A file that is not a provisional prediction (or is damaged): says what is wrong. */
export class PredictionFormatError extends Error {
  override readonly name = 'PredictionFormatError';
}

export interface PlacedPrediction {
  /** The snapshot dict to write (PyTorch's format, `vram_lens.predicted.placed` true). */
  readonly root: Dict;
  readonly placement: PredictionPlacement;
  readonly settings: AllocatorSettings;
}

const isDict = (v: unknown): v is Dict => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

interface SegmentEvent {
  readonly kind: SegmentEventKind;
  readonly ptr: number;
  readonly size: number;
}

const SEGMENT_ACTION: Record<SegmentEventKind, string> = { alloc: 'segment_alloc', free: 'segment_free', map: 'segment_map', unmap: 'segment_unmap' };

/** One replay of the run under a memory limit. */
class Replay {
  readonly allocator: CachingAllocator;
  readonly device: CapacityDevice;
  /** Provisional address -> the block the allocator gave it. */
  readonly blocks = new Map<number, Block>();
  /** Block -> its provisional address (to find its frames at the end). */
  readonly provisional = new Map<Block, number>();
  pending: SegmentEvent[] = [];
  peakReserved = 0;
  oom: { requestedBytes: number; reservedBytes: number; event: number } | undefined;

  constructor(settings: AllocatorSettings, capacity: number, totalMemory: number, allowedMaximum: number | undefined) {
    this.device = predictedDevice(capacity);
    this.allocator = new CachingAllocator(this.device, { settings, totalMemory, ...(allowedMaximum !== undefined ? { allowedMaximum } : {}) });
    this.allocator.onSegment = (_at, kind, ptr, size) => this.pending.push({ kind, ptr, size });
  }

  alloc(address: number, size: number, stream: number, event: number): Block | undefined {
    this.allocator.event = event;
    const block = this.allocator.malloc(size, stream);
    if (block === undefined) {
      this.oom = { requestedBytes: size, reservedBytes: this.allocator.reserved, event };
      return undefined;
    }
    block.allocEvent = event;
    this.blocks.set(address, block);
    this.provisional.set(block, address);
    if (this.allocator.reserved > this.peakReserved) this.peakReserved = this.allocator.reserved;
    return block;
  }

  /** Frees the block of a provisional address; its device address (read before freeing: a merge moves it). */
  free(address: number): number | undefined {
    const block = this.blocks.get(address);
    if (block === undefined) return undefined;
    const ptr = block.ptr;
    this.blocks.delete(address);
    this.provisional.delete(block);
    this.allocator.free(block);
    return ptr;
  }

  emptyCache(): void {
    this.allocator.emptyCache();
  }

  takeSegmentEvents(): SegmentEvent[] {
    const events = this.pending;
    this.pending = [];
    return events;
  }

  /** The history: what happened before the trace. False when an allocation there did not fit. */
  replayHistory(history: readonly unknown[]): boolean {
    for (let i = 0; i + 1 < history.length; i += 2) {
      const address = num(history[i]);
      const code = num(history[i + 1]);
      if (address === undefined || code === undefined) throw new PredictionFormatError(`vram_lens.predicted.history holds a value that is not a number at ${i}`);
      if (code === HISTORY_EMPTY_CACHE) this.emptyCache();
      else if (code === HISTORY_FREE) this.free(address);
      else if (code >= 0 && this.alloc(address, code, 0, BEFORE_TRACE) === undefined) return false;
      this.pending = [];
    }
    return true;
  }
}

/**
 * The provisional snapshot `root` placed on its GPU (`vram_lens.predicted.gpu.memory` bytes, or `capacity`).
 * Throws PredictionFormatError for a file that is not a provisional prediction.
 */
export function placePrediction(root: unknown, capacity?: number): PlacedPrediction {
  if (!isDict(root) || !isDict(root.vram_lens) || !isDict(root.vram_lens.predicted)) throw new PredictionFormatError('the file is not a predicted snapshot (no vram_lens.predicted)');
  const predicted = root.vram_lens.predicted;
  if (predicted.placed === true) throw new PredictionFormatError('the prediction is placed already');
  const gpu = isDict(predicted.gpu) ? predicted.gpu : {};
  const memory = num(gpu.memory);
  if (memory === undefined || memory <= 0) throw new PredictionFormatError("vram_lens.predicted.gpu.memory is not the GPU's memory in bytes");
  const traces: readonly PlainValue[] = Array.isArray(root.device_traces) ? (root.device_traces as readonly PlainValue[]) : [];
  const trace = Array.isArray(traces[0]) ? (traces[0] as readonly PlainValue[]) : [];
  const history = Array.isArray(predicted.history) ? predicted.history : [];
  const settings = recordedSettings(isDict(root.allocator_settings) ? root.allocator_settings : undefined, false);
  const fraction = num(predicted.memoryFraction) ?? settings.memoryFraction;
  const limit = capacity ?? memory;
  const allowed = fraction !== undefined ? Math.floor(fraction * memory) : undefined;

  const replay = new Replay(settings, limit, memory, allowed);
  const entries: Dict[] = [];
  if (!replay.replayHistory(history)) {
    const o = replay.oom!;
    entries.push({ action: 'oom', device_free: Math.max(0, limit - replay.device.used), size: o.requestedBytes, stream: 0, time_us: firstTime(trace), frames: [] });
    replay.oom = { ...o, event: -1 };
  } else {
    placeTrace(replay, trace, limit, entries);
  }
  const fits = replay.oom === undefined;
  const needed = fits ? replay.peakReserved : neededReserved(settings, memory, allowed, history, trace);
  const placement: PredictionPlacement = {
    fits,
    peakReservedBytes: replay.peakReserved,
    neededReservedBytes: needed,
    ...(replay.oom ? { oom: replay.oom } : {}),
  };
  const frames = provisionalFrames(root.segments);
  const placedPredicted: Dict = { ...predicted, placed: true, placement: placementDict(placement) };
  delete placedPredicted.history;
  const out: Dict = {
    ...root,
    segments: segmentsOf(replay, frames),
    device_traces: [entries, ...traces.slice(1)],
    allocator_settings: settingsDict(settings, root.allocator_settings),
    vram_lens: { ...root.vram_lens, predicted: placedPredicted },
  };
  return { root: out, placement, settings };
}

function firstTime(trace: readonly PlainValue[]): number {
  const first = trace.find(isDict);
  return num(first?.time_us) ?? 0;
}

/** The trace with real addresses and the segment events; stops at an allocation the GPU cannot hold. */
function placeTrace(replay: Replay, trace: readonly PlainValue[], limit: number, out: Dict[]): void {
  for (let k = 0; k < trace.length; k++) {
    const entry = trace[k];
    if (!isDict(entry)) continue;
    const address = num(entry.addr) ?? 0;
    const size = num(entry.size) ?? 0;
    const stream = num(entry.stream) ?? 0;
    switch (entry.action) {
      case 'alloc': {
        const block = replay.alloc(address, size, stream, out.length);
        pushSegmentEvents(replay, entry, out);
        if (block === undefined) {
          const { frames, time_us } = entry;
          out.push({ action: 'oom', device_free: Math.max(0, limit - replay.device.used), size, stream, time_us, frames });
          replay.oom = { ...replay.oom!, event: out.length - 1 };
          return;
        }
        out.push({ ...entry, addr: block.ptr });
        break;
      }
      case 'free_requested': {
        const block = replay.blocks.get(address);
        if (block !== undefined) out.push({ ...entry, addr: block.ptr });
        break;
      }
      case 'free_completed': {
        const ptr = replay.free(address);
        if (ptr !== undefined) out.push({ ...entry, addr: ptr });
        pushSegmentEvents(replay, entry, out);
        break;
      }
      case 'empty_cache':
        replay.emptyCache();
        pushSegmentEvents(replay, entry, out);
        break;
      default:
        out.push(entry);
    }
  }
}

function pushSegmentEvents(replay: Replay, cause: Dict, out: Dict[]): void {
  for (const e of replay.takeSegmentEvents()) {
    out.push({ action: SEGMENT_ACTION[e.kind], addr: e.ptr, size: e.size, stream: num(cause.stream) ?? 0, time_us: cause.time_us, frames: cause.frames ?? [] });
  }
}

/** Peak reserved with no memory limit: what the run needs (computed only when it does not fit). */
function neededReserved(settings: AllocatorSettings, memory: number, allowed: number | undefined, history: readonly unknown[], trace: readonly PlainValue[]): number {
  const replay = new Replay(settings, Infinity, memory, allowed !== undefined ? Infinity : undefined);
  replay.replayHistory(history);
  placeTrace(replay, trace, Infinity, []);
  return replay.peakReserved;
}

/** Provisional address -> the frames of the block live at the end (the bootstrap's provisional segments). */
function provisionalFrames(segments: unknown): Map<number, PlainValue> {
  const frames = new Map<number, PlainValue>();
  if (!Array.isArray(segments)) return frames;
  for (const s of segments) {
    if (!isDict(s) || !Array.isArray(s.blocks)) continue;
    for (const b of s.blocks) {
      const address = isDict(b) ? num(b.address) : undefined;
      if (address !== undefined && isDict(b)) frames.set(address, b.frames ?? []);
    }
  }
  return frames;
}

/**
 * The segments as `torch.cuda.memory._snapshot()` lists them: every cudaMalloc'd segment with its blocks in
 * address order, and each mapped run of an expandable segment as a segment of its own.
 */
function segmentsOf(replay: Replay, frames: Map<number, PlainValue>): Dict[] {
  const out: Dict[] = [];
  const owners = [...replay.allocator.segments];
  for (const owner of owners) {
    let run: Block[] = [];
    const flush = (): void => {
      if (run.length > 0) out.push(segmentDict(run, owner.expandable, owner.small, owner.stream, replay, frames));
      run = [];
    };
    for (let b: Block | undefined = owner.head; b; b = b.next) {
      if (owner instanceof ExpandableSegment && !b.mapped) flush();
      else run.push(b);
    }
    flush();
  }
  return out.sort((a, b) => (a.address as number) - (b.address as number));
}

function segmentDict(blocks: Block[], expandable: boolean, small: boolean, stream: number, replay: Replay, frames: Map<number, PlainValue>): Dict {
  let total = 0;
  let allocated = 0;
  let active = 0;
  let requested = 0;
  const out: Dict[] = [];
  for (const b of blocks) {
    total += b.size;
    if (b.allocated) {
      allocated += b.size;
      active += b.size;
      requested += b.requestedSize;
      const address = replay.provisional.get(b);
      out.push({ address: b.ptr, size: b.size, requested_size: b.requestedSize, state: 'active_allocated', frames: address !== undefined ? (frames.get(address) ?? []) : [] });
    } else {
      out.push({ address: b.ptr, size: b.size, requested_size: 0, state: 'inactive', frames: [] });
    }
  }
  return {
    device: 0,
    address: blocks[0].ptr,
    total_size: total,
    allocated_size: allocated,
    active_size: active,
    requested_size: requested,
    stream,
    segment_type: small ? 'small' : 'large',
    segment_pool_id: [0, 0],
    is_expandable: expandable,
    frames: [],
    blocks: out,
  };
}

/** `allocator_settings` as PyTorch 2.5+ writes them, from the settings the placement used. */
function settingsDict(s: AllocatorSettings, raw: unknown): Dict {
  const conf = isDict(raw) && typeof raw.PYTORCH_CUDA_ALLOC_CONF === 'string' ? raw.PYTORCH_CUDA_ALLOC_CONF : '';
  const divisions: Dict = {};
  for (let k = 0; k < ROUNDUP_INTERVALS; k++) divisions[String(2 ** k)] = s.roundupPower2Divisions[k] ?? 0;
  return {
    PYTORCH_CUDA_ALLOC_CONF: conf,
    max_split_size: Number.isFinite(s.maxSplitSize) ? s.maxSplitSize : -1,
    garbage_collection_threshold: s.garbageCollectionThreshold,
    expandable_segments: s.expandableSegments,
    roundup_power2_divisions: divisions,
  };
}

function placementDict(p: PredictionPlacement): Dict {
  return {
    fits: p.fits,
    peakReserved: p.peakReservedBytes,
    neededReserved: p.neededReservedBytes,
    ...(p.oom ? { oom: { requested: p.oom.requestedBytes, reserved: p.oom.reservedBytes, event: p.oom.event } } : {}),
  };
}
