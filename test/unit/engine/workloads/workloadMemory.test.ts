/**
 * Memory of a graph run: the liveness reconstruction on small graphs with peaks derived by hand,
 * how measured arena statistics refine it, the PyTorch-format snapshot it becomes (checked against
 * the independent Python oracle of the spec), and real CPU runs of the built-in workloads whose
 * peaks follow from their tensor sizes.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { analyzeSnapshot } from '../../../../src/engine/analysis/analyze';
import { toReport } from '../../../../src/engine/analysis/report';
import { executeJob, finishJob, tracePeak } from '../../../../src/runtime/ort/workloadJob';
import type { RunSummary } from '../../../../src/runtime/ort/workloadJob';
import { DEFAULT_SESSION_SETTINGS } from '../../../../src/runtime/ort/session';
import { encodePickle } from '../../../../src/engine/pickle/encoder';
import { snapshotFromPickle } from '../../../../src/engine/snapshot/fromPickle';
import type { SizeId, WorkloadId } from '../../../../src/engine/workloads/catalog';
import type { ArenaStats, ExecGraph, NodeRun } from '../../../../src/engine/workloads/liveness';
import { RUNTIME_FRAMES, reconstructMemory } from '../../../../src/engine/workloads/liveness';
import { traceToSnapshot } from '../../../../src/engine/workloads/snapshotPickle';
import { parseExactJson, repoRoot, withSpecNames } from '../../../helpers/corpus';

const at = (line: number) => [{ filename: '/w/s.py', line, name: 'f' }];

/** X (100 B, input) -> A (10) -> B (20); C (30) = h(A, B); D (5, output) = k(C). */
const chain: ExecGraph = {
  nodes: [
    { name: 'A', opType: 'Op', inputs: ['X'], outputs: ['A'], frames: at(1) },
    { name: 'B', opType: 'Op', inputs: ['A'], outputs: ['B'], frames: at(2) },
    { name: 'C', opType: 'Op', inputs: ['A', 'B'], outputs: ['C'], frames: at(3) },
    { name: 'D', opType: 'Op', inputs: ['C'], outputs: ['D'], frames: at(4) },
  ],
  tensorBytes: new Map([
    ['X', 100],
    ['A', 10],
    ['B', 20],
    ['C', 30],
    ['D', 5],
  ]),
  preexisting: [{ name: 'X', frames: at(10) }],
  outputs: new Set(['D']),
};

const runs = (arena: (ArenaStats | undefined)[]): NodeRun[] => arena.map((a, i) => ({ node: i, startUs: 100 * i, durationUs: 50, arena: a }));
const stats = (requestedInUse: number, requestedDelta: number, runningPeak: number, inUse = requestedInUse): ArenaStats => ({ requestedInUse, requestedDelta, runningPeak, inUse });

