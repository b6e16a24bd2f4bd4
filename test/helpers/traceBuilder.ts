/**
 * Hand-built snapshots for tests: a tiny program's allocations written as a script, turned into
 * the plain data a snapshot pickle decodes to, then read by the real `snapshotFromPickle`.
 */
import type { Analysis } from '../../src/engine/analysis/analyze';
import { analyzeSnapshot } from '../../src/engine/analysis/analyze';
import type { PlainValue } from '../../src/engine/pickle/encoder';
import { encodePickle } from '../../src/engine/pickle/encoder';
import type { PyValue } from '../../src/engine/pickle/values';
import { snapshotFromPickle } from '../../src/engine/snapshot/fromPickle';
import type { Snapshot } from '../../src/engine/snapshot/model';

export const KiB = 1024;
export const MiB = 1024 * KiB;
export const GiB = 1024 * MiB;

export interface TestFrame {
  readonly filename: string;
  readonly line: number;
  readonly name: string;
}

const USER_ROOT = '/home/me/proj/';
const TORCH_ROOT = '/usr/lib/python3.11/site-packages/torch/';

/** A frame of the user's code (path under /home/me/proj/). */
export function user(file: string, line: number, name = '<module>'): TestFrame {
  return { filename: USER_ROOT + file, line, name };
}

/** A frame inside the torch package (site-packages). */
export function torch(file: string, line: number, name: string): TestFrame {
  return { filename: TORCH_ROOT + file, line, name };
}

/** A C++ frame. */
export function native(name: string): TestFrame {
  return { filename: '??', line: 0, name };
}

/** `nn.Module.__call__` between a caller and a module's forward. */
export const CALL_IMPL = torch('nn/modules/module.py', 1784, '_call_impl');

export function userPath(file: string): string {
  return USER_ROOT + file;
}

type Entry = Record<string, PyValue>;

export class TraceBuilder {
  private readonly entries: Entry[] = [];
  private readonly sizes = new Map<number, number>();
  private nextAddress = 0x7f00_0000_0000;
  private time = 1_700_000_000_000_000;

  /** Number of trace events so far (the next event's index). */
  get length(): number {
    return this.entries.length;
  }

  private push(action: string, addr: number, size: number, stack: readonly TestFrame[], extra: Entry = {}): void {
    this.time += 10;
    this.entries.push({
      action,
      addr,
      size,
      stream: 0,
      time_us: this.time,
      frames: stack.map((f) => ({ filename: f.filename, line: f.line, name: f.name })),
      ...extra,
    });
  }

  /** An allocation made under `stack` (innermost frame first); returns its address. */
  alloc(size: number, stack: readonly TestFrame[]): number {
    const addr = this.nextAddress;
    this.nextAddress += Math.max(512, size);
    this.sizes.set(addr, size);
    this.push('alloc', addr, size, stack);
    return addr;
  }

  /** free_requested then free_completed of a block allocated earlier. */
  free(addr: number, stack: readonly TestFrame[] = []): void {
    const size = this.sizes.get(addr);
    if (size === undefined) throw new Error(`no block at ${addr}`);
    this.sizes.delete(addr);
    this.push('free_requested', addr, size, stack);
    this.push('free_completed', addr, size, stack);
  }

  segmentAlloc(size: number, stack: readonly TestFrame[] = []): void {
    this.push('segment_alloc', this.nextAddress, size, stack);
    this.nextAddress += size;
  }

  segmentFree(size: number, stack: readonly TestFrame[] = []): void {
    this.push('segment_free', 0x1000, size, stack);
  }

  oom(size: number, deviceFree: number, stack: readonly TestFrame[]): void {
    this.push('oom', 0, size, stack, { device_free: deviceFree });
  }

  /** The snapshot; `segments` default to one segment holding every block still live. */
  snapshot(segments?: Entry[]): Snapshot {
    return snapshotFromPickle(this.data(segments));
  }

  /** The snapshot as a pickle file's bytes (what `torch.cuda.memory._snapshot()` would have written). */
  pickle(segments?: Entry[]): Uint8Array {
    return encodePickle(this.data(segments) as unknown as PlainValue);
  }

  private data(segments?: Entry[]): Entry {
    const live = [...this.sizes].map(([address, size]) => ({ address, size, requested_size: size, state: 'active_allocated', frames: [] }));
    const total = live.reduce((s, b) => s + b.size, 0);
    const defaultSegments: Entry[] =
      live.length === 0
        ? []
        : [
            {
              device: 0,
              address: live[0].address,
              total_size: total,
              allocated_size: total,
              active_size: total,
              requested_size: total,
              stream: 0,
              segment_type: 'large',
              segment_pool_id: [0, 0],
              is_expandable: false,
              frames: [],
              blocks: live,
            },
          ];
    return { segments: segments ?? defaultSegments, device_traces: [this.entries] };
  }

  analysis(segments?: Entry[]): Analysis {
    return analyzeSnapshot(this.snapshot(segments));
  }
}
