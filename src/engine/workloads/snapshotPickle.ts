/**
 * Writes a memory trace as a PyTorch memory snapshot (the dict `torch.cuda.memory._snapshot()`
 * returns: `segments` and `device_traces`), so a workload run loads like any recorded snapshot, and
 * PyTorch's own memory_viz reads the file too. Frames lists are shared between entries, as PyTorch
 * shares them, so the pickle memoizes them.
 *
 * Addresses are invented (first fit in one segment, 512-byte aligned like PyTorch's blocks); sizes
 * are exact tensor bytes. Each trace entry's `user_metadata` says what the block holds and whether
 * its figure was measured or reconstructed.
 */
import type { PlainValue } from '../pickle/encoder';
import type { Frame } from '../snapshot/model';
import type { MemoryTrace } from './liveness';

/** Where the invented addresses start (a typical CUDA device address). */
const BASE_ADDRESS = 0x7f00_0000_0000;
const ALIGNMENT = 512;
const SEGMENT_GRANULE = 2 * 1024 * 1024;

type Dict = { [key: string]: PlainValue | undefined };

const roundUp = (n: number, to: number) => Math.ceil(n / to) * to;

/** First-fit allocator over offsets; frees coalesce with their neighbours. */
class AddressSpace {
  /** Free gaps [start, end), sorted by start; the last one is unbounded. */
  private readonly gaps: { start: number; end: number }[] = [{ start: 0, end: Infinity }];
  highWater = 0;

  allocate(bytes: number): number {
    const size = Math.max(ALIGNMENT, roundUp(bytes, ALIGNMENT));
    const i = this.gaps.findIndex((g) => g.end - g.start >= size);
    const gap = this.gaps[i];
    const start = gap.start;
    gap.start += size;
    if (gap.start === gap.end) this.gaps.splice(i, 1);
    this.highWater = Math.max(this.highWater, start + size);
    return start;
  }

  release(start: number, bytes: number): void {
    const end = start + Math.max(ALIGNMENT, roundUp(bytes, ALIGNMENT));
    let i = this.gaps.findIndex((g) => g.start >= end);
    if (i < 0) i = this.gaps.length;
    this.gaps.splice(i, 0, { start, end });
    const next = this.gaps[i + 1];
    if (next && next.start === end) {
      this.gaps[i].end = next.end;
      this.gaps.splice(i + 1, 1);
    }
    const previous = this.gaps[i - 1];
    if (previous && previous.end === start) {
      previous.end = this.gaps[i].end;
      this.gaps.splice(i, 1);
    }
  }
}

export interface SnapshotPickleOptions {
  /** Added to the trace's microsecond times to make them epoch times. */
  readonly epochOffsetUs: number;
  /** Facts about the run, stored under the snapshot's `vram_lens` key (ignored by other readers). */
  readonly run: Dict;
}

/** The snapshot dict for `encodePickle`. */
export function traceToSnapshot(trace: MemoryTrace, options: SnapshotPickleOptions): Dict {
  const frameLists = new Map<readonly Frame[], PlainValue[]>();
  const frameDicts = new Map<string, Dict>();
  const framesOf = (frames: readonly Frame[]): PlainValue[] => {
    let list = frameLists.get(frames);
    if (!list) {
      list = frames.map((f) => {
        const key = `${f.filename}\u0000${String(f.line)}\u0000${f.name}`;
        let dict = frameDicts.get(key);
        if (!dict) {
          dict = { filename: f.filename, line: f.line, name: f.name };
          frameDicts.set(key, dict);
        }
        return dict;
      });
      frameLists.set(frames, list);
    }
    return list;
  };

  const space = new AddressSpace();
  const address = new Map<number, number>();
  const live = new Map<number, { offset: number; bytes: number; frames: PlainValue[] }>();
  const entries: Dict[] = [];
  const time = (us: number) => Math.round(us + options.epochOffsetUs);
  for (const e of trace.events) {
    const frames = framesOf(e.frames);
    const user_metadata = `${e.label} (${e.origin})`;
    if (e.kind === 'alloc') {
      const offset = space.allocate(e.bytes);
      address.set(e.block, offset);
      live.set(e.block, { offset, bytes: e.bytes, frames });
      entries.push({ action: 'alloc', addr: BASE_ADDRESS + offset, size: e.bytes, stream: 0, time_us: time(e.timeUs), frames, user_metadata });
    } else {
      const offset = address.get(e.block);
      if (offset === undefined) continue;
      live.delete(e.block);
      space.release(offset, e.bytes);
      const entry = { addr: BASE_ADDRESS + offset, size: e.bytes, stream: 0, time_us: time(e.timeUs), frames, user_metadata };
      entries.push({ action: 'free_requested', ...entry }, { action: 'free_completed', ...entry });
    }
  }

  const totalSize = Math.max(SEGMENT_GRANULE, roundUp(space.highWater, SEGMENT_GRANULE));
  const firstTime = trace.events.length > 0 ? time(trace.events[0].timeUs) : time(0);
  const segmentAlloc: Dict = { action: 'segment_alloc', addr: BASE_ADDRESS, size: totalSize, stream: 0, time_us: firstTime, frames: [] };

  // The segment as it is at the end: live blocks, and the gaps between them as inactive blocks.
  const blocks: Dict[] = [];
  let cursor = 0;
  let allocated = 0;
  for (const b of [...live.values()].sort((x, y) => x.offset - y.offset)) {
    if (b.offset > cursor) blocks.push({ address: BASE_ADDRESS + cursor, size: b.offset - cursor, requested_size: 0, state: 'inactive', frames: [] });
    const size = Math.max(ALIGNMENT, roundUp(b.bytes, ALIGNMENT));
    blocks.push({ address: BASE_ADDRESS + b.offset, size: b.bytes, requested_size: b.bytes, state: 'active_allocated', frames: b.frames });
    if (size > b.bytes) blocks.push({ address: BASE_ADDRESS + b.offset + b.bytes, size: size - b.bytes, requested_size: 0, state: 'inactive', frames: [] });
    allocated += b.bytes;
    cursor = b.offset + size;
  }
  if (cursor < totalSize) blocks.push({ address: BASE_ADDRESS + cursor, size: totalSize - cursor, requested_size: 0, state: 'inactive', frames: [] });

  const segment: Dict = {
    device: 0,
    address: BASE_ADDRESS,
    total_size: totalSize,
    allocated_size: allocated,
    active_size: allocated,
    requested_size: allocated,
    stream: 0,
    segment_type: 'large',
    segment_pool_id: [0, 0],
    is_expandable: false,
    frames: [],
    blocks,
  };
  return {
    segments: [segment],
    device_traces: [[segmentAlloc, ...entries]],
    allocator_settings: {},
    vram_lens: options.run,
  };
}