describe('liveness reconstruction', () => {
  it('allocates outputs at node start and frees each tensor after its last consumer', () => {
    const trace = reconstructMemory(chain, runs([undefined, undefined, undefined, undefined]));
    // During C: A + B + C = 60 live; after C, A and B go; during D: C + D = 35.
    assert.deepEqual(
      trace.nodes.map((n) => n.reconstructedBytes),
      [10, 30, 60, 35],
    );
    assert.equal(trace.reconstructedPeakBytes, 60);
    assert.equal(trace.preexistingBytes, 100);
    assert.equal(tracePeak(trace), 160);
    assert.equal(trace.measured, false);
    assert.deepEqual(
      trace.events.map((e) => `${e.kind} ${e.label}`),
      ['alloc input X', 'alloc Op A', 'alloc Op B', 'alloc Op C', 'free Op C', 'free Op C', 'alloc Op D', 'free Op D'],
    );
    // The frees of A and B happen when C ends; the free of C when D ends.
    assert.deepEqual(
      trace.events.filter((e) => e.kind === 'free').map((e) => [e.bytes, e.timeUs]),
      [
        [10, 250],
        [20, 250],
        [30, 350],
      ],
    );
  });

  it('outputs that stand for locals are freed after the last node, with the frames of the statement that releases them', () => {
    const held: ExecGraph = { ...chain, outputs: new Set(['B', 'D']), releasedAtEnd: new Map([['B', at(9)]]) };
    const trace = reconstructMemory(held, runs([undefined, undefined, undefined, undefined]));
    // B outlives C (its last reader): during D, B + C + D = 55 live.
    assert.deepEqual(
      trace.nodes.map((n) => n.reconstructedBytes),
      [10, 30, 60, 55],
    );
    const last = trace.events[trace.events.length - 1];
    assert.deepEqual([last.kind, last.bytes, last.timeUs, last.frames], ['free', 20, 350, at(9)]);
    // At the end only D (the result) and the input X remain.
    const live = trace.events.reduce((sum, e) => sum + (e.kind === 'alloc' ? e.bytes : -e.bytes), 0);
    assert.equal(live, 100 + 5);
  });

  it('the order the runtime chose decides the peak', () => {
    // Two independent branches X -> P (40) -> p (1) and X -> Q (40) -> q (1) meet in R.
    const fork: ExecGraph = {
      nodes: [
        { name: 'P', opType: 'Op', inputs: ['X'], outputs: ['P'], frames: at(1) },
        { name: 'p', opType: 'Op', inputs: ['P'], outputs: ['p'], frames: at(2) },
        { name: 'Q', opType: 'Op', inputs: ['X'], outputs: ['Q'], frames: at(3) },
        { name: 'q', opType: 'Op', inputs: ['Q'], outputs: ['q'], frames: at(4) },
        { name: 'R', opType: 'Op', inputs: ['p', 'q'], outputs: ['R'], frames: at(5) },
      ],
      tensorBytes: new Map([
        ['P', 40],
        ['p', 1],
        ['Q', 40],
        ['q', 1],
        ['R', 1],
      ]),
      preexisting: [],
      outputs: new Set(['R']),
    };
    const order = (nodes: number[]) => reconstructMemory(fork, nodes.map((node, i) => ({ node, startUs: i, durationUs: 1, arena: undefined })));
    // P, p, Q, q: P dies before Q is made -> peak 40 + 1 + 1 (Q while p lives) = 42.
    assert.equal(order([0, 1, 2, 3, 4]).reconstructedPeakBytes, 42);
    // P, Q, p, q: both big tensors live at once -> 40 + 40 + 1 = 81.
    assert.equal(order([0, 2, 1, 3, 4]).reconstructedPeakBytes, 81);
  });

  it('measured: memory the arena held beyond the live tensors is a block with no source line', () => {
    const trace = reconstructMemory(chain, runs([stats(10, 10, 10), stats(30, 20, 30), stats(80, 50, 80), stats(50, 5, 80)]));
    assert.equal(trace.measured, true);
    assert.equal(trace.measuredPeakBytes, 80);
    // 80 measured during C against 60 live: 20 held; during D 50 against 35: 15 held.
    const held = trace.events.filter((e) => e.label === 'held by onnxruntime');
    assert.deepEqual(
      held.map((e) => `${e.kind} ${e.bytes}`),
      ['alloc 20', 'free 20', 'alloc 15'],
    );
    assert.ok(held.every((e) => e.frames === RUNTIME_FRAMES && e.origin === 'measured'));
    assert.equal(tracePeak(trace), 100 + 80);
    assert.deepEqual(
      trace.nodes.map((n) => n.measuredBytes),
      [10, 30, 80, 50],
    );
  });

  it('measured: a rise of the running peak within a node is scratch memory of that node', () => {
    const trace = reconstructMemory(chain, runs([stats(10, 10, 10), stats(30, 20, 50), stats(60, 30, 60), stats(35, 5, 60)]));
    const scratch = trace.events.filter((e) => e.label === 'Op B scratch');
    assert.deepEqual(
      scratch.map((e) => `${e.kind} ${e.bytes} ${e.timeUs}`),
      ['alloc 20 100', 'free 20 150'],
    );
    assert.deepEqual(scratch[0].frames, at(2));
    assert.equal(trace.nodes[1].scratchBytes, 20);
    // During B: A + B + 20 scratch = 50 on top of the input.
    assert.equal(tracePeak(trace), 100 + 60);
  });

  it('measured: no growth while an equal-sized input dies means the node wrote in place', () => {
    const relu: ExecGraph = {
      nodes: [
        { name: 'z', opType: 'Gemm', inputs: ['x'], outputs: ['z'], frames: at(1) },
        { name: 'a', opType: 'Relu', inputs: ['z'], outputs: ['a'], frames: at(2) },
      ],
      tensorBytes: new Map([
        ['z', 16],
        ['a', 16],
      ]),
      preexisting: [],
      outputs: new Set(['a']),
    };
    assert.equal(reconstructMemory(relu, runs([undefined, undefined])).reconstructedPeakBytes, 32);
    const measured = reconstructMemory(relu, runs([stats(16, 16, 16), stats(16, 0, 16)]));
    assert.equal(measured.reconstructedPeakBytes, 16);
    assert.deepEqual(
      measured.events.map((e) => `${e.kind} ${e.label} ${e.origin}`),
      ['alloc Gemm z reconstructed', 'free Relu a measured', 'alloc Relu a measured'],
    );
  });
});

