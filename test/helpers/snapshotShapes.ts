/**
 * A decoded snapshot in the shapes PyTorch's readers must take (issue 30's "no cliff"), cut down to a
 * few segments and trace entries, with the sharing of the file kept (a frames list shared by an alloc
 * and its frees stays one list, frame dicts stay shared), as `encodePickle` then writes it:
 *
 * - `pytorch`: as PyTorch writes it;
 * - `high-addresses`: every block and segment address raised by 2^52 (the highest range the model holds exactly);
 * - `key-order`: every trace entry's keys in reverse order (`action` last);
 * - `unshared-lists`: every trace entry with a frames list of its own (memo references to shared frame dicts);
 * - `unshared-frames`: every trace entry with new frame dicts (PyTorch 2.0 writes a dict per frame occurrence).
 *
 * bench/make-snapshot.py --variant writes the same shapes at any size, in Python.
 */
import type { PlainValue } from '../../src/engine/pickle/encoder';

export type Shape = 'pytorch' | 'high-addresses' | 'key-order' | 'unshared-lists' | 'unshared-frames';
export const SHAPES: readonly Shape[] = ['pytorch', 'high-addresses', 'key-order', 'unshared-lists', 'unshared-frames'];
export const HIGH_ADDRESS_SHIFT = 2 ** 52;

type Dict = Record<string, unknown>;

const isDict = (v: unknown): v is Dict => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array);

/** `root` (a decoded snapshot) cut down to `entries` trace entries per device, 4 segments of 12 blocks, stacks of 12 frames, in `shape`. */
export function shaped(root: unknown, shape: Shape, entries = 150): PlainValue {
  if (!isDict(root)) throw new Error('shaped: a snapshot dict');
  const cutLists = new Map<unknown[], unknown[]>();
  const cut = (frames: unknown): unknown => {
    if (!Array.isArray(frames)) return frames;
    let out = cutLists.get(frames);
    if (out === undefined) cutLists.set(frames, (out = frames.slice(0, 12)));
    return out;
  };
  const high = (address: unknown): unknown => (shape === 'high-addresses' && typeof address === 'number' ? address + HIGH_ADDRESS_SHIFT : address);
  const entry = (e: unknown): unknown => {
    if (!isDict(e)) return e;
    let out: Dict = { ...e };
    if ('frames' in e) out.frames = cut(e.frames);
    if ('addr' in e) out.addr = high(e.addr);
    if (Array.isArray(out.frames)) {
      if (shape === 'unshared-lists') out.frames = [...(out.frames as unknown[])];
      if (shape === 'unshared-frames') out.frames = (out.frames as unknown[]).map((f) => (isDict(f) ? { ...f } : f));
    }
    if (shape === 'key-order') out = Object.fromEntries(Object.entries(out).reverse());
    return out;
  };
  const block = (b: unknown): unknown => (isDict(b) ? { ...b, ...('frames' in b ? { frames: cut(b.frames) } : {}), ...('address' in b ? { address: high(b.address) } : {}) } : b);
  const segment = (s: unknown): unknown =>
    isDict(s)
      ? {
          ...s,
          ...('address' in s ? { address: high(s.address) } : {}),
          ...('frames' in s ? { frames: cut(s.frames) } : {}),
          ...(Array.isArray(s.blocks) ? { blocks: s.blocks.slice(0, 12).map(block) } : {}),
        }
      : s;
  return {
    ...root,
    ...(Array.isArray(root.segments) ? { segments: root.segments.slice(0, 4).map(segment) } : {}),
    ...(Array.isArray(root.device_traces) ? { device_traces: root.device_traces.map((t: unknown) => (Array.isArray(t) ? t.slice(0, entries).map(entry) : t)) } : {}),
  } as PlainValue;
}
