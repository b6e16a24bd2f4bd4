/**
 * The built-in workload graphs compute what the Python samples compute: the similarity graphs match
 * the formula evaluated in float64, the training step's gradients match finite differences of the
 * loss, and every node's statement is found in the sample's text.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { encodeModel } from '../../../../src/engine/onnx/encode';
import { DEFAULT_SESSION_SETTINGS, runSession } from '../../../../src/runtime/ort/session';
import type { Feed } from '../../../../src/runtime/ort/session';
import { WORKLOADS, buildWorkload, seededRandom, uniform } from '../../../../src/engine/workloads/catalog';
import type { WorkloadGraph } from '../../../../src/engine/workloads/graphBuilder';
import { buildSimilarity, similarityReference } from '../../../../src/engine/workloads/similarity';
import type { SimilaritySize } from '../../../../src/engine/workloads/similarity';
import { PythonSource } from '../../../../src/engine/workloads/sourceLines';
import { buildTrainStep, parameterNames, trainStepLoss } from '../../../../src/engine/workloads/trainStep';
import type { TrainStepParams, TrainStepSize } from '../../../../src/engine/workloads/trainStep';
import { repoRoot } from '../../../helpers/corpus';

async function runCpu(graph: WorkloadGraph, inputs: ReadonlyMap<string, Float32Array>): Promise<Map<string, Float32Array>> {
  const feeds = new Map<string, Feed>();
  for (const [name, data] of inputs) feeds.set(name, { type: 'float32', dims: graph.shapes.get(name)!, data });
  const result = await runSession({ model: encodeModel(graph.model), feeds, provider: 'cpu', settings: DEFAULT_SESSION_SETTINGS, profile: false, keepOutputs: true });
  return new Map([...result.outputs].map(([k, v]) => [k, v.data as Float32Array]));
}

/** max |x - ref| / max |ref|: the error relative to the result's scale. */
function relativeError(actual: ArrayLike<number>, expected: ArrayLike<number>): number {
  assert.equal(actual.length, expected.length);
  let maxDiff = 0;
  let maxRef = 0;
  for (let i = 0; i < expected.length; i++) {
    maxDiff = Math.max(maxDiff, Math.abs(actual[i] - expected[i]));
    maxRef = Math.max(maxRef, Math.abs(expected[i]));
  }
  return maxDiff / maxRef;
}

