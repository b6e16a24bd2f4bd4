/**
 * Running workloads as a user meets it: which execution provider is chosen and why, the onnxruntime
 * profile read back, a user's ONNX model mapped to its source lines (or to its node list), the run in
 * its worker thread (and cancelled), and `vram-lens run` on the command line.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { main } from '../../../../src/cli/main';
import { hasEngineText } from '../../../../src/engine/base/errors';
import { snapshotFromBytes } from '../../../../src/engine/decode/load';
import { decodeModel } from '../../../../src/engine/onnx/decode';
import { encodeModel } from '../../../../src/engine/onnx/encode';
import type { OnnxModel } from '../../../../src/engine/onnx/model';
import { DeviceMemoryRecorder, openNvml } from '../../../../src/runtime/ort/nvml';
import { CUDA_NOT_INSTALLED, providerCandidates, webgpuUnusableReason } from '../../../../src/runtime/ort/providers';
import { DEFAULT_SESSION_SETTINGS } from '../../../../src/runtime/ort/session';
import { JobError, executeJob, finishJob } from '../../../../src/runtime/ort/workloadJob';
import { runWorkload } from '../../../../src/runtime/ort/workloadRunner';
import { openSnapshot } from '../../../../src/runtime/input/snapshotFile';
import { decodePickle } from '../../../../src/engine/pickle/decoder';
import { encodePickle } from '../../../../src/engine/pickle/encoder';
import { CancelledError } from '../../../../src/runtime/worker/client';
import { GraphBuilder } from '../../../../src/engine/workloads/graphBuilder';
import { modelInputs } from '../../../../src/engine/workloads/onnxModelGraph';
import { ProfileFormatError, parseOrtProfile } from '../../../../src/engine/workloads/ortProfile';
import { parseExactJson, referenceAnalysis, repoRoot, withSpecNames } from '../../../helpers/corpus';
import { modelOf } from '../../../helpers/onnxModel';

const tmp = () => mkdtempSync(path.join(tmpdir(), 'vram-lens-runtime-'));

describe('execution provider choice', () => {
  it('auto tries CUDA, then WebGPU, then the CPU, and says why it skipped one', () => {
    assert.deepEqual(providerCandidates('auto', { cudaLibrary: true, webgpuUnusable: undefined }).candidates, ['cuda', 'webgpu', 'cpu']);
    const noGpu = providerCandidates('auto', { cudaLibrary: false, webgpuUnusable: 'no Vulkan driver is installed' });
    assert.deepEqual(noGpu.candidates, ['cpu']);
    assert.deepEqual(noGpu.skipped, [
      { provider: 'cuda', reason: CUDA_NOT_INSTALLED },
      { provider: 'webgpu', reason: 'no Vulkan driver is installed' },
    ]);
  });

  it('an explicit choice is tried alone, except CUDA without its library', () => {
    assert.deepEqual(providerCandidates('webgpu', { cudaLibrary: false, webgpuUnusable: 'x' }).candidates, ['webgpu']);
    assert.deepEqual(providerCandidates('cuda', { cudaLibrary: false, webgpuUnusable: undefined }).candidates, []);
  });

  it('auto does not pick WebGPU on a software Vulkan rasteriser (lavapipe)', { skip: process.platform !== 'linux' }, () => {
    const gpu = () => true;
    assert.match(webgpuUnusableReason({ VK_ICD_FILENAMES: '/usr/share/vulkan/icd.d/lvp_icd.x86_64.json' }, gpu) ?? '', /software rasteriser/);
    assert.equal(webgpuUnusableReason({ VK_ICD_FILENAMES: '/usr/share/vulkan/icd.d/nvidia_icd.json' }, gpu), undefined);
    // Mesa's hardware drivers are installed with lavapipe, but without a GPU device they find nothing.
    assert.match(webgpuUnusableReason({ VK_ICD_FILENAMES: '/usr/share/vulkan/icd.d/intel_icd.json' }, () => false) ?? '', /no GPU device/);
  });
});

describe('onnxruntime profile', () => {
  const kernel = (name: string, ts: number, args: Record<string, unknown>) => ({ cat: 'Node', name: `${name}_kernel_time`, ts, dur: 5, ph: 'X', args });
  const arena = { mem_bytes_requested_in_use: '100', mem_bytes_in_use: '128', mem_requested_in_use_delta: '100', mem_in_use_peak: '128' };

  it('splits kernels by model_run and reads shapes, providers and arena statistics', () => {
    const text = JSON.stringify([
      { cat: 'Session', name: 'model_run', ts: 0, dur: 50 },
      kernel('a', 10, { op_name: 'MatMul', node_index: '0', provider: 'CPUExecutionProvider', output_type_shape: [{ float: [2, 3] }], ...arena }),
      { cat: 'Session', name: 'model_run', ts: 100, dur: 50 },
      kernel('b', 120, { op_name: 'Relu', node_index: '1', provider: 'CPUExecutionProvider', output_type_shape: [{ int64: [4] }, { float16: [] }], ...arena }),
      kernel('a', 110, { op_name: 'MatMul', node_index: '0', provider: 'CPUExecutionProvider' }),
    ]);
    const runs = parseOrtProfile(text);
    assert.equal(runs.length, 2);
    assert.deepEqual(
      runs[1].nodes.map((n) => n.name),
      ['a', 'b'],
    );
    assert.deepEqual(runs[0].nodes[0].outputBytes, [24]);
    assert.deepEqual(runs[1].nodes[1].outputBytes, [32, 2]);
    assert.deepEqual(runs[0].nodes[0].arena, { requestedInUse: 100, inUse: 128, requestedDelta: 100, runningPeak: 128 });
    assert.equal(runs[1].nodes[0].arena, undefined);
  });

  it('takes all-zero statistics (WebGPU) as no measurement, and rejects what is not a profile', () => {
    const zeros = { mem_bytes_requested_in_use: '0', mem_bytes_in_use: '0', mem_requested_in_use_delta: '0', mem_in_use_peak: '0' };
    assert.equal(parseOrtProfile(JSON.stringify([kernel('a', 1, zeros)]))[0].nodes[0].arena, undefined);
    assert.throws(() => parseOrtProfile('{"not": "a list"}'), ProfileFormatError);
    assert.throws(() => parseOrtProfile('[{'), ProfileFormatError);
  });
});

/** y = relu(x @ w) + x, with w an initializer: MatMul carries a dynamo stack trace, Relu a TorchScript doc string, Add nothing. */
function userModel(): OnnxModel {
  return modelOf({
    name: 'g',
    inputs: [{ name: 'x', elemType: 1, shape: ['batch', 8] }],
    outputs: [{ name: 'y', elemType: 1, shape: ['batch', 8] }],
    initializers: [{ name: 'w', elemType: 1, dims: [8, 8], data: new Float32Array(64).fill(0.1) }],
    nodes: [
      {
        name: 'matmul',
        opType: 'MatMul',
        inputs: ['x', 'w'],
        outputs: ['h'],
        metadata: {
          'pkg.torch.onnx.stack_trace':
            'File "/home/u/train.py", line 40, in main\n    out = model(x)\nFile "/home/u/model.py", line 12, in forward\n    h = x @ self.w',
        },
      },
      { name: 'relu', opType: 'Relu', inputs: ['h'], outputs: ['r'], docString: '/home/u/model.py(13): forward\n/home/u/train.py(40): main\n' },
      { name: 'add', opType: 'Add', inputs: ['r', 'x'], outputs: ['y'] },
    ],
  });
}