function oracle(pickle: Uint8Array): { devices: Record<string, unknown>[] } {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'vram-lens-trace-')), 'run.pickle');
  writeFileSync(file, pickle);
  const out = execFileSync('python3', [path.join(repoRoot, 'test', 'reference', 'spec_reference.py'), file], { encoding: 'utf8' });
  return (parseExactJson(out) as Record<string, { devices: Record<string, unknown>[] }>)[file];
}

describe('snapshot of a run', () => {
  const trace = reconstructMemory(chain, runs([undefined, undefined, undefined, undefined]));
  const dict = traceToSnapshot(trace, { epochOffsetUs: 1_700_000_000_000_000, run: { producer: 'test' } });

  it('reads as a PyTorch snapshot whose figures are the hand-derived ones', () => {
    const analysis = analyzeSnapshot(snapshotFromPickle(dict));
    const device = analysis.devices[0];
    assert.equal(device.peakBytes, 160);
    assert.equal(device.finalActiveBytes, 105);
    const line = (n: number) => device.lines.find((l) => l.line === n);
    // Live at the peak (right after C is allocated): X, A, B, C.
    assert.deepEqual(
      [10, 1, 2, 3, 4].map((n) => line(n)?.liveAtPeakBytes),
      [100, 10, 20, 30, 0],
    );
    // Frees are recorded with the stack of the node that released the tensor.
    assert.equal(line(3)?.freedBytes, 30);
    assert.equal(line(4)?.freedBytes, 30);
    assert.equal(line(4)?.allocBytes, 5);
  });

  it('Python reads the pickle and the spec oracle finds the same figures as our analysis', () => {
    const pickle = encodePickle(dict);
    const ours = toReport(analyzeSnapshot(snapshotFromPickle(dict)));
    const reference = oracle(pickle);
    const strip = ({ oomCount: _o, liveBlocksAtEnd: _l, activeTimelineChecksum: _a, reservedTimelineChecksum: _r, ...rest }: Record<string, unknown>) => rest;
    assert.deepEqual(
      ours.devices.map((d) => strip(withSpecNames(d) as unknown as Record<string, unknown>)),
      reference.devices.map(strip),
    );
  });

  it('gives every entry epoch times in order and the same frames list object per node', () => {
    const entries = (dict.device_traces as Record<string, unknown>[][])[0];
    const times = entries.map((e) => e.time_us as number);
    assert.deepEqual([...times].sort((a, b) => a - b), times);
    assert.equal(times[0], 1_700_000_000_000_000);
    const allocB = entries.find((e) => e.action === 'alloc' && e.size === 20)!;
    const freeA = entries.find((e) => e.action === 'free_requested' && e.size === 10)!;
    const freeB = entries.find((e) => e.action === 'free_requested' && e.size === 20)!;
    assert.equal(freeA.frames, freeB.frames, 'frees at node C share its frames list');
    assert.notEqual(allocB.frames, freeB.frames);
  });
});

