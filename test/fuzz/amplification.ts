/**
 * Snapshots that share objects through the pickle memo to describe far more than their bytes: the
 * two files of issue 23 (one segment listed 200,000 times, each holding one block 2,000 times: 1 MB
 * that describes 400 million blocks; 300,000 references to one empty list in `device_traces`: 1.5 MB),
 * and random shapes of the same kind for the fuzz run, with one object shared at any place a reader
 * walks (segments, blocks, traces, trace entries, frames lists, frames, annotations, history, samples),
 * shared again one level up (fan-out of a fan-out).
 */
import { encodePickle, type PlainValue } from '../../src/engine/pickle/encoder';
import type { Random } from './inputs';

/**
 * 300 distinct strings, memoized first, so the objects shared after them have memo keys above 255 and
 * every reference is a 5-byte LONG_BINGET (the sizes of the files the issue describes).
 */
function padding(): string[] {
  return Array.from({ length: 300 }, (_, i) => `pad${i}`);
}

const BLOCK = { size: 512, requested_size: 512, state: 'active_allocated', address: 0, frames: [] };

/** One segment object listed `segments` times, holding one block object `blocks` times (1.0 MB by default). */
export function segmentBomb(segments = 200_000, blocks = 2_000): Uint8Array {
  const block = { ...BLOCK };
  const segment = { device: 0, address: 0, total_size: 1 << 20, allocated_size: 512, active_size: 512, stream: 0, segment_type: 'large', blocks: Array.from({ length: blocks }, () => block) };
  return encodePickle({ padding: padding(), segments: Array.from({ length: segments }, () => segment), device_traces: [] });
}

/** `references` references to one empty list, as the device traces (1.5 MB by default). */
export function emptyListBomb(references = 300_000): Uint8Array {
  const empty: PlainValue[] = [];
  return encodePickle({ padding: padding(), segments: [], device_traces: Array.from({ length: references }, () => empty) });
}

/** Where a generated snapshot shares one object many times. */
const PLACES = ['segments', 'blocks', 'traces', 'entries', 'frames lists', 'frames', 'annotations', 'history', 'samples', 'empty lists'] as const;

/**
 * A snapshot with one object shared `fanOut` times at a random place, that place itself shared
 * `outer` times where it can be (a wide fan-out, or a fan-out of a fan-out): most are refused by the
 * work budget or a format check, all must end fast and small.
 */
export function sharedShape(r: Random): Uint8Array {
  const place = r.pick(PLACES);
  const fanOut = r.pick([1, 10, 1000, 50_000, 200_000]);
  const outer = r.pick([1, 2, 100, 5000]);
  const many = <T>(n: number, item: T): T[] => Array.from({ length: n }, () => item);
  const frame = { filename: '/w/train.py', line: 3, name: 'step' };
  const frames = [frame, { filename: '/w/model.py', line: 9, name: 'forward' }];
  const entry = { action: 'alloc', addr: 4096, size: 512, stream: 0, time_us: 1000, frames };
  const segment = (blocks: PlainValue[]): PlainValue => ({ device: 0, address: 0, total_size: 1 << 20, segment_type: 'large', blocks });
  const root: Record<string, PlainValue> = { padding: r.chance(0.5) ? padding() : [], segments: [], device_traces: [] };
  // Every shape is built from at most fanOut + outer references: the pickle stays as small as its
  // references, whatever it describes.
  switch (place) {
    case 'segments':
      root.segments = many(fanOut, segment(many(outer, BLOCK)));
      break;
    case 'blocks':
      root.segments = many(outer, segment(many(fanOut, { ...BLOCK })));
      break;
    case 'traces':
      root.device_traces = many(Math.min(outer, 2000), many(fanOut, entry));
      break;
    case 'entries':
      root.device_traces = [many(fanOut, entry)];
      break;
    case 'frames lists':
      root.device_traces = [many(fanOut, { ...entry, frames: many(outer, frame) })];
      break;
    case 'frames': {
      const shared = many(fanOut, frame);
      root.device_traces = [many(outer, { ...entry, frames: shared })];
      root.segments = [segment(many(outer, { ...BLOCK, frames: shared }))];
      break;
    }
    case 'annotations':
      root.external_annotations = many(fanOut, { stage: 'START', name: 'step', device: 0, time_us: 1000 });
      break;
    case 'history': {
      const history = many(fanOut, { addr: 0, real_size: 512, frames });
      root.segments = [segment(many(outer, { size: 512, state: 'active_allocated', history }))];
      break;
    }
    case 'samples': {
      const samples = many(fanOut, 1000);
      root.vram_lens = { device_memory: { source: 'nvml', time_us: samples, bytes: samples } };
      break;
    }
    default: {
      const empty: PlainValue[] = [];
      root[r.pick(['segments', 'device_traces', 'external_annotations'])] = many(fanOut, empty);
    }
  }
  return encodePickle(root);
}
