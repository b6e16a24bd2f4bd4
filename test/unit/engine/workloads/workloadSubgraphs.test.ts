/**
 * Nodes inside `If` / `Loop` subgraphs: decoded from their GRAPH attributes, matched to the kernels
 * onnxruntime profiles under their own names, and attributed to the line of the node that holds them,
 * with one more frame naming the subgraph node. Figures are checked against bytes derived by hand.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { MAX_GRAPH_DEPTH, decodeModel } from '../../../../src/engine/onnx/decode';
import { OnnxFormatError } from '../../../../src/engine/onnx/errors';
import { encodeModel } from '../../../../src/engine/onnx/encode';
import type { OnnxGraph, OnnxModel } from '../../../../src/engine/onnx/model';
import { DEFAULT_SESSION_SETTINGS } from '../../../../src/runtime/ort/session';
import { executeJob, finishJob } from '../../../../src/runtime/ort/workloadJob';
import { modelOf } from '../../../helpers/onnxModel';

const N = 1024;
/** One [1, N] float32 tensor. */
const ROW = N * 4;
const row = { elemType: 1, shape: [1, N] };

/** then: y = relu(x) + relu(x); else: y = -x. */
const thenBranch: OnnxGraph = {
  name: 'then',
  nodes: [
    { name: 'then_relu', opType: 'Relu', inputs: ['x'], outputs: ['t'] },
    { name: 'then_add', opType: 'Add', inputs: ['t', 't'], outputs: ['t2'] },
  ],
  inputs: [],
  outputs: [{ name: 't2', ...row }],
  initializers: [],
};
const elseBranch: OnnxGraph = {
  name: 'else',
  nodes: [{ name: 'else_neg', opType: 'Neg', inputs: ['x'], outputs: ['e'] }],
  inputs: [],
  outputs: [{ name: 'e', ...row }],
  initializers: [],
};
/** Loop body: acc = acc + x (x from the outer scope), n times; `w` is a [N] weight of the body's own. */
const body: OnnxGraph = {
  name: 'body',
  nodes: [
    { name: 'body_add', opType: 'Add', inputs: ['acc_in', 'x'], outputs: ['acc_next'] },
    { name: 'body_mul', opType: 'Mul', inputs: ['acc_next', 'w'], outputs: ['acc_out'] },
    { name: 'body_cond', opType: 'Identity', inputs: ['cond_in'], outputs: ['cond_out'] },
  ],
  inputs: [
    { name: 'i', elemType: 7, shape: [] },
    { name: 'cond_in', elemType: 9, shape: [] },
    { name: 'acc_in', ...row },
  ],
  outputs: [
    { name: 'cond_out', elemType: 9, shape: [] },
    { name: 'acc_out', ...row },
  ],
  initializers: [{ name: 'w', elemType: 1, dims: [N], data: new Float32Array(N).fill(1) }],
};

function model(): OnnxModel {
  return modelOf({
    name: 'subgraphs',
    nodes: [
      { name: 'if', opType: 'If', inputs: ['c'], outputs: ['y'], attributes: { then_branch: { kind: 'graph', value: thenBranch }, else_branch: { kind: 'graph', value: elseBranch } } },
      { name: 'loop', opType: 'Loop', inputs: ['n', '', 'y'], outputs: ['acc'], attributes: { body: { kind: 'graph', value: body } } },
      { name: 'relu', opType: 'Relu', inputs: ['acc'], outputs: ['z'] },
    ],
    inputs: [
      { name: 'x', ...row },
      { name: 'c', elemType: 9, shape: [] },
      { name: 'n', elemType: 7, shape: [] },
    ],
    outputs: [{ name: 'z', ...row }],
    initializers: [],
  });
}

