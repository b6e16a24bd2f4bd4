/**
 * A snapshot that records very many folders (issue 24 item 3): one allocation in each of `folders`
 * recorded files `/w/d<i>/m<i>.py` (distinct folders and names, none on this machine), and allocations
 * on lines of `mapped` files, which a workspace holds, at `/w/<file>`. Everything is freed but the
 * mapped lines' last blocks, which stay live at the end; the peak is after the last allocation.
 * Written with our own pickle encoder in PyTorch's snapshot format.
 */
import type { PlainValue } from '../../src/engine/pickle/encoder';
import { encodePickle } from '../../src/engine/pickle/encoder';

export interface ManyFoldersOptions {
  readonly folders: number;
  /** Workspace-relative files and lines that get memory, e.g. `cs336_basics/model.py:39`, each `bytes` large. */
  readonly mapped: readonly { readonly file: string; readonly line: number; readonly bytes: number }[];
  /** Bytes of each unmapped folder's allocation. */
  readonly folderBytes?: number;
  /** The recorded root the files sit under (default `/w`). */
  readonly root?: string;
}

/** The recorded path of unmapped folder `i`'s file. */
export function folderFile(root: string, i: number): string {
  return `${root}/d${i}/m${i}.py`;
}

export function manyFoldersSnapshot(options: ManyFoldersOptions): Uint8Array {
  const root = options.root ?? '/w';
  const folderBytes = options.folderBytes ?? 512;
  const events: PlainValue[] = [];
  let addr = 1 << 20;
  let time = 1;
  const alloc = (size: number, frames: PlainValue[]) => {
    const a = addr;
    addr += Math.ceil(size / 512) * 512;
    events.push({ action: 'alloc', addr: a, size, stream: 0, time_us: time++, frames });
    return a;
  };
  const free = (a: number, size: number, frames: PlainValue[]) => {
    events.push({ action: 'free_requested', addr: a, size, stream: 0, time_us: time++, frames });
    events.push({ action: 'free_completed', addr: a, size, stream: 0, time_us: time++, frames });
  };
  const main: PlainValue = { filename: `${root}/train.py`, line: 7, name: 'main' };
  for (let i = 0; i < options.folders; i++) {
    const frames: PlainValue[] = [{ filename: folderFile(root, i), line: 3, name: `f${i}` }, main];
    free(alloc(folderBytes, frames), folderBytes, frames);
  }
  const live: PlainValue[] = [];
  for (const m of options.mapped) {
    const frames: PlainValue[] = [{ filename: `${root}/${m.file}`, line: m.line, name: 'forward' }, main];
    const a = alloc(m.bytes, frames);
    live.push({ size: m.bytes, requested_size: m.bytes, state: 'active_allocated', address: a, frames });
  }
  const total = addr;
  return encodePickle({
    segments: [{ device: 0, address: 0, total_size: total, allocated_size: options.mapped.reduce((s, m) => s + m.bytes, 0), active_size: 0, stream: 0, segment_type: 'large', blocks: live }],
    device_traces: [events],
  });
}
