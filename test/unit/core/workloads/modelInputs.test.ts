/**
 * What a user's model is fed: the inputs JSON (file next to the model, or the setting) parsed by the
 * module the CLI's `--input` uses, integer scalars and their defaults, int64 inputs and an initializer
 * whose data lives in an external file, each figure against bytes derived by hand.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { main } from '../../../../src/cli/main';
import { encodeModel } from '../../../../src/core/onnx/encode';
import type { OnnxGraph, OnnxModel } from '../../../../src/core/onnx/model';
import { DEFAULT_SESSION_SETTINGS } from '../../../../src/core/ort/session';
import { executeJob, finishJob } from '../../../../src/core/ort/workloadJob';
import { InputSpecError, defaultScalarValue, inputSpecsFromJson, inputsFilePath, isIntegerScalar, parseInputsFile } from '../../../../src/core/workloads/modelInputSpec';
import { openDimensions } from '../../../../src/core/workloads/onnxModelGraph';

const tmp = () => mkdtempSync(path.join(tmpdir(), 'vram-lens-inputs-'));

const modelOf = (graph: OnnxGraph): OnnxModel => ({ irVersion: 8, opsetImports: [{ domain: '', version: 17 }], producerName: 'test', producerVersion: '1', graph });

/** y = relu(x @ w), x [batch, 8] float32, w [8, 8] float32: an initializer, inline or in `external`. */
function matmulModel(external?: string): OnnxModel {
  const data = new Float32Array(64).fill(0.1);
  return modelOf({
    name: 'g',
    inputs: [{ name: 'x', elemType: 1, shape: ['batch', 8] }],
    outputs: [{ name: 'y', elemType: 1, shape: ['batch', 8] }],
    initializers: [external ? { name: 'w', elemType: 1, dims: [8, 8], external: { location: external, offset: 0, length: 256 } } : { name: 'w', elemType: 1, dims: [8, 8], data }],
    nodes: [
      { name: 'matmul', opType: 'MatMul', inputs: ['x', 'w'], outputs: ['h'] },
      { name: 'relu', opType: 'Relu', inputs: ['h'], outputs: ['y'] },
    ],
  });
}

const cli = async (args: string[]) => {
  let out = '';
  let err = '';
  const code = await main(args, { out: (t) => (out += t), err: (t) => (err += t) });
  return { code, out, err };
};
type Report = { run: { inputBytes: number; nodes: { name: string; outputBytes: number }[] } };

describe('inputs JSON (file next to the model, or the setting)', () => {
  it('takes --input text or {shape, value} per input', () => {
    assert.deepEqual(inputSpecsFromJson({ x: '2x8', sr: ':16000', m: { shape: [1, 4], value: 3 }, e: { shape: [] } }, 'test'), {
      x: { shape: [2, 8] },
      sr: { shape: [], value: 16000 },
      m: { shape: [1, 4], value: 3 },
      e: { shape: [] },
    });
  });

  it('names the source and the input in every error', () => {
    assert.throws(() => inputSpecsFromJson({ x: '2xA' }, 'f.json'), /input 'x': shape '2xA'/);
    assert.throws(() => inputSpecsFromJson({ x: { shape: '2' } }, 'f.json'), /f\.json: input 'x'/);
    assert.throws(() => inputSpecsFromJson({ x: { shape: [2], value: 'a' } }, 'f.json'), /f\.json: input 'x': value is not a number/);
    assert.throws(() => inputSpecsFromJson([1], 'f.json'), /f\.json: expected an object/);
    assert.throws(() => parseInputsFile('{', 'm.onnx.inputs.json'), (e: unknown) => e instanceof InputSpecError && /m\.onnx\.inputs\.json: not JSON/.test(e.message));
    assert.equal(inputsFilePath('/a/m.onnx'), '/a/m.onnx.inputs.json');
  });

  it('integer scalars are offered with a default: 16000 for a sample rate, else 1', () => {
    assert.ok(isIntegerScalar({ name: 'sr', elemType: 7, shape: [] }));
    assert.ok(isIntegerScalar({ name: 'k', elemType: 6, shape: [1] }));
    assert.ok(!isIntegerScalar({ name: 'ids', elemType: 7, shape: [2] }));
    assert.ok(!isIntegerScalar({ name: 'f', elemType: 1, shape: [] }));
    assert.ok(!isIntegerScalar({ name: 'u', elemType: 7, shape: undefined }));
    assert.deepEqual(['sr', 'sample_rate', 'input.sampling_rate', 'n', 'srx'].map(defaultScalarValue), [16000, 16000, 16000, 1, 1]);
  });

  it('inputs given a shape leave no dimension to ask', () => {
    const model = matmulModel();
    assert.deepEqual(openDimensions(model), ['batch']);
    assert.deepEqual(openDimensions(model, new Set(['x'])), []);
  });

  it('vram-lens run reads MODEL.onnx.inputs.json; --input overrides it; a bad entry names the input', async () => {
    const file = path.join(tmp(), 'm.onnx');
    writeFileSync(file, encodeModel(matmulModel()));
    writeFileSync(inputsFilePath(file), JSON.stringify({ x: '2x8' }));
    const fromFile = await cli(['run', file, '--ep', 'cpu', '--json']);
    assert.equal(fromFile.code, 0, fromFile.err);
    // x [2, 8] float32 = 64 B, w 256 B; h and y [2, 8] = 64 B each.
    assert.equal((JSON.parse(fromFile.out) as Report).run.inputBytes, 64 + 256);
    assert.deepEqual((JSON.parse(fromFile.out) as Report).run.nodes.map((n) => n.outputBytes), [64, 64]);
    const overridden = await cli(['run', file, '--input', 'x=4x8', '--ep', 'cpu', '--json']);
    assert.deepEqual((JSON.parse(overridden.out) as Report).run.nodes.map((n) => n.outputBytes), [128, 128]);
    writeFileSync(inputsFilePath(file), JSON.stringify({ x: { shape: [2, 'a'] } }));
    const bad = await cli(['run', file, '--ep', 'cpu']);
    assert.equal(bad.code, 1);
    assert.match(bad.err, /m\.onnx\.inputs\.json: input 'x'/);
  });
});