describe('If / Loop subgraphs', () => {
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'vram-lens-subgraphs-')), 'subgraphs.onnx');
  writeFileSync(file, encodeModel(model()));

  it('decodes the graphs held by GRAPH attributes, with their nodes, inputs and initializers', () => {
    const decoded = decodeModel(readFileSync(file));
    const [ifNode, loopNode, relu] = decoded.graph.nodes;
    assert.deepEqual(
      ifNode.subgraphs?.map((s) => `${s.attribute}: ${s.graph.nodes.map((n) => n.name).join(' ')}`),
      ['then_branch: then_relu then_add', 'else_branch: else_neg'],
    );
    assert.deepEqual(loopNode.subgraphs?.[0].graph.inputs.map((i) => i.name), ['i', 'cond_in', 'acc_in']);
    assert.deepEqual(loopNode.subgraphs?.[0].graph.initializers, [{ name: 'w', elemType: 1, dims: [N] }]);
    assert.equal(relu.subgraphs, undefined);
  });

  it('reads subgraphs nested as deep as MAX_GRAPH_DEPTH and refuses deeper ones (the stack stays bounded)', () => {
    const nest = (depth: number): OnnxGraph => ({
      name: `g${depth}`,
      nodes: depth === 0 ? [] : [{ name: `if${depth}`, opType: 'If', inputs: ['c'], outputs: ['y'], attributes: { then_branch: { kind: 'graph', value: nest(depth - 1) } } }],
      inputs: [],
      outputs: [],
      initializers: [],
    });
    const wrap = (depth: number) => encodeModel({ ...model(), graph: nest(depth) });
    let graph = decodeModel(wrap(MAX_GRAPH_DEPTH)).graph;
    let depth = 0;
    while (graph.nodes[0]?.subgraphs) {
      graph = graph.nodes[0].subgraphs[0].graph;
      depth++;
    }
    assert.equal(depth, MAX_GRAPH_DEPTH);
    assert.throws(() => decodeModel(wrap(MAX_GRAPH_DEPTH + 1)), OnnxFormatError);
  });

  const run = async (c: number, n: number, settings = DEFAULT_SESSION_SETTINGS) => {
    const executed = await executeJob({
      kind: 'model',
      modelPath: file,
      dimensions: {},
      inputs: { c: { shape: [], value: c }, n: { shape: [], value: n } },
      provider: 'cpu',
      settings,
    });
    return { executed, summary: finishJob(executed).summary };
  };

  it('runs the taken branch and each Loop iteration on the parent node\'s line, with the subgraph node as the innermost frame', async () => {
    const { executed, summary } = await run(1, 3);
    const ifLine = `onnx:${file}:1`;
    const loopLine = `onnx:${file}:2`;
    const kernels = summary.nodes.filter((k) => k.opType !== 'If' && k.opType !== 'Loop');
    assert.deepEqual(
      kernels.map((k) => `${k.name} ${k.file}:${k.line}`),
      [
        `then_relu ${ifLine}`,
        `then_add ${ifLine}`,
        // onnxruntime runs the body's Identity first (its own order within the body).
        ...[1, 2, 3].flatMap(() => [`body_cond ${loopLine}`, `body_add ${loopLine}`, `body_mul ${loopLine}`]),
        `relu onnx:${file}:3`,
      ],
    );
    assert.ok(!summary.nodes.some((k) => k.file === '<onnxruntime>'), 'no subgraph kernel lands on <onnxruntime>');
    // Hand-derived output sizes: each Relu/Add/Mul writes one [1, N] float32 row; the condition is one bool byte.
    assert.deepEqual(
      kernels.map((k) => k.outputBytes),
      [ROW, ROW, ...[1, 2, 3].flatMap(() => [1, ROW, ROW]), ROW],
    );
    const add = executed.trace.nodes.find((k) => k.name === 'body_add');
    assert.deepEqual(
      add?.frames.map((f) => `${f.filename}:${String(f.line)} ${f.name}`),
      [`${loopLine} loop/body/body_add`, `${loopLine} loop`],
    );
  });

  it('counts the inputs and a subgraph\'s own initializer once, the latter on the parent\'s line', async () => {
    const { executed, summary } = await run(0, 2);
    // x [1, N] float32, c one bool, n one int64; w [N] float32 in the Loop body.
    assert.equal(summary.inputBytes, ROW + 1 + 8 + N * 4);
    const w = executed.trace.events.find((e) => e.kind === 'alloc' && e.label === 'input loop/body/w');
    assert.equal(w?.bytes, N * 4);
    assert.deepEqual(w?.frames.map((f) => `${String(f.line)} ${f.name}`), ['2 loop/body/w', '2 loop']);
    // The else branch ran: one Neg, on the If's line.
    assert.deepEqual(
      summary.nodes.filter((k) => k.line === 1 && k.opType !== 'If').map((k) => `${k.name} ${k.outputBytes}`),
      [`else_neg ${ROW}`],
    );
  });

  it('a Loop iteration replaces what the previous one made: the body\'s rows never pile up', async () => {
    const inputs = ROW + 1 + 8 + N * 4;
    for (const n of [2, 20]) {
      const { summary } = await run(1, n, { ...DEFAULT_SESSION_SETTINGS, memoryArena: false });
      // Three rows at most: y (the If's output), t and t2 while then_add runs; in each Loop iteration acc
      // (the Loop's output), acc_next and acc_out while body_mul runs (y died at the Loop). Were the last
      // iteration's acc_next kept, n iterations would pile up n of them.
      assert.equal(summary.reconstructedPeakBytes, 3 * ROW, `n=${n}`);
      assert.equal(summary.snapshotPeakBytes, inputs + 3 * ROW, `n=${n}`);
    }
  });

  it('a parent kernel\'s arena statistics are not counted again as its scratch: its children carry their own', async () => {
    const { executed } = await run(1, 3);
    const parents = executed.trace.events.filter((e) => e.label === 'If if scratch' || e.label === 'Loop loop scratch');
    assert.deepEqual(parents, []);
  });
});