describe('profiling a user ONNX model', () => {
  const file = path.join(tmp(), 'tiny.onnx');
  writeFileSync(file, encodeModel(userModel()));

  it('maps nodes to the source lines the exporter recorded, and the rest to the model pseudo-file', async () => {
    const executed = await executeJob({ kind: 'model', modelPath: file, dimensions: { batch: 4 }, provider: 'cpu', settings: DEFAULT_SESSION_SETTINGS });
    const { summary } = finishJob(executed);
    assert.equal(summary.nodesWithSource, 2);
    assert.deepEqual(
      summary.nodes.map((n) => `${n.name} ${n.file}:${n.line}`),
      ['matmul /home/u/model.py:12', 'relu /home/u/model.py:13', `add onnx:${file}:3`],
    );
    // The stack trace's outer frame is kept as a caller: inclusive figures reach train.py:40.
    const matmul = executed.trace.nodes[0].frames.map((f) => `${f.filename}:${String(f.line)}`);
    assert.deepEqual(matmul, ['/home/u/model.py:12', '/home/u/train.py:40']);
    // 4x8 float32 input, 8x8 initializer, three 4x8 intermediates.
    assert.equal(summary.inputBytes, 4 * 8 * 4 + 8 * 8 * 4);
    assert.deepEqual(
      summary.nodes.map((n) => n.outputBytes),
      [128, 128, 128],
    );
  });

  it('counts an initializer once: as a pre-existing tensor, not again inside the arena\'s measured figure', async () => {
    // x [1,512] fed, w [512,512] a 1 MiB initializer, y = x @ w and z = relu(y), [1,512] each.
    const g = new GraphBuilder('weights', 'f').at({ function: 'f', statement: 'y' });
    g.input('x', [1, 512]);
    g.constant('w', new Array<number>(512 * 512).fill(0.01), [512, 512]);
    g.op('Relu', [g.op('MatMul', ['x', 'w'], 'y')], 'z');
    g.output('z');
    const weights = path.join(tmp(), 'weights.onnx');
    writeFileSync(weights, encodeModel(g.build().model));
    const { summary } = finishJob(await executeJob({ kind: 'model', modelPath: weights, dimensions: {}, provider: 'cpu', settings: DEFAULT_SESSION_SETTINGS }));
    const x = 512 * 4;
    const w = 512 * 512 * 4;
    const y = 512 * 4;
    const z = 512 * 4;
    assert.equal(summary.figures, 'measured');
    assert.equal(summary.inputBytes, x + w);
    // The arena reports w + y + z in use after the Relu (z is a graph output: no in-place); w is taken out.
    assert.equal(summary.measuredPeakBytes, y + z);
    assert.equal(summary.snapshotPeakBytes, x + w + y + z, 'every byte once: not w twice');
  });

  it('counts Constant-node weights once, as weights on their own line (value tensor and value_floats)', async () => {
    // y = x @ W with W [512,512] a Constant's `value` (1 MiB); z = y + b with b a Constant's value_floats (512 floats).
    const model: OnnxModel = modelOf({
      name: 'constants',
      nodes: [
        {
          name: 'W',
          opType: 'Constant',
          inputs: [],
          outputs: ['w'],
          attributes: { value: { kind: 'tensor', value: { name: 'w', elemType: 1, dims: [512, 512], data: new Float32Array(512 * 512).fill(0.01) } } },
        },
        { name: 'B', opType: 'Constant', inputs: [], outputs: ['b'], attributes: { value_floats: { kind: 'floats', value: new Array<number>(512).fill(0.5) } } },
        { name: 'matmul', opType: 'MatMul', inputs: ['x', 'w'], outputs: ['y'] },
        { name: 'add', opType: 'Add', inputs: ['y', 'b'], outputs: ['z'] },
      ],
      inputs: [{ name: 'x', elemType: 1, shape: [1, 512] }],
      outputs: [{ name: 'z', elemType: 1, shape: [1, 512] }],
      initializers: [],
    });
    const file = path.join(tmp(), 'constants.onnx');
    writeFileSync(file, encodeModel(model));
    const decoded = decodeModel(readFileSync(file));
    assert.deepEqual(decoded.graph.nodes.map((n) => n.constant), [{ elemType: 1, dims: [512, 512] }, { elemType: 1, dims: [512] }, undefined, undefined]);
    const executed = await executeJob({ kind: 'model', modelPath: file, dimensions: {}, provider: 'cpu', settings: DEFAULT_SESSION_SETTINGS });
    const { summary } = finishJob(executed);
    const x = 512 * 4;
    const w = 512 * 512 * 4;
    const b = 512 * 4;
    const y = 512 * 4;
    const z = 512 * 4;
    assert.equal(summary.inputBytes, x + w + b, 'the constants are pre-existing weights');
    assert.equal(summary.measuredPeakBytes, y + z, 'and not again inside the arena');
    assert.equal(summary.snapshotPeakBytes, x + w + b + y + z);
    // W's bytes are on W's own line of the model pseudo-file (node 1), b's on node 2.
    const weights = executed.trace.events.filter((e) => e.kind === 'alloc' && (e.label === 'input w' || e.label === 'input b'));
    assert.deepEqual(
      weights.map((e) => `${e.bytes} ${String(e.frames[0].line)}`),
      [`${w} 1`, `${b} 2`],
    );
  });

  it('counts a sparse initializer at its dense size, and does not feed it when the model lists it as an input', async () => {
    // w: [512,512] float32 with 3 non-zeros, dense 1 MiB once onnxruntime loads it; also a graph input, as older exporters write.
    const model: OnnxModel = modelOf({
      name: 'sparse',
      nodes: [
        { name: 'matmul', opType: 'MatMul', inputs: ['x', 'w'], outputs: ['y'] },
        { name: 'relu', opType: 'Relu', inputs: ['y'], outputs: ['z'] },
      ],
      inputs: [
        { name: 'x', elemType: 1, shape: [1, 512] },
        { name: 'w', elemType: 1, shape: [512, 512] },
      ],
      outputs: [{ name: 'z', elemType: 1, shape: [1, 512] }],
      initializers: [],
      sparseInitializers: [{ name: 'w', elemType: 1, dims: [512, 512], values: Float32Array.from([1, 2, 3]), indices: BigInt64Array.from([0n, 513n, 262143n]) }],
    });
    const file = path.join(tmp(), 'sparse.onnx');
    writeFileSync(file, encodeModel(model));
    const decoded = decodeModel(readFileSync(file));
    assert.deepEqual(decoded.graph.sparseInitializers, [{ name: 'w', elemType: 1, dims: [512, 512] }]);
    assert.deepEqual(modelInputs(decoded).map((i) => i.name), ['x'], 'w is not fed (zeros would override its values)');
    const { summary } = finishJob(await executeJob({ kind: 'model', modelPath: file, dimensions: {}, provider: 'cpu', settings: DEFAULT_SESSION_SETTINGS }));
    const x = 512 * 4;
    const w = 512 * 512 * 4;
    assert.equal(summary.inputBytes, x + w, 'x fed, w a weight at its dense size');
    assert.equal(summary.snapshotPeakBytes, x + w + summary.measuredPeakBytes!);
    assert.ok(summary.measuredPeakBytes! <= 2 * 512 * 4, `${summary.measuredPeakBytes}: w is not counted again`);
  });

  it('asks for every open dimension', async () => {
    await assert.rejects(executeJob({ kind: 'model', modelPath: file, dimensions: {}, provider: 'cpu', settings: DEFAULT_SESSION_SETTINGS }), JobError);
    await assert.rejects(
      executeJob({ kind: 'model', modelPath: path.join(tmp(), 'missing.onnx'), dimensions: {}, provider: 'cpu', settings: DEFAULT_SESSION_SETTINGS }),
      /cannot read the model: .*missing\.onnx: no such file/,
    );
  });
});

