/**
 * The built-in workload graphs compute what the Python samples compute: the similarity graphs match
 * the formula evaluated in float64, the training step's gradients match finite differences of the
 * loss, and every node's statement is found in the sample's text.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { encodeModel } from '../../src/core/onnx/encode';
import { DEFAULT_SESSION_SETTINGS, runSession } from '../../src/core/ort/session';
import type { Feed } from '../../src/core/ort/session';
import { WORKLOADS, buildWorkload, seededRandom, uniform } from '../../src/core/workloads/catalog';
import type { WorkloadGraph } from '../../src/core/workloads/graphBuilder';
import { buildSimilarity, similarityReference } from '../../src/core/workloads/similarity';
import type { SimilaritySize } from '../../src/core/workloads/similarity';
import { PythonSource } from '../../src/core/workloads/sourceLines';
import { biasName, buildTrainStep, trainStepLoss, weightName } from '../../src/core/workloads/trainStep';
import type { TrainStepSize } from '../../src/core/workloads/trainStep';
import { repoRoot } from '../helpers/corpus';

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

  for (const variant of ['baseline', 'fused'] as const) {
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

  it('fused has one [B,M,Q] tensor (its output); baseline has one per eager intermediate', () => {
    const count = (g: WorkloadGraph) => g.nodes.filter((n) => g.shapes.get(n.outputs[0])!.join() === [B, M, Q].join()).length;
    assert.equal(count(buildSimilarity('fused', size)), 1);
    // a_sq, ab, two_ab, -a_sq, -a_sq + two_ab, - b_sq, * ms, / sqrt(C)
    assert.equal(count(buildSimilarity('baseline', size)), 8);
  });
});

describe('training-step graphs', () => {
  const size: TrainStepSize = { batch: 6, width: 5, layers: 4 };
  const random = seededRandom(11);
  const D = size.width;
  const params = {
    x: Float64Array.from(uniform(size.batch * D, -1, 1, random)),
    y: Float64Array.from(uniform(size.batch * D, -1, 1, random)),
    weights: Array.from({ length: size.layers }, () => Float64Array.from(uniform(D * D, -0.9, 0.9, random))),
    biases: Array.from({ length: size.layers }, () => Float64Array.from(uniform(D, -0.1, 0.1, random))),
  };
  const feeds = (): Map<string, Float32Array> => {
    const m = new Map<string, Float32Array>([
      ['x', Float32Array.from(params.x)],
      ['y', Float32Array.from(params.y)],
    ]);
    params.weights.forEach((w, i) => m.set(weightName(i + 1), Float32Array.from(w)));
    params.biases.forEach((b, i) => m.set(biasName(i + 1), Float32Array.from(b)));
    return m;
  };
  // With a learning rate of 1 the update's output is w - dL/dw, so the gradient is w - w_new.
  const gradients = async (variant: 'plain' | 'checkpointed') => {
    const out = await runCpu(buildTrainStep(variant, size, 1), feeds());
    return { out, grad: (param: string) => Float64Array.from(feeds().get(param)!, (w, i) => w - out.get(`${param}_new`)![i]) };
  };

  it('the loss output equals the MLP loss computed in float64', async () => {
    const { out } = await gradients('plain');
    assert.ok(Math.abs(out.get('loss')![0] - trainStepLoss(size, params)) < 1e-5);
  });

  it('weight and bias gradients match central finite differences of the loss', async () => {
    const { grad } = await gradients('plain');
    const h = 1e-6;
    const check = (param: string, values: Float64Array) => {
      const analytic = grad(param);
      const numeric = values.map((v, i) => {
        values[i] = v + h;
        const up = trainStepLoss(size, params);
        values[i] = v - h;
        const down = trainStepLoss(size, params);
        values[i] = v;
        return (up - down) / (2 * h);
      });
      assert.ok(relativeError(analytic, numeric) < 1e-4, `${param}: relative error ${relativeError(analytic, numeric)}`);
    };
    for (let i = 1; i <= size.layers; i++) {
      check(weightName(i), params.weights[i - 1]);
      check(biasName(i), params.biases[i - 1]);
    }
  });

  it('the checkpointed step computes the same update as the plain one', async () => {
    const plain = (await gradients('plain')).out;
    const checkpointed = (await gradients('checkpointed')).out;
    for (const [name, values] of plain) assert.deepEqual(checkpointed.get(name), values, name);
  });

  it('the checkpointed step recomputes the activations it does not keep', () => {
    const g = buildTrainStep('checkpointed', { batch: 4, width: 4, layers: 9 });
    // Stride 3 keeps a0 (x), a3, a6; a1, a2, a4, a5, a7, a8 are recomputed once each.
    assert.deepEqual(
      g.nodes.filter((n) => n.name.startsWith('recompute_a')).map((n) => n.name).sort(),
      ['recompute_a1', 'recompute_a2', 'recompute_a4', 'recompute_a5', 'recompute_a7', 'recompute_a8'],
    );
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
`;
  const source = new PythonSource(fixture);

  it('finds the first statement of the right function, past a multi-line signature, a comment and a blank line', () => {
    assert.equal(source.resolve({ function: 'similarity_baseline', statement: 'a_sq =' }), 13);
    assert.equal(source.resolve({ function: 'similarity_baseline', statement: 'two_ab =' }), 15);
    assert.equal(source.resolve({ function: 'helper', statement: 'a_sq =' }), 5);
    assert.equal(source.resolve({ function: 'forward', statement: 'return ' }), 22);
    assert.equal(source.defLine('similarity_baseline'), 9);
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
