/**
 * Placing a predicted run on its GPU (engine/predict/placement.ts). The inputs are provisional snapshots as
 * the bootstrap writes them (one address per allocation, never reused; the history before the trace); the
 * expected addresses, segments and events are worked out here from PyTorch's documented allocator rules
 * (CUDACachingAllocator.cpp): requests round up to 512 bytes; up to 1 MiB they come from 2 MiB "small"
 * segments, below 10 MiB from 20 MiB segments, above that from segments of the request rounded to 2 MiB;
 * a free block is chosen best fit (smallest, then lowest address) and split; a cudaMalloc that fails first
 * releases cached segments. Each placed file is then read back by our own reader and replayed by the
 * allocator self-check, and its peak is compared with a running sum taken here.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { analyzeSnapshot } from '../../../../src/engine/analysis/analyze';
import { decodePickle } from '../../../../src/engine/pickle/decoder';
import type { PlainValue } from '../../../../src/engine/pickle/encoder';
import { encodePickle } from '../../../../src/engine/pickle/encoder';
import { DEVICE_BASE } from '../../../../src/engine/predict/predictedDevice';
import { PredictionFormatError, placePrediction } from '../../../../src/engine/predict/placement';
import { AllocatorStudy } from '../../../../src/engine/session/allocatorStudy';
import { snapshotFromPickle } from '../../../../src/engine/snapshot/fromPickle';

const KiB = 1024;
const MiB = 1024 * KiB;
const GiB = 1024 * MiB;
type Dict = { [key: string]: PlainValue | undefined };

/** A provisional snapshot, as the bootstrap's predictor writes it. */
class Provisional {
  private next = 0x7f00_0000_0000;
  private time = 1_000_000;
  readonly trace: Dict[] = [];
  readonly history: number[] = [];
  readonly live = new Map<number, { size: number; frames: Dict[] }>();
  recording = true;

  constructor(readonly memory: number) {}

  alloc(size: number, line = 1): number {
    const address = this.next;
    this.next += Math.max(512, Math.ceil(size / 512) * 512);
    const frames = [{ filename: '/home/me/train.py', line, name: '<module>' }];
    this.live.set(address, { size, frames: this.recording ? frames : [] });
    if (this.recording) this.trace.push({ action: 'alloc', addr: address, size, stream: 0, time_us: this.time++, frames });
    else this.history.push(address, size);
    return address;
  }

  free(address: number): void {
    const block = this.live.get(address)!;
    this.live.delete(address);
    if (!this.recording) {
      this.history.push(address, -1);
      return;
    }
    for (const action of ['free_requested', 'free_completed']) this.trace.push({ action, addr: address, size: block.size, stream: 0, time_us: this.time, frames: [] });
    this.time++;
  }

  emptyCache(): void {
    if (this.recording) this.trace.push({ action: 'empty_cache', addr: 0, size: 0, stream: 0, time_us: this.time++, frames: [] });
    else this.history.push(0, -2);
  }

  root(): Dict {
    const segments = [...this.live].map(([address, b]) => ({
      device: 0,
      address,
      total_size: Math.ceil(b.size / 512) * 512,
      allocated_size: Math.ceil(b.size / 512) * 512,
      active_size: Math.ceil(b.size / 512) * 512,
      requested_size: b.size,
      stream: 0,
      segment_type: 'large',
      segment_pool_id: [0, 0],
      is_expandable: false,
      frames: [],
      blocks: [{ address, size: Math.ceil(b.size / 512) * 512, requested_size: b.size, state: 'active_allocated', frames: b.frames }],
    }));
    return {
      segments,
      device_traces: [this.trace],
      allocator_settings: { PYTORCH_CUDA_ALLOC_CONF: '' },
      external_annotations: [],
      vram_lens: {
        predicted: { version: 1, placed: false, gpu: { name: 'Test GPU', memory: this.memory, capability: '8.0' }, torch: '2.13.0', python: '3.11', data: 'fake', window: 'run', history: this.history, assumptions: [] },
      },
    };
  }
}