describe('workload runs', () => {
  const samplePath = path.join(repoRoot, 'media', 'samples', 'similarity.py');
  const request = {
    kind: 'builtin',
    workload: 'similarity',
    variant: 'inplace',
    size: 'tiny',
    samplePath,
    sampleText: readFileSync(samplePath, 'utf8'),
    provider: 'cpu',
    settings: DEFAULT_SESSION_SETTINGS,
  } as const;
  const workerScript = path.join(repoRoot, 'out', 'src', 'runtime', 'ort', 'workloadWorker.js');

  it('runs in its worker thread and hands back a snapshot our decoder reads', async () => {
    const progress: string[] = [];
    const result = await runWorkload(request, { workerScript, onProgress: (m) => progress.push(m) });
    assert.equal(result.summary.provider, 'cpu');
    assert.ok(progress.includes('running under the onnxruntime profiler'), progress.join(' / '));
    // The snapshot crosses from the worker as the plain values of its pickle: our decoder reads that pickle
    // to the same values, and the model built from them is the one the pickle decodes to.
    const decoded = decodePickle(encodePickle(result.snapshot)) as { device_traces: unknown[][]; vram_lens: { summary: { title: string } } };
    assert.equal(decoded.vram_lens.summary.title, 'similarity inplace (tiny)');
    assert.ok(decoded.device_traces[0].length > 10);
    assert.deepStrictEqual((await openSnapshot({ kind: 'value', value: result.snapshot })).snapshot, snapshotFromBytes(encodePickle(result.snapshot)));
  });

  it('is cancelled by its signal', async () => {
    const abort = new AbortController();
    const run = runWorkload(request, { workerScript, signal: abort.signal });
    abort.abort();
    await assert.rejects(run, CancelledError);
  });

  it('writes pickles our decoder reads back equal', () => {
    const value = { a: [1, 2.5, 'x', null, true, { b: [] }], big: 18446744073709551615n, shared: [[1], [2]] };
    assert.deepEqual(decodePickle(encodePickle(value)), value);
  });
});