describe('built-in workloads on the CPU execution provider', () => {
  const sample = (file: string) => path.join(repoRoot, 'media', 'samples', file);
  const run = async (workload: WorkloadId, variant: string, size: SizeId = 'small') => {
    const samplePath = sample(workload === 'similarity' ? 'similarity.py' : 'train_step.py');
    const executed = await executeJob({
      kind: 'builtin',
      workload,
      variant,
      size,
      samplePath,
      sampleText: readFileSync(samplePath, 'utf8'),
      provider: 'cpu',
      settings: DEFAULT_SESSION_SETTINGS,
    });
    return finishJob(executed);
  };
  const within = (actual: number, expected: number, tolerance: number, what: string) =>
    assert.ok(Math.abs(actual - expected) <= tolerance * expected, `${what}: ${actual} vs ${expected}`);

  it("the similarity variants peak at the [B,M,Q] tensors each one holds at once (the seed's three iterations)", async () => {
    const eager = (await run('similarity', 'eager')).summary;
    const cleanup = (await run('similarity', 'cleanup')).summary;
    const inplace = (await run('similarity', 'inplace')).summary;
    // small: B=1 C=64 M=Q=1024, float32: S = one [B,M,Q] tensor, 4 MiB; mk.pow(2) [B,C,M] 256 KiB. onnxruntime
    // computes b_sq (4 KiB) right before its use and the small operands die before the products peak.
    const S = 1 * 1024 * 1024 * 4;
    const mkSq = 1 * 64 * 1024 * 4;
    // eager, at `similarity = similarity * ms / math.sqrt(c)`: a_sq and two_ab (locals alive until return),
    // the old similarity (rebound only after the right-hand side), `* ms` and `/ sqrt(C)`.
    assert.equal(eager.reconstructedPeakBytes, 5 * S);
    // cleanup: each freed at its last use: -a_sq, ab and 2 * ab at once (onnxruntime runs Neg before the second
    // product); at the last line again 3: the old similarity, `* ms`, `/ sqrt(C)`.
    assert.equal(cleanup.reconstructedPeakBytes, 3 * S);
    // inplace, at baddbmm_: similarity (the Gemm's C, through a Reshape view that owns no bytes), the Gemm's
    // output (onnxruntime writes a new tensor) and mk.pow(2); a_sq is never made.
    assert.equal(inplace.reconstructedPeakBytes, 2 * S + mkSq);
    assert.ok(inplace.nodes.every((n: RunSummary['nodes'][number]) => n.name !== 'a_sq'));
    for (const s of [eager, inplace]) {
      assert.equal(s.provider, 'cpu');
      assert.equal(s.figures, 'measured');
      within(s.measuredPeakBytes!, s.reconstructedPeakBytes, 0.05, `${s.title} measured peak`);
    }
    // cleanup runs without the arena (no caching allocator): nothing measures per node.
    assert.equal(cleanup.settings.memoryArena, false);
    assert.equal(cleanup.figures, 'reconstructed');
    assert.equal(cleanup.measuredPeakBytes, undefined);
    // The seed's shape: inplace below half of eager, cleanup between.
    assert.ok(inplace.snapshotPeakBytes < 0.5 * eager.snapshotPeakBytes, `${inplace.snapshotPeakBytes} vs ${eager.snapshotPeakBytes}`);
    assert.ok(inplace.snapshotPeakBytes < cleanup.snapshotPeakBytes && cleanup.snapshotPeakBytes < eager.snapshotPeakBytes);
  });

  it('older variant names are aliases: baseline is eager, fused is inplace', async () => {
    assert.equal((await run('similarity', 'baseline', 'tiny')).summary.workload?.variant, 'eager');
    assert.equal((await run('similarity', 'fused', 'tiny')).summary.workload?.variant, 'inplace');
  });

  it('the snapshot peaks at the inputs plus what the arena measured (never below, never above the larger figure)', async () => {
    for (const [workload, variant] of [
      ['similarity', 'eager'],
      ['similarity', 'inplace'],
      ['train-step', 'checkpointed'],
    ] as const) {
      const s = (await run(workload, variant)).summary;
      const measured = s.inputBytes + s.measuredPeakBytes!;
      assert.ok(s.snapshotPeakBytes >= measured, `${s.title}: ${s.snapshotPeakBytes} < ${measured}`);
      assert.ok(s.snapshotPeakBytes <= s.inputBytes + Math.max(s.measuredPeakBytes!, s.reconstructedPeakBytes), s.title);
    }
  });

  it('the checkpointed training step peaks below the plain one', async () => {
    const plain = (await run('train-step', 'plain')).summary;
    const checkpointed = (await run('train-step', 'checkpointed')).summary;
    assert.ok(checkpointed.measuredPeakBytes! < plain.measuredPeakBytes!, `${checkpointed.measuredPeakBytes} vs ${plain.measuredPeakBytes}`);
    assert.ok(checkpointed.reconstructedPeakBytes < plain.reconstructedPeakBytes);
    assert.ok(checkpointed.snapshotPeakBytes < plain.snapshotPeakBytes);
  });

  it('the snapshot of a run annotates the sample statements, with each node labelled measured or reconstructed', async () => {
    const { snapshot, summary } = await run('similarity', 'eager', 'tiny');
    const reference = oracle(encodePickle(snapshot));
    const lines = (reference.devices[0].lines as { file: string; line: number }[]).map((l) => `${path.basename(l.file)}:${l.line}`);
    // The sample's statements, found by their text (the first of each is similarity_eager's): a_sq, two_ab,
    // b_sq, the two `similarity =` lines, `return similarity` (where a_sq and two_ab are freed), the inputs
    // mk, qk, qe, ms, and the call in main that includes them all.
    const text = readFileSync(sample('similarity.py'), 'utf8').split('\n');
    const lineOf = (start: string) => text.findIndex((l) => l.trim().startsWith(start)) + 1;
    const expected = ['a_sq = ', 'two_ab = ', 'b_sq = ', 'similarity = -a_sq', 'similarity = similarity * ms', 'return similarity', 'mk = torch', 'qk = torch', 'qe = torch', 'ms = torch', 'similarity = fn(']
      .map(lineOf);
    assert.ok(expected.every((n) => n > 0), 'every statement is in the sample');
    assert.deepEqual(lines, expected.map((n) => `similarity.py:${n}`));
    assert.equal(reference.devices[0].peakBytes, summary.snapshotPeakBytes);
    assert.ok(summary.nodes.every((n: RunSummary['nodes'][number]) => n.origin === 'measured'));
    assert.deepEqual(summary.unresolvedStatements, []);
  });
});
