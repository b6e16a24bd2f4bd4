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
import { encodeModel } from '../../../../src/engine/onnx/encode';
import type { OnnxModel } from '../../../../src/engine/onnx/model';
import { DEFAULT_SESSION_SETTINGS } from '../../../../src/runtime/ort/session';
import { executeJob, finishJob } from '../../../../src/runtime/ort/workloadJob';
import { InputSpecError, checkValues, defaultScalarValue, inputSpecsFromJson, inputsFilePath, isIntegerScalar, parseInputSpec, parseInputsFile } from '../../../../src/engine/workloads/modelInputSpec';
import { openDimensions } from '../../../../src/engine/workloads/onnxModelGraph';
import { modelOf } from '../../../helpers/onnxModel';

const tmp = () => mkdtempSync(path.join(tmpdir(), 'vram-lens-inputs-'));

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
    assert.throws(() => parseInputsFile('{', 'm.onnx.inputs.json'), (e: unknown) => e instanceof InputSpecError && /m\.onnx\.inputs\.json: not valid JSON/.test(e.message));
    assert.equal(inputsFilePath('/a/m.onnx'), '/a/m.onnx.inputs.json');
  });

  it('integer scalars are offered with a default: 16000 for a sample rate, else 1', () => {
    assert.ok(isIntegerScalar({ name: 'sr', elemType: 7, shape: [] }));
    assert.ok(isIntegerScalar({ name: 'k', elemType: 6, shape: [1] }));
    assert.ok(!isIntegerScalar({ name: 'ids', elemType: 7, shape: [2] }));
    assert.ok(!isIntegerScalar({ name: 'f', elemType: 1, shape: [] }));
    assert.ok(!isIntegerScalar({ name: 'u', elemType: 7, shape: undefined }));
    // Every integer element type counts (uint8 2, int8 3, uint16 4, int16 5, uint32 12, uint64 13); a bool (9) does not.
    for (const elemType of [2, 3, 4, 5, 12, 13]) assert.ok(isIntegerScalar({ name: 'n', elemType, shape: [] }), `type ${elemType}`);
    assert.ok(!isIntegerScalar({ name: 'flag', elemType: 9, shape: [] }));
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

describe('literal values per element', () => {
  it('parses NAME=SHAPE:[v1,...] and {"shape", "values"}, one value per element', () => {
    assert.deepEqual(parseInputSpec('ids=1x3:[5,7,9]'), ['ids', { shape: [1, 3], values: [5, 7, 9] }]);
    assert.deepEqual(parseInputSpec('s=2:[3, 8]'), ['s', { shape: [2], values: [3, 8] }]);
    assert.deepEqual(parseInputSpec('k=:[4]'), ['k', { shape: [], values: [4] }]);
    assert.deepEqual(inputSpecsFromJson({ x: { shape: [1, 3], values: [1, 2.5, 3] }, y: '2:[1,2]' }, 'f.json'), {
      x: { shape: [1, 3], values: [1, 2.5, 3] },
      y: { shape: [2], values: [1, 2] },
    });
  });

  it('refuses a count that is not the shape\'s, non-numbers, and a fill beside values, naming the input', () => {
    assert.throws(() => parseInputSpec('ids=2x2:[1,2,3]'), /input 'ids': 3 values for shape \[2, 2\], which has 4 elements/);
    assert.throws(() => parseInputSpec('k=:[]'), /input 'k': 0 values for shape \[\], which has 1 element$/);
    assert.throws(() => parseInputSpec('ids=3:[1,"a",3]'), /input 'ids': values must be an array of numbers/);
    assert.throws(() => parseInputSpec('ids=3:[1,2'), /input 'ids': values '\[1,2' are not a JSON array/);
    assert.throws(() => inputSpecsFromJson({ x: { shape: [2], values: [1] } }, 'f.json'), /f\.json: input 'x': 1 values for shape \[2\]/);
    assert.throws(() => inputSpecsFromJson({ x: { shape: [1], values: [1], value: 1 } }, 'f.json'), /f\.json: input 'x': give "value" \(a fill\) or "values"/);
  });

  it('checks integers against their type\'s range; floats take any finite number', () => {
    const of = (elemType: number) => ({ name: 'v', elemType, shape: [3] });
    assert.doesNotThrow(() => checkValues(of(3), [-128, 0, 127]));
    assert.throws(() => checkValues(of(3), [0, 128, 0]), /input 'v': value 128 \(element 1\) is not a whole number in int8's range -128\.\.127/);
    assert.throws(() => checkValues(of(2), [-1, 0, 0]), /uint8's range 0\.\.255/);
    assert.throws(() => checkValues(of(7), [1.5, 0, 0]), /value 1\.5 \(element 0\) is not a whole number in int64's range/);
    assert.throws(() => checkValues(of(7), [2 ** 53, 0, 0]), /int64's range/);
    assert.throws(() => checkValues(of(6), [2 ** 31, 0, 0]), /int32's range -2147483648\.\.2147483647/);
    assert.throws(() => checkValues(of(9), [0, 1, 2]), /value 2 \(element 2\) is not a bool \(0 or 1\)/);
    assert.doesNotThrow(() => checkValues(of(1), [1e30, -0.5, 3]));
  });

  /** y = Expand(x, shape): x float32 [1, 8], shape int64 [2]; y's bytes follow the values of `shape`. */
  function expandModel(): string {
    const file = path.join(tmp(), 'expand.onnx');
    writeFileSync(
      file,
      encodeModel(
        modelOf({
          name: 'expand',
          inputs: [
            { name: 'x', elemType: 1, shape: [1, 8] },
            { name: 'shape', elemType: 7, shape: [2] },
          ],
          outputs: [{ name: 'y', elemType: 1, shape: undefined }],
          initializers: [],
          nodes: [{ name: 'expand', opType: 'Expand', inputs: ['x', 'shape'], outputs: ['y'] }],
        }),
      ),
    );
    return file;
  }

  it('feeds each element its value: Expand to [3, 8] and [5, 8] (bytes of y from the literal shape)', async () => {
    const file = expandModel();
    for (const rows of [3, 5]) {
      const run = await cli(['run', file, '--input', `shape=2:[${rows},8]`, '--ep', 'cpu', '--json']);
      assert.equal(run.code, 0, run.err);
      const report = JSON.parse(run.out) as Report;
      // x 1 x 8 float32 = 32 B, shape 2 int64 = 16 B; y rows x 8 float32.
      assert.equal(report.run.inputBytes, 32 + 16);
      assert.deepEqual(report.run.nodes.map((n) => n.outputBytes), [rows * 8 * 4]);
    }
    writeFileSync(inputsFilePath(file), JSON.stringify({ shape: { shape: [2], values: [4, 8] } }));
    const fromFile = await cli(['run', file, '--ep', 'cpu', '--json']);
    assert.deepEqual((JSON.parse(fromFile.out) as Report).run.nodes.map((n) => n.outputBytes), [4 * 8 * 4]);
  });

  it('a value outside the input\'s type and a wrong count are errors naming the input', async () => {
    const file = expandModel();
    const fraction = await cli(['run', file, '--input', 'shape=2:[2.5,8]', '--ep', 'cpu']);
    assert.equal(fraction.code, 1);
    assert.match(fraction.err, /input 'shape': value 2\.5 \(element 0\) is not a whole number in int64's range/);
    const fill = await cli(['run', file, '--input', 'shape=2:2.5', '--ep', 'cpu']);
    assert.equal(fill.code, 1);
    assert.match(fill.err, /input 'shape': value 2\.5 \(element 0\) is not a whole number in int64's range/);
    const count = await cli(['run', file, '--input', 'shape=2:[3]', '--ep', 'cpu']);
    assert.notEqual(count.code, 0);
    assert.match(count.err, /input 'shape': 1 values for shape \[2\]/);
  });

  it('integer scalars given nowhere get their default, reported in the summary', async () => {
    // e = table[ids + k] with ids zeros: k = 1 (the default) reads row 1; k named `sr` would get 16000.
    const file = path.join(tmp(), 'gather.onnx');
    const model = (k: string) =>
      modelOf({
        name: 'gather',
        inputs: [
          { name: 'ids', elemType: 7, shape: [2] },
          { name: k, elemType: 7, shape: [] },
        ],
        outputs: [{ name: 'e', elemType: 1, shape: [2, 4] }],
        initializers: [{ name: 'table', elemType: 1, dims: [16, 4], data: new Float32Array(64) }],
        nodes: [
          { name: 'shift', opType: 'Add', inputs: ['ids', k], outputs: ['ids2'] },
          { name: 'gather', opType: 'Gather', inputs: ['table', 'ids2'], outputs: ['e'] },
        ],
      });
    writeFileSync(file, encodeModel(model('k')));
    const run = await cli(['run', file, '--ep', 'cpu']);
    assert.equal(run.code, 0, run.err);
    assert.match(run.out, /integer scalars k = 1 \(defaults; --input NAME=:N to change\)/);
    writeFileSync(file, encodeModel(model('sr')));
    // sr = 16000 is past the 16-row table: onnxruntime refuses the index, so the default did reach the model
    // (its reason is passed on in our sentence, with the options that change the inputs).
    const past = await cli(['run', file, '--ep', 'cpu', '--json']);
    assert.equal(past.code, 1, past.err);
    assert.match(past.err, /onnxruntime could not run the model with these inputs: .*idx=16000/);
    assert.match(past.err, /--input NAME=SHAPE/);
    const ok = await cli(['run', file, '--input', 'sr=:3', '--ep', 'cpu', '--json']);
    assert.equal((JSON.parse(ok.out) as { run: { scalarDefaults?: unknown } }).run.scalarDefaults, undefined, 'nothing defaulted');
  });
});