describe('device memory line (NVML)', () => {
  it('is quietly not available without an NVIDIA driver', { skip: existsSync('/dev/nvidia0') ? 'this machine has an NVIDIA GPU' : false }, () => {
    assert.equal(openNvml(), undefined);
  });

  it('a recorder samples its probe until stopped, then closes it', async () => {
    let value = 0;
    let closed = false;
    const recorder = new DeviceMemoryRecorder({ devices: 1, sample: () => (value += 100), close: () => (closed = true) }, 1);
    recorder.start();
    await new Promise((r) => setTimeout(r, 20));
    const { timeUs, bytes } = recorder.stop();
    assert.ok(bytes.length >= 3, `${bytes.length} samples`);
    assert.deepEqual(bytes, bytes.map((_, i) => 100 * (i + 1)));
    assert.deepEqual([...timeUs].sort((a, b) => a - b), timeUs);
    assert.ok(closed);
  });

  it('travels in the snapshot to the model, for the timeline', async () => {
    const samplePath = path.join(repoRoot, 'media', 'samples', 'similarity.py');
    const executed = await executeJob({
      kind: 'builtin',
      workload: 'similarity',
      variant: 'inplace',
      size: 'tiny',
      samplePath,
      sampleText: readFileSync(samplePath, 'utf8'),
      provider: 'cpu',
      settings: DEFAULT_SESSION_SETTINGS,
    });
    const { snapshot, summary } = finishJob(executed, { timeUs: [1_000, 2_000, 3_000], bytes: [10, 30, 20] });
    assert.equal(summary.deviceMemoryPeakBytes, 30);
    const measured = snapshotFromBytes(encodePickle(snapshot)).measuredDeviceMemory;
    assert.equal(measured?.source, 'nvml');
    assert.deepEqual([...measured.timeUs], [1_000, 2_000, 3_000]);
    assert.deepEqual([...measured.bytes], [10, 30, 20]);
    assert.equal(snapshotFromBytes(encodePickle(finishJob(executed).snapshot)).measuredDeviceMemory, undefined);
  });
});