describe('similarity graphs', () => {
  const size: SimilaritySize = { batch: 2, channels: 16, memory: 24, query: 20 };
  const random = seededRandom(3);
  const { batch: B, channels: C, memory: M, query: Q } = size;
  const inputs = {
    mk: uniform(B * C * M, -1, 1, random),
    qk: uniform(B * C * Q, -1, 1, random),
    qe: uniform(B * C * Q, 0, 1, random),
    ms: uniform(B * M, 1, 2, random),
  };
  const expected = similarityReference(size, inputs);

  for (const variant of ['eager', 'cleanup', 'inplace'] as const) {
    it(`${variant} equals the formula in float64 (relative error < 1e-5)`, async () => {
      const out = await runCpu(buildSimilarity(variant, size), new Map(Object.entries(inputs)));
      const similarity = out.get('similarity')!;
      assert.equal(similarity.length, B * M * Q);
      assert.ok(relativeError(similarity, expected) < 1e-5, `relative error ${relativeError(similarity, expected)}`);
    });
  }

  it('the reference itself agrees with a direct reading of one element', () => {
    // b=1, m=5, q=7 written out from the sample's four statements.
    let aSq = 0;
    let twoAb = 0;
    let bSq = 0;
    for (let c = 0; c < C; c++) {
      const k = inputs.mk[(1 * C + c) * M + 5];
      const qk = inputs.qk[(1 * C + c) * Q + 7];
      const qe = inputs.qe[(1 * C + c) * Q + 7];
      aSq += k ** 2 * qe;
      twoAb += 2 * k * qk * qe;
      bSq += qe * qk ** 2;
    }
    const direct = ((-aSq + twoAb - bSq) * inputs.ms[1 * M + 5]) / Math.sqrt(C);
    assert.ok(Math.abs(expected[(1 * M + 5) * Q + 7] - direct) < 1e-12);
  });

  it('each variant has the [B,M,Q] tensors its sample function makes; eager returns its locals a_sq and two_ab, both the old similarity', () => {
    const bmq = (g: WorkloadGraph) => g.nodes.filter((n) => g.shapes.get(n.outputs[0])!.join() === [B, M, Q].join()).map((n) => n.name);
    // a_sq, ab, two_ab, -a_sq, -a_sq + two_ab, - b_sq, * ms, / sqrt(C): one tensor per eager intermediate.
    const eager = buildSimilarity('eager', size);
    assert.deepEqual(bmq(eager), ['a_sq', 'ab', 'two_ab', 'neg_a_sq', 'neg_a_sq_plus_two_ab', 'minus_b_sq', 'times_ms', 'similarity']);
    // The old `similarity` (minus_b_sq) lives while the last line's right-hand side is evaluated.
    assert.deepEqual(eager.outputs, ['similarity', 'a_sq', 'two_ab', 'minus_b_sq']);
    // ... and frees them where Python does: the locals at `return`, the old similarity once its line is done.
    assert.deepEqual(
      [...eager.releasedAtEnd].map(([t, stack]) => `${t}: ${stack[0].statement}`),
      ['a_sq: return similarity', 'two_ab: return similarity', 'minus_b_sq: similarity = similarity * ms'],
    );
    const cleanup = buildSimilarity('cleanup', size);
    assert.deepEqual(bmq(cleanup), bmq(eager));
    assert.deepEqual(cleanup.outputs, ['similarity', 'minus_b_sq']);
    // Small tensors first: b_sq's nodes come before the first [B,M,Q] product. With B = 2 ONNX has no batched
    // multiply-accumulate for baddbmm_, so a_sq is made and subtracted.
    const inplace = buildSimilarity('inplace', size);
    assert.deepEqual(bmq(inplace), ['ab', 'similarity_times_2', 'similarity_minus_b_sq', 'a_sq', 'similarity_minus_a_sq', 'similarity_times_ms', 'similarity']);
    assert.ok(inplace.nodes.findIndex((n) => n.name === 'b_sq') < inplace.nodes.findIndex((n) => n.name === 'ab'));
  });

  describe('a batch of one (every built-in size): baddbmm_ is a Gemm on views', () => {
    const one: SimilaritySize = { batch: 1, channels: 16, memory: 36, query: 28 };
    const r = seededRandom(5);
    const x = {
      mk: uniform(one.channels * one.memory, -1, 1, r),
      qk: uniform(one.channels * one.query, -1, 1, r),
      qe: uniform(one.channels * one.query, 0, 1, r),
      ms: uniform(one.memory, 1, 2, r),
    };
    const reference = similarityReference(one, x);

    it('the in-place graph equals the eager graph and the formula in float64', async () => {
      const eager = (await runCpu(buildSimilarity('eager', one), new Map(Object.entries(x)))).get('similarity')!;
      const inplace = (await runCpu(buildSimilarity('inplace', one), new Map(Object.entries(x)))).get('similarity')!;
      assert.equal(inplace.length, one.memory * one.query);
      assert.ok(relativeError(inplace, reference) < 1e-5, `in place vs formula ${relativeError(inplace, reference)}`);
      assert.ok(relativeError(inplace, eager) < 1e-5, `in place vs eager ${relativeError(inplace, eager)}`);
    });

    it('never makes a_sq: Gemm(mk.pow(2) viewed [C,M] transposed, qe viewed [C,Q], C = similarity viewed [M,Q], alpha -1, beta 1)', () => {
      const g = buildSimilarity('inplace', one);
      const { channels: C, memory: M, query: Q } = one;
      const bmq = g.nodes.filter((n) => g.shapes.get(n.outputs[0])!.join() === [1, M, Q].join() && !g.views.has(n.outputs[0])).map((n) => n.name);
      assert.deepEqual(bmq, ['ab', 'similarity_times_2', 'similarity_minus_b_sq', 'similarity_times_ms', 'similarity']);
      const gemm = g.nodes.find((n) => n.opType === 'Gemm')!;
      assert.deepEqual(gemm.inputs, ['mk_sq_2d', 'qe_2d', 'similarity_2d']);
      assert.deepEqual(gemm.inputs.map((t) => g.shapes.get(t)), [[C, M], [C, Q], [M, Q]]);
      assert.deepEqual(gemm.inputs.map((t) => g.views.get(t)), ['mk_sq', 'qe', 'similarity_minus_b_sq']);
      assert.deepEqual(gemm.attributes, { transA: { kind: 'int', value: 1 }, alpha: { kind: 'float', value: -1 }, beta: { kind: 'float', value: 1 } });
      assert.equal(g.views.get('similarity_minus_a_sq'), gemm.outputs[0]);
      assert.deepEqual(
        g.nodes.filter((n) => n.stack[0].statement === 'similarity.baddbmm_(').map((n) => n.opType),
        ['Pow', 'Reshape', 'Reshape', 'Reshape', 'Gemm', 'Reshape'],
      );
    });
  });

  it('each variant annotates the lines of the sample function it mirrors', () => {
    for (const [variant, fn] of [['eager', 'similarity_eager'], ['cleanup', 'similarity_cleanup'], ['inplace', 'similarity_inplace']] as const) {
      const g = buildSimilarity(variant, size);
      for (const n of g.nodes) assert.equal(n.stack[0].function, fn, `${variant} ${n.name}`);
    }
  });
});