/** The placed file's trace entries, as plain dicts. */
function traceOf(root: Dict): Dict[] {
  return (root.device_traces as PlainValue[][])[0] as Dict[];
}

/** The placed file read back by our reader (through real pickle bytes). */
function reread(root: Dict) {
  return snapshotFromPickle(decodePickle(encodePickle(root)));
}

describe('placing a predicted run on its GPU', () => {
  it('small requests share a 2 MiB segment, each at the lowest best-fitting address', () => {
    const p = new Provisional(80 * GiB);
    const a = p.alloc(1000);
    const b = p.alloc(1024);
    p.alloc(100);
    p.free(b);
    p.alloc(600); // the 1024-byte hole left by b is the smallest block that fits: it goes there
    p.free(a);
    const placed = placePrediction(p.root());
    const entries = traceOf(placed.root);
    const S = DEVICE_BASE;
    assert.deepEqual(
      entries.map((e) => [e.action, e.addr, e.size]),
      [
        ['segment_alloc', S, 2 * MiB],
        ['alloc', S, 1000],
        ['alloc', S + 1024, 1024],
        ['alloc', S + 2048, 100],
        ['free_requested', S + 1024, 1024],
        ['free_completed', S + 1024, 1024],
        ['alloc', S + 1024, 600],
        ['free_requested', S, 1000],
        ['free_completed', S, 1000],
      ],
    );
    assert.equal(placed.placement.fits, true);
    assert.equal(placed.placement.peakReservedBytes, 2 * MiB);
    const segments = placed.root.segments as Dict[];
    assert.equal(segments.length, 1);
    assert.deepEqual(
      (segments[0].blocks as Dict[]).map((x) => [x.address, x.size, x.state]),
      [
        [S, 1024, 'inactive'],
        [S + 1024, 1024, 'active_allocated'],
        [S + 2048, 512, 'active_allocated'],
        [S + 2560, 2 * MiB - 2560, 'inactive'],
      ],
    );
  });

  it('a large request below 10 MiB gets a 20 MiB segment; above, its size rounded to 2 MiB', () => {
    const p = new Provisional(80 * GiB);
    p.alloc(11 * MiB + 1); // 11 MiB + 512 after rounding: a segment of 12 MiB, with less than 1 MiB left over
    p.alloc(5 * MiB); // does not fit what is left: a new segment of 20 MiB
    p.alloc(3 * MiB); // fits the 15 MiB left of that one: no new segment
    const entries = traceOf(placePrediction(p.root()).root);
    assert.deepEqual(
      entries.filter((e) => e.action === 'segment_alloc').map((e) => e.size),
      [12 * MiB, 20 * MiB],
    );
  });

  it('a GPU too small for a new segment releases the cached ones first, and the events say so in order', () => {
    const p = new Provisional(64 * MiB);
    const a = p.alloc(40 * MiB);
    p.free(a);
    p.alloc(50 * MiB); // 40 cached + 50 new > 64: PyTorch frees the cached segment, then cudaMallocs again
    const placed = placePrediction(p.root());
    const entries = traceOf(placed.root).map((e) => [e.action, e.size]);
    assert.deepEqual(entries, [
      ['segment_alloc', 40 * MiB],
      ['alloc', 40 * MiB],
      ['free_requested', 40 * MiB],
      ['free_completed', 40 * MiB],
      ['segment_free', 40 * MiB],
      ['segment_alloc', 50 * MiB],
      ['alloc', 50 * MiB],
    ]);
    assert.equal(placed.placement.fits, true);
    assert.equal(placed.placement.peakReservedBytes, 50 * MiB);
  });

  it('an allocation the GPU cannot hold ends the trace with an oom entry, and the run says what it needs', () => {
    const p = new Provisional(64 * MiB);
    p.alloc(40 * MiB);
    p.alloc(30 * MiB); // 40 + 30 > 64 with nothing cached to release
    p.alloc(1 * KiB);
    const placed = placePrediction(p.root());
    const entries = traceOf(placed.root);
    const last = entries[entries.length - 1];
    assert.equal(last.action, 'oom');
    assert.equal(last.size, 30 * MiB);
    assert.equal(last.device_free, 24 * MiB);
    assert.equal(entries.filter((e) => e.action === 'alloc').length, 1, 'nothing after the failure');
    assert.equal(placed.placement.fits, false);
    assert.deepEqual(placed.placement.oom, { requestedBytes: 30 * MiB, reservedBytes: 40 * MiB, event: entries.length - 1 });
    assert.equal(placed.placement.neededReservedBytes, 40 * MiB + 30 * MiB + 2 * MiB, 'both large segments and a small one');
    const read = reread(placed.root);
    assert.equal(read.prediction?.placement?.fits, false);
    assert.equal(analyzeSnapshot(read).devices[0].ooms.length, 1);
  });

  it('the history before the trace is replayed but not written; its blocks are at the end without stacks', () => {
    const p = new Provisional(80 * GiB);
    p.recording = false;
    const weights = p.alloc(30 * MiB);
    const scratch = p.alloc(2 * MiB);
    p.free(scratch);
    p.emptyCache();
    p.recording = true;
    const x = p.alloc(4 * MiB, 7);
    p.free(weights);
    const placed = placePrediction(p.root());
    const entries = traceOf(placed.root);
    assert.deepEqual(
      entries.map((e) => [e.action, e.size]),
      [
        ['segment_alloc', 20 * MiB],
        ['alloc', 4 * MiB],
        ['free_requested', 30 * MiB],
        ['free_completed', 30 * MiB],
      ],
      'only the trace: the history made the 30 MiB segment and released the 20 MiB one',
    );
    assert.equal(entries[2].addr, DEVICE_BASE, 'the weights, placed in the history, freed at their address');
    assert.equal(((placed.root.vram_lens as Dict).predicted as Dict).history, undefined, 'the history is not kept once placed');
    const blocks = (placed.root.segments as Dict[]).flatMap((s) => s.blocks as Dict[]).filter((b) => b.state === 'active_allocated');
    assert.deepEqual(
      blocks.map((b) => [b.size, (b.frames as Dict[]).map((f) => f.line)]),
      [[4 * MiB, [7]]],
    );
    void x;
  });

  it('the placed file reads back and the self-check replays every allocation at its address', () => {
    const p = new Provisional(80 * GiB);
    const live: number[] = [];
    let expectedPeak = 0;
    let now = 0;
    // A deterministic mix of sizes and frees, some small, some large, some freed out of order.
    let seed = 12345;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const sizes = new Map<number, number>();
    for (let i = 0; i < 400; i++) {
      if (live.length > 0 && random() < 0.45) {
        const k = Math.floor(random() * live.length);
        const [address] = live.splice(k, 1);
        now -= sizes.get(address)!;
        p.free(address);
      } else {
        const size = random() < 0.6 ? 1 + Math.floor(random() * MiB) : MiB + Math.floor(random() * 40 * MiB);
        const address = p.alloc(size, 1 + (i % 9));
        sizes.set(address, size);
        live.push(address);
        now += size;
        expectedPeak = Math.max(expectedPeak, now);
      }
    }
    const placed = placePrediction(p.root());
    const snapshot = reread(placed.root);
    assert.equal(analyzeSnapshot(snapshot).devices[0].peakBytes, expectedPeak);
    const check = new AllocatorStudy(snapshot, 0).check().check;
    assert.equal(check.atRecordedAddress, check.allocations);
    assert.equal(check.segmentEventsReproduced, check.segmentEvents);
    assert.equal(check.firstDeparture, null);
    assert.equal(snapshot.prediction?.placed, true);
    assert.equal(snapshot.prediction?.gpu.name, 'Test GPU');
  });

  it('refuses a file that is not a provisional prediction, saying why', () => {
    assert.throws(() => placePrediction({ segments: [], device_traces: [] }), PredictionFormatError);
    const p = new Provisional(80 * GiB);
    const placed = placePrediction(p.root()).root;
    assert.throws(() => placePrediction(placed), /placed already/);
  });
});