describe('int64 inputs and external data', () => {
  it('feeds int64 indices and an int64 scalar their values; figures from int64 element sizes', async () => {
    // e = table[ids + k]: ids int64 [2, 3] (48 B), k an int64 scalar (8 B), table [16, 4] float32 (256 B).
    const file = path.join(tmp(), 'gather.onnx');
    writeFileSync(
      file,
      encodeModel(
        modelOf({
          name: 'gather',
          inputs: [
            { name: 'ids', elemType: 7, shape: [2, 3] },
            { name: 'k', elemType: 7, shape: [] },
          ],
          outputs: [{ name: 'e', elemType: 1, shape: [2, 3, 4] }],
          initializers: [{ name: 'table', elemType: 1, dims: [16, 4], data: Float32Array.from({ length: 64 }, (_, i) => i) }],
          nodes: [
            { name: 'shift', opType: 'Add', inputs: ['ids', 'k'], outputs: ['ids2'] },
            { name: 'gather', opType: 'Gather', inputs: ['table', 'ids2'], outputs: ['e'] },
          ],
        }),
      ),
    );
    for (const k of [0, 15]) {
      const { summary } = finishJob(await executeJob({ kind: 'model', modelPath: file, dimensions: {}, inputs: { k: { shape: [], value: k } }, provider: 'cpu', settings: DEFAULT_SESSION_SETTINGS }));
      assert.equal(summary.inputBytes, 2 * 3 * 8 + 8 + 16 * 4 * 4);
      // ids2 int64 [2, 3] = 48 B; e float32 [2, 3, 4] = 96 B.
      assert.deepEqual(summary.nodes.map((n) => `${n.name} ${n.outputBytes}`), ['shift 48', 'gather 96']);
    }
    // An index past the table (k = 16) is onnxruntime's error, and the run fails with it.
    await assert.rejects(executeJob({ kind: 'model', modelPath: file, dimensions: {}, inputs: { k: { shape: [], value: 16 } }, provider: 'cpu', settings: DEFAULT_SESSION_SETTINGS }));
  });

  it('counts an initializer whose data lives in an external file at its declared size', async () => {
    const dir = tmp();
    const file = path.join(dir, 'ext.onnx');
    writeFileSync(file, encodeModel(matmulModel('ext.weights')));
    writeFileSync(path.join(dir, 'ext.weights'), new Uint8Array(new Float32Array(64).fill(0.1).buffer));
    const inline = path.join(dir, 'inline.onnx');
    writeFileSync(inline, encodeModel(matmulModel()));
    const run = async (modelPath: string) =>
      finishJob(await executeJob({ kind: 'model', modelPath, dimensions: { batch: 3 }, provider: 'cpu', settings: DEFAULT_SESSION_SETTINGS })).summary;
    const ext = await run(file);
    // x [3, 8] float32 = 96 B, w [8, 8] float32 = 256 B (from ext.weights); h and y [3, 8] = 96 B each.
    assert.equal(ext.inputBytes, 96 + 256);
    assert.deepEqual(ext.nodes.map((n) => n.outputBytes), [96, 96]);
    const same = await run(inline);
    assert.equal(ext.snapshotPeakBytes, same.snapshotPeakBytes, 'the same figures as the weights inline');
    assert.ok(encodeModel(matmulModel('ext.weights')).length < 256, 'the weights are not in the model file');
  });
});