describe('training-step graphs', () => {
  const size: TrainStepSize = { batch: 6, width: 5, hidden: 7, blocks: 3 };
  const random = seededRandom(11);
  const { batch: N, width: D, hidden: H } = size;
  const params: TrainStepParams = {
    x: Float64Array.from(uniform(N * D, -1, 1, random)),
    y: Float64Array.from(uniform(N * D, -1, 1, random)),
    blocks: Array.from({ length: size.blocks }, () => ({
      w1: Float64Array.from(uniform(D * H, -0.8, 0.8, random)),
      b1: Float64Array.from(uniform(H, -0.1, 0.3, random)),
      w2: Float64Array.from(uniform(H * D, -0.8, 0.8, random)),
      b2: Float64Array.from(uniform(D, -0.1, 0.3, random)),
    })),
  };
  /** Every parameter by its graph input name, with the float64 array finite differences perturb. */
  const parameters = new Map<string, Float64Array>();
  params.blocks.forEach((b, i) => {
    const names = parameterNames(i + 1);
    parameters.set(names.w1, b.w1).set(names.b1, b.b1).set(names.w2, b.w2).set(names.b2, b.b2);
  });
  const feeds = () =>
    new Map<string, Float32Array>([
      ['x', Float32Array.from(params.x)],
      ['y', Float32Array.from(params.y)],
      ...[...parameters].map(([name, values]): [string, Float32Array] => [name, Float32Array.from(values)]),
    ]);
  // With a learning rate of 1 the update's output is p - dL/dp, so the gradient is p - p_new.
  const step = async (variant: 'plain' | 'checkpointed') => {
    const inputs = feeds();
    const out = await runCpu(buildTrainStep(variant, size, 1), inputs);
    return { out, grad: (param: string) => Float64Array.from(inputs.get(param)!, (p, i) => p - out.get(`${param}_new`)![i]) };
  };

  it('the loss output equals the residual MLP loss computed in float64', async () => {
    const { out } = await step('plain');
    assert.ok(Math.abs(out.get('loss')![0] - trainStepLoss(size, params)) < 1e-5);
  });

  it('every parameter gradient matches central finite differences of the loss', async () => {
    const { grad } = await step('plain');
    const h = 1e-6;
    for (const [name, values] of parameters) {
      const numeric = values.map((v, i) => {
        values[i] = v + h;
        const up = trainStepLoss(size, params);
        values[i] = v - h;
        const down = trainStepLoss(size, params);
        values[i] = v;
        return (up - down) / (2 * h);
      });
      const analytic = grad(name);
      assert.ok(relativeError(analytic, numeric) < 1e-4, `${name}: relative error ${relativeError(analytic, numeric)}`);
    }
  });

  it('the checkpointed step computes the same update as the plain one', async () => {
    const plain = (await step('plain')).out;
    const checkpointed = (await step('checkpointed')).out;
    for (const [name, values] of plain) assert.deepEqual(checkpointed.get(name), values, name);
  });

  it('the checkpointed step keeps only the residual stream and recomputes each block once', () => {
    const g = buildTrainStep('checkpointed', { batch: 4, width: 4, hidden: 8, blocks: 3 });
    const recomputed = g.nodes.filter((n) => n.name.startsWith('recompute_')).map((n) => n.name);
    assert.deepEqual(recomputed.sort(), ['fc1_1', 'fc1_2', 'fc1_3', 'fc2_1', 'fc2_2', 'fc2_3', 'h1', 'h2', 'h3', 'y1', 'y2', 'y3'].map((n) => `recompute_${n}`).sort());
    // The backward reads no forward activation but the residual stream x0..x3.
    const backwardInputs = new Set(g.nodes.filter((n) => n.stack[0].statement.startsWith('scaler.scale')).flatMap((n) => n.inputs));
    for (const forward of ['h1', 'h2', 'h3', 'y1', 'y2', 'y3']) assert.ok(!backwardInputs.has(forward), forward);
  });
});