describe('vram-lens run', () => {
  const cli = async (args: string[]) => {
    let out = '';
    let err = '';
    const code = await main(args, { out: (t) => (out += t), err: (t) => (err += t) });
    return { code, out, err };
  };

  it('prints the execution provider, whether figures are measured, and the analyze summary', async () => {
    const r = await cli(['run', 'similarity', '--variant', 'inplace', '--size', 'tiny', '--ep', 'cpu']);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^similarity inplace \(tiny\) on the cpu execution provider/);
    assert.match(r.out, /figures {9}measured: intermediates peak [\d.]+ KiB measured by onnxruntime's arena/);
    assert.match(r.out, /device 0: \d+ events/);
    assert.match(r.out, /live@peak/);
  });

  it('--json adds the run to the analyze report, and --save keeps the snapshot', async () => {
    const save = path.join(tmp(), 'run.pickle');
    const r = await cli(['run', 'train-step', '--size', 'tiny', '--ep', 'cpu', '--json', '--save', save]);
    assert.equal(r.code, 0, r.err);
    const report = JSON.parse(r.out) as { devices: { peakBytes: number }[]; run: { provider: string; figures: string; snapshotPeakBytes: number } };
    assert.equal(report.run.provider, 'cpu');
    assert.equal(report.run.figures, 'measured');
    assert.equal(report.devices[0].peakBytes, report.run.snapshotPeakBytes);
    const saved = await cli(['analyze', save, '--json']);
    assert.equal((JSON.parse(saved.out) as { devices: { peakBytes: number }[] }).devices[0].peakBytes, report.devices[0].peakBytes);
  });

  it('every subcommand answers --help and -h with its usage on stdout (exit 0); after `--` it is an argument', async () => {
    for (const command of ['analyze', 'diff', 'advise', 'run']) {
      for (const flag of ['--help', '-h']) {
        const r = await cli([command, 'similarity', flag]);
        assert.equal(r.code, 0, `${command} ${flag}: ${r.err}`);
        assert.equal(r.err, '');
        assert.ok(r.out.startsWith(`usage: vram-lens ${command} `), r.out);
      }
    }
    const r = await cli(['run', '--', '--help']);
    assert.equal(r.code, 2);
    assert.match(r.err, /unknown workload '--help'/);
  });

  it("npm start's snapshot and Open Sample's are this project's own (the built-in workloads) and analyze reads them as the oracle does", async () => {
    const samples = [
      { file: 'similarity-eager.pickle', workload: { id: 'similarity', variant: 'eager', size: 'medium' }, source: 'media/samples/similarity.py' },
      { file: 'train-step.pickle', workload: { id: 'train-step', variant: 'plain', size: 'small' }, source: 'media/samples/train_step.py' },
    ];
    for (const sample of samples) {
      const file = path.join(repoRoot, 'media', 'samples', sample.file);
      const decoded = decodePickle(readFileSync(file)) as { vram_lens: { producer: string; summary: { workload: { id: string; variant: string } } } };
      assert.equal(decoded.vram_lens.producer, 'vram-lens');
      assert.deepEqual(decoded.vram_lens.summary.workload, sample.workload);
      const r = await cli(['analyze', file, '--json']);
      assert.equal(r.code, 0, r.err);
      const ours = parseExactJson(r.out) as { devices: Record<string, unknown>[] };
      const ref = (referenceAnalysis([file])[file] as { devices: Record<string, unknown>[] }).devices;
      const strip = ({ oomCount: _o, liveBlocksAtEnd: _l, activeTimelineChecksum: _a, reservedTimelineChecksum: _r, ...rest }: Record<string, unknown>) => rest;
      assert.deepEqual(ours.devices.map(withSpecNames).map(strip), ref.map(strip));
      // Its lines are the sample's, by a path relative to the repository.
      const lines = (ref[0].lines as { file: string }[]).map((l) => l.file);
      assert.ok(lines.length > 0 && lines.every((f) => f === sample.source), lines.join());
      // Figures in the MiB-GiB range (issue 24: the default sizes), not a few KiB.
      assert.ok((ref[0].peakBytes as number) >= 16 * 2 ** 20, `${sample.file}: peak ${String(ref[0].peakBytes)}`);
    }
  });

  it('profiles a user model with --input NAME=SHAPE[:VALUE] and --dim NAME=N, with the figures executeJob gives', async () => {
    const file = path.join(tmp(), 'user.onnx');
    writeFileSync(file, encodeModel(userModel()));
    const viaJob = finishJob(await executeJob({ kind: 'model', modelPath: file, dimensions: { batch: 4 }, provider: 'cpu', settings: DEFAULT_SESSION_SETTINGS })).summary;
    type Report = { run: { model: string; inputBytes: number; reconstructedPeakBytes: number; nodes: { name: string; outputBytes: number }[] } };
    for (const options of [['--dim', 'batch=4'], ['--input', 'x=4x8:0.25'], ['--input', 'x=4,8']]) {
      const r = await cli(['run', file, ...options, '--ep', 'cpu', '--json']);
      assert.equal(r.code, 0, r.err);
      const run = (JSON.parse(r.out) as Report).run;
      assert.equal(run.model, file);
      // x [4,8] float32 (128 B) and w [8,8] (256 B); three [4,8] intermediates.
      assert.equal(run.inputBytes, 4 * 8 * 4 + 8 * 8 * 4);
      assert.equal(run.inputBytes, viaJob.inputBytes);
      assert.equal(run.reconstructedPeakBytes, viaJob.reconstructedPeakBytes);
      assert.deepEqual(run.nodes.map((n) => n.outputBytes), [128, 128, 128]);
    }
    // A batch of 2 through --input: half the bytes.
    const half = await cli(['run', file, '--input', 'x=2x8', '--ep', 'cpu', '--json']);
    assert.deepEqual((JSON.parse(half.out) as Report).run.nodes.map((n) => n.outputBytes), [64, 64, 64]);
  });

  it('names the input when a model run cannot be set up', async () => {
    const file = path.join(tmp(), 'user.onnx');
    writeFileSync(file, encodeModel(userModel()));
    const cases: [string[], number, RegExp][] = [
      [['--input', 'y=4x8'], 1, /the model has no input 'y' \(its inputs: x\)/],
      [['--input', 'x=4x8x1'], 1, /input 'x': the model declares 2 dimensions, the spec gives 3/],
      [['--input', 'x=4x9'], 1, /input 'x': dimension 1 is 8 in the model, 9 in the spec/],
      [['--input', 'x=4xA'], 2, /--input input 'x': shape '4xA'/],
      [['--input', 'x=4x8:abc'], 2, /value 'abc' is not a number/],
      [['--variant', 'eager'], 2, /--variant is for the built-in workloads/],
    ];
    for (const [options, code, message] of cases) {
      const r = await cli(['run', file, ...options, '--ep', 'cpu']);
      assert.equal(r.code, code, `${options.join(' ')}: ${r.err}`);
      assert.match(r.err, message);
    }
  });

  it('gives an open dimension nobody sized 1, and says so (issue 24 item 6)', async () => {
    const file = path.join(tmp(), 'user.onnx');
    writeFileSync(file, encodeModel(userModel()));
    const text = await cli(['run', file, '--ep', 'cpu']);
    assert.equal(text.code, 0, text.err);
    assert.match(text.out, /\n {2}dimensions {6}batch = 1 \(defaults; --dim NAME=N to change\)\n/);
    const json = await cli(['run', file, '--ep', 'cpu', '--json']);
    const run = (JSON.parse(json.out) as { run: { dimensionDefaults?: Record<string, number>; inputBytes: number; nodes: { outputBytes: number }[] } }).run;
    assert.deepEqual(run.dimensionDefaults, { batch: 1 });
    // x [1,8] float32 (32 B) and w [8,8] (256 B); three [1,8] intermediates.
    assert.equal(run.inputBytes, 1 * 8 * 4 + 8 * 8 * 4);
    assert.deepEqual(run.nodes.map((n) => n.outputBytes), [32, 32, 32]);
    // Given a size, nothing is chosen and the header says nothing of it.
    const sized = await cli(['run', file, '--dim', 'batch=4', '--ep', 'cpu']);
    assert.equal(sized.code, 0, sized.err);
    assert.doesNotMatch(sized.out, /dimensions {6}/);
  });

  it('a model that fails with the size chosen by default names it, --dim NAME=N and --input, in our words', async () => {
    // Reshape x [batch, 8] to a fixed [4, 8]: only batch = 4 runs.
    const file = path.join(tmp(), 'fixed-batch.onnx');
    writeFileSync(
      file,
      encodeModel(
        modelOf({
          name: 'g',
          inputs: [{ name: 'x', elemType: 1, shape: ['p2o.DynamicDimension.0', 8] }],
          outputs: [{ name: 'y', elemType: 1, shape: [4, 8] }],
          initializers: [{ name: 'shape', elemType: 7, dims: [2], data: BigInt64Array.from([4n, 8n]) }],
          nodes: [{ name: 'reshape', opType: 'Reshape', inputs: ['x', 'shape'], outputs: ['y'] }],
        }),
      ),
    );
    const r = await cli(['run', file, '--ep', 'cpu']);
    assert.equal(r.code, 1, r.err);
    assert.match(r.err, /^vram-lens: onnxruntime could not run the model with these inputs: /);
    assert.match(r.err, /it ran with 'p2o\.DynamicDimension\.0' = 1, sizes chosen by default/);
    assert.match(r.err, /--dim NAME=N/);
    assert.match(r.err, /--input NAME=SHAPE/);
    assert.ok(!hasEngineText(r.err), r.err);
    const fixed = await cli(['run', file, '--dim', 'p2o.DynamicDimension.0=4', '--ep', 'cpu']);
    assert.equal(fixed.code, 0, fixed.err);
  });

  it('rejects unknown workloads, variants, sizes and providers with usage errors', async () => {
    for (const args of [['run'], ['run', 'resnet'], ['run', 'similarity', '--variant', 'plain'], ['run', 'similarity', '--size', 'huge'], ['run', 'similarity', '--ep', 'tpu']]) {
      const r = await cli(args);
      assert.equal(r.code, 2, args.join(' '));
      assert.match(r.err, /^vram-lens: /);
    }
  });

  it('accepts an older variant name and names an unknown one as given', async () => {
    const old = await cli(['run', 'similarity', '--variant', 'baseline', '--size', 'tiny', '--ep', 'cpu']);
    assert.equal(old.code, 0, old.err);
    assert.match(old.out, /^similarity eager \(tiny\) on the cpu execution provider/);
    const unknown = await cli(['run', 'similarity', '--variant', 'plain']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.err, /similarity has no variant 'plain' \(choose eager, cleanup, inplace\)/);
  });
});
