/**
 * Hand-written allocator recordings for tests: the trace entries PyTorch would record (every
 * address and segment event written out by the test, as derived by hand from the allocator's
 * rules) and the final `segments`, read by the real `snapshotFromPickle`.
 */
import type { PyValue } from '../../src/engine/pickle/values';
import { snapshotFromPickle } from '../../src/engine/snapshot/fromPickle';
import type { Snapshot } from '../../src/engine/snapshot/model';
import type { TestFrame } from './traceBuilder';

type Entry = Record<string, PyValue>;

export type BlockState = 'active_allocated' | 'active_pending_free' | 'inactive';

/** A block of a final segment: [size, state, requested size (default: size)]. */
export type BlockSpec = readonly [number, BlockState, number?];

export interface SegmentSpec {
  readonly address: number;
  readonly type: 'small' | 'large';
  readonly expandable?: boolean;
  readonly stream?: number;
  readonly blocks: readonly BlockSpec[];
}

export class RecordedTrace {
  private readonly entries: Entry[] = [];
  private time = 1_700_000_000_000_000;

  get length(): number {
    return this.entries.length;
  }

  private push(action: string, addr: number, size: number, stack: readonly TestFrame[] = [], extra: Entry = {}, stream = 0): void {
    this.time += 10;
    this.entries.push({
      action,
      addr,
      size,
      stream,
      time_us: this.time,
      frames: stack.map((f) => ({ filename: f.filename, line: f.line, name: f.name })),
      ...extra,
    });
  }

  alloc(addr: number, size: number, stack: readonly TestFrame[] = [], stream = 0): this {
    this.push('alloc', addr, size, stack, {}, stream);
    return this;
  }

  /** free_requested and free_completed together (no other stream used the block). */
  free(addr: number, size: number, stack: readonly TestFrame[] = [], stream = 0): this {
    this.push('free_requested', addr, size, stack, {}, stream);
    this.push('free_completed', addr, size, stack, {}, stream);
    return this;
  }

  freeRequested(addr: number, size: number, stream = 0): this {
    this.push('free_requested', addr, size, [], {}, stream);
    return this;
  }

  freeCompleted(addr: number, size: number, stream = 0): this {
    this.push('free_completed', addr, size, [], {}, stream);
    return this;
  }

  segmentAlloc(addr: number, size: number, stack: readonly TestFrame[] = [], stream = 0): this {
    this.push('segment_alloc', addr, size, stack, {}, stream);
    return this;
  }

  segmentFree(addr: number, size: number, stack: readonly TestFrame[] = [], stream = 0): this {
    this.push('segment_free', addr, size, stack, {}, stream);
    return this;
  }

  segmentMap(addr: number, size: number, stack: readonly TestFrame[] = [], stream = 0): this {
    this.push('segment_map', addr, size, stack, {}, stream);
    return this;
  }

  segmentUnmap(addr: number, size: number, stack: readonly TestFrame[] = [], stream = 0): this {
    this.push('segment_unmap', addr, size, stack, {}, stream);
    return this;
  }

  /** PyTorch records the rounded size and the device's free bytes. */
  oom(size: number, deviceFree: number, stack: readonly TestFrame[] = [], stream = 0): this {
    this.push('oom', 0, size, stack, { device_free: deviceFree }, stream);
    return this;
  }

  /** The snapshot: these entries on device 0, the final segments given, and `allocator_settings` from `conf` (PyTorch 2.3+ keys). */
  snapshot(segments: readonly SegmentSpec[], conf?: { expandable?: boolean; maxSplitMb?: number }): Snapshot {
    const segs: Entry[] = segments.map((s) => {
      let at = s.address;
      const blocks = s.blocks.map(([size, state, requested]) => {
        const b: Entry = { address: at, size, requested_size: state === 'inactive' ? 0 : (requested ?? size), state, frames: [] };
        at += size;
        return b;
      });
      const total = at - s.address;
      const live = s.blocks.filter(([, state]) => state !== 'inactive');
      return {
        device: 0,
        address: s.address,
        total_size: total,
        allocated_size: live.reduce((t, [size]) => t + size, 0),
        active_size: live.reduce((t, [size]) => t + size, 0),
        requested_size: live.reduce((t, [size, , r]) => t + (r ?? size), 0),
        stream: s.stream ?? 0,
        segment_type: s.type,
        segment_pool_id: [0, 0],
        is_expandable: s.expandable === true,
        frames: [],
        blocks,
      };
    });
    const root: Record<string, PyValue> = { segments: segs, device_traces: [this.entries] };
    if (conf !== undefined) {
      root.allocator_settings = {
        PYTORCH_CUDA_ALLOC_CONF: '',
        max_split_size: conf.maxSplitMb === undefined ? -1 : conf.maxSplitMb * 2 ** 20,
        garbage_collection_threshold: 0.0,
        expandable_segments: conf.expandable === true,
        roundup_power2_divisions: Object.fromEntries([...Array(16).keys()].map((k) => [String(2 ** k), 0])),
      };
    }
    return snapshotFromPickle(root);
  }
}
