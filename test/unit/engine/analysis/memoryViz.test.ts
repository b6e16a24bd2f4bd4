/**
 * Our peak, initial and final active memory against PyTorch's own viewer, memory_viz
 * (torch/utils/viz/MemoryViz.js, `annotate_snapshot` then `process_alloc_data` with plot_segments
 * false). The counting below was written from reading that code, on the raw decoded pickle, without
 * the snapshot model or the analysis:
 * - each trace's `free_requested` immediately followed by a `free_completed` of the same address is
 *   merged into one `free`;
 * - a block's address is its segment's address plus the sizes of the blocks before it; a block without
 *   `frames` takes `requested_size`, else (2.0) `history[0].real_size`, else `size`;
 * - `alloc` starts an element; `free` / `free_completed` ends the element last allocated at that
 *   address, or, with none, is an element allocated before recording (counted from the start);
 * - `active_allocated` blocks of the device whose address no element still holds are allocated from the
 *   start, by `requested_size`;
 * - the plotted total starts at the sum of those, and max_size is the largest total after an action
 *   (with no action at all, one initially allocated element is replayed as one, drawn at time 0).
 * Literal figures for a few files are kept too, so a change in either side shows.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { analyzeSnapshot } from '../../../../src/engine/analysis/analyze';
import { snapshotFromBytes } from '../../../../src/engine/decode/load';
import { decodePickle } from '../../../../src/engine/pickle/decoder';
import { corpusFiles, corpusMissing } from '../../../helpers/corpus';

type Raw = Record<string, unknown>;

interface MemoryVizFigures {
  initial: number;
  maxSize: number;
  final: number;
}

const num = (v: unknown): number => (typeof v === 'bigint' ? Number(v) : typeof v === 'number' ? v : 0);
const isDict = (v: unknown): v is Raw => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Map);

/** memory_viz's counting for one device, or undefined when it cannot open it (no trace list). */
function memoryVizFigures(root: unknown, device: number): MemoryVizFigures | undefined {
  if (!isDict(root) || !Array.isArray(root.device_traces)) return undefined;
  const rawTrace: unknown = root.device_traces[device];
  if (!Array.isArray(rawTrace)) return undefined;

  // annotate_snapshot: merge free_requested + free_completed of one address into `free`.
  const trace: { action: string; addr: number; size: number }[] = [];
  for (const e of rawTrace as Raw[]) {
    const event = { action: String(e.action), addr: num(e.addr), size: num(e.size) };
    if (event.action === 'free_completed' && trace.length > 0) {
      const prev = trace[trace.length - 1];
      if (prev.action === 'free_requested' && prev.addr === event.addr) {
        prev.action = 'free';
        continue;
      }
    }
    trace.push(event);
  }

  // process_alloc_data: elements are allocations; actions toggle them.
  const sizes: number[] = [];
  const initially: number[] = [];
  const actions: number[] = [];
  const openAt = new Map<number, number>();
  for (const e of trace) {
    if (e.action === 'alloc') {
      sizes.push(e.size);
      openAt.set(e.addr, sizes.length - 1);
      actions.push(sizes.length - 1);
    } else if (e.action === 'free' || e.action === 'free_completed') {
      const open = openAt.get(e.addr);
      if (open !== undefined) {
        actions.push(open);
        openAt.delete(e.addr);
      } else {
        sizes.push(e.size);
        initially.push(sizes.length - 1);
        actions.push(sizes.length - 1);
      }
    }
  }
  const segments = Array.isArray(root.segments) ? (root.segments as Raw[]) : [];
  for (const seg of segments) {
    if (num(seg.device) !== device) continue;
    let addr = num(seg.address);
    for (const b of (Array.isArray(seg.blocks) ? seg.blocks : []) as Raw[]) {
      let requested: unknown = b.requested_size;
      if (!('frames' in b)) {
        const history = Array.isArray(b.history) ? (b.history as Raw[]) : undefined;
        if (history !== undefined) requested = num(requested) || num(history[0]?.real_size);
        else requested = num(requested) || num(b.size);
      }
      if (b.state === 'active_allocated' && !openAt.has(addr)) {
        sizes.push(num(requested));
        initially.push(sizes.length - 1);
      }
      addr += num(b.size);
    }
  }
  initially.reverse();
  // With no action, one initially allocated element is replayed as the only action, at time 0.
  const replayedAtStart = actions.length === 0 && initially.length > 0;
  if (replayedAtStart) actions.push(initially.pop() as number);

  const current = new Set<number>();
  let total = 0;
  for (const elem of initially) {
    current.add(elem);
    total += sizes[elem];
  }
  const initial = total + (replayedAtStart ? sizes[actions[0]] : 0);
  let maxSize = 0;
  for (const elem of actions) {
    if (current.has(elem)) {
      current.delete(elem);
      total -= sizes[elem];
    } else {
      current.add(elem);
      total += sizes[elem];
    }
    maxSize = Math.max(maxSize, total);
  }
  return { initial, maxSize, final: total };
}

/** Expected figures written down from the counting above (device 0). */
const LITERALS: Record<string, MemoryVizFigures> = {
  'wedsonlin-cs336-medium-512-training.pickle': { initial: 5_095_567_360, maxSize: 12_426_629_128, final: 6_829_260_804 },
  'bcrafton-cs336.pickle': { initial: 3_064_418_304, maxSize: 3_849_232_640, final: 3_064_418_304 },
  'nothanmin-cs336.pickle': { initial: 15_568_596_996, maxSize: 22_827_925_508, final: 15_568_596_996 },
};

describe('memory_viz: peak, initial and final active memory equal PyTorch viewer figures', { skip: corpusMissing }, () => {
  const files = corpusFiles();
  it('has every file whose figures are written down', () => {
    for (const name of Object.keys(LITERALS)) assert.ok(files.some((f) => path.basename(f) === name), name);
  });
  for (const file of files) {
    it(path.basename(file), () => {
      const bytes = readFileSync(file);
      const root = decodePickle(bytes);
      const analysis = analyzeSnapshot(snapshotFromBytes(bytes));
      let compared = 0;
      for (const device of analysis.devices) {
        const mv = memoryVizFigures(root, device.device);
        if (mv === undefined) continue;
        compared++;
        const where = `device ${device.device}`;
        assert.equal(device.initialActiveBytes, mv.initial, `${where} initial`);
        assert.equal(device.finalActiveBytes, mv.final, `${where} final`);
        // memory_viz's max is taken after each action; ours also counts the initial state.
        assert.equal(device.peakBytes, Math.max(mv.maxSize, mv.initial), `${where} peak`);
        const literal = LITERALS[path.basename(file)];
        if (literal !== undefined && device.device === 0) {
          assert.deepEqual(mv, literal, 'memory_viz counting, written down');
          assert.deepEqual(
            { initial: device.initialActiveBytes, maxSize: device.peakBytes, final: device.finalActiveBytes },
            literal,
            'our figures, written down',
          );
        }
      }
      const opens = isDict(root) && Array.isArray(root.device_traces);
      if (opens) assert.equal(compared, analysis.devices.length, 'memory_viz opens every device of a file with device_traces');
    });
  }
});