describe('statement lines in the Python samples', () => {
  const fixture = `import torch


def helper(x):
    a_sq = 1
    return x


def similarity_baseline(mk, qk,
                        qe, ms):
    # a_sq = in a comment does not count
    C = mk.shape[1]
    a_sq = mk.pow(2).transpose(1, 2) @ qe

    two_ab = 2 * (mk.transpose(1, 2) @ (qk * qe))
    return a_sq


class Model:
    def forward(self, x):
        x = x + 1
        return x


class Other:
    def forward(self, x):
        for _ in range(2):
            out = x
        out = x * 2
        return out
`;
  const source = new PythonSource(fixture);

  it('finds the first statement of the right function, past a multi-line signature, a comment and a blank line', () => {
    assert.equal(source.resolve({ function: 'similarity_baseline', statement: 'a_sq =' }), 13);
    assert.equal(source.resolve({ function: 'similarity_baseline', statement: 'two_ab =' }), 15);
    assert.equal(source.resolve({ function: 'helper', statement: 'a_sq =' }), 5);
    assert.equal(source.resolve({ function: 'Model.forward', statement: 'return ' }), 22);
    assert.equal(source.defLine('similarity_baseline'), 9);
  });

  it('tells methods of the same name apart by class, and can skip to a later occurrence', () => {
    assert.throws(() => source.resolve({ function: 'forward', statement: 'x = ' }), /ambiguous \(Model.forward, Other.forward\)/);
    assert.equal(source.resolve({ function: 'Other.forward', statement: 'out = ' }), 28);
    assert.equal(source.resolve({ function: 'Other.forward', statement: 'out = ', after: 'for _ in' }), 28);
    assert.equal(source.resolve({ function: 'Other.forward', statement: 'out = x *' }), 29);
    assert.equal(source.resolve({ function: 'Other.forward', statement: 'out = ', after: 'out = x' }), 29);
  });

  it('does not look past the end of the function', () => {
    assert.throws(() => source.resolve({ function: 'helper', statement: 'two_ab =' }), /no statement 'two_ab =' in 'helper'/);
    assert.throws(() => source.resolve({ function: 'missing', statement: 'x' }), /no function 'missing'/);
  });

  for (const workload of WORKLOADS) {
    const sample = path.join(repoRoot, 'media', 'samples', workload.sample);
    it(`every node of ${workload.id} resolves in the shipped ${workload.sample}`, { skip: existsSync(sample) ? false : `${sample} is not there yet` }, () => {
      const text = new PythonSource(readFileSync(sample, 'utf8'));
      text.defLine(workload.entryFunction);
      for (const variant of workload.variants) {
        for (const node of buildWorkload(workload.id, variant.id, 'tiny').nodes) {
          for (const key of node.stack) assert.doesNotThrow(() => text.resolve(key), `${variant.id} ${node.name}: ${key.function} / ${key.statement}`);
        }
      }
    });
  }
});
