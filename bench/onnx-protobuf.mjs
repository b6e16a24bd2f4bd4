// The ONNX protobuf reader and writer (src/engine/onnx) on a large model of our own making: decoding
// (bytes to the engine's model) and encoding, in one process, median of rounds. With --pbjs FILE (a
// module generated from ONNX's onnx.proto by protobufjs-cli, outside this repository, e.g.
// `npm install protobufjs protobufjs-cli` in a scratch folder, then `npx pbjs -t static-module -w
// commonjs --no-verify --no-convert --no-delimited --no-create --no-service -o onnx_pb.js onnx.proto`),
// the same bytes through protobufjs side by side: the figures README.md ("Dependencies") quotes.
//
//   npm run compile-tests && node --expose-gc bench/onnx-protobuf.mjs [--nodes N] [--weights MiB] [--pbjs FILE]
import { createRequire } from 'node:module';
import * as path from 'node:path';
import { repoRoot } from './common.mjs';

const require = createRequire(import.meta.url);
const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const nodes = Number(option('--nodes', 20000));
const weightMiB = Number(option('--weights', 256));
const pbjsFile = option('--pbjs', undefined);
const { encodeModel } = require(path.join(repoRoot, 'out', 'src', 'engine', 'onnx', 'encode.js'));
const { decodeModel } = require(path.join(repoRoot, 'out', 'src', 'engine', 'onnx', 'decode.js'));
const pb = pbjsFile === undefined ? undefined : require(path.resolve(pbjsFile)).onnx;

// 200 float weights, and a chain of nodes with two attributes and a stack trace each (as exporters write).
const per = Math.max(1, Math.floor((weightMiB * 1024 * 1024) / 4 / 200));
const initializers = Array.from({ length: 200 }, (_, i) => ({ name: `w${i}`, elemType: 1, dims: [per], data: new Float32Array(per).fill(i) }));
const chain = Array.from({ length: nodes }, (_, i) => ({
  name: `n${i}`,
  opType: ['MatMul', 'Add', 'Relu'][i % 3],
  inputs: [`t${i}`, `w${i % 200}`],
  outputs: [`t${i + 1}`],
  attributes: { axis: { kind: 'int', value: i % 4 }, perm: { kind: 'ints', value: [0, 2, 1, 3] } },
  metadata: { 'pkg.torch.onnx.stack_trace': `File "model.py", line ${i}` },
}));
const info = (name) => ({ name, elemType: 1, shape: [1, 'n', 64] });
const model = {
  irVersion: 9,
  opsetImports: [{ domain: '', version: 17 }],
  producerName: 'vram-lens bench',
  producerVersion: '1',
  graph: { name: 'g', nodes: chain, inputs: [info('t0')], outputs: [info(`t${nodes}`)], initializers },
};

const ms = (run) => {
  const start = process.hrtime.bigint();
  const value = run();
  return [Number(process.hrtime.bigint() - start) / 1e6, value];
};
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const bytes = encodeModel(model);
const decoded = pb?.ModelProto.decode(bytes);
/** Collects garbage before each timed step when Node runs with --expose-gc, so no step pays for the one before. */
const settle = () => globalThis.gc?.();
const rows = { decode: [], encode: [], pbjsDecode: [], pbjsEncode: [], decodeRatio: [], encodeRatio: [] };
for (let round = 0; round < 11; round++) {
  // The two readers, then the two writers, each pair in alternating order.
  const steps = {
    decode: () => decodeModel(bytes),
    pbjsDecode: () => pb.ModelProto.decode(bytes),
    encode: () => encodeModel(model),
    pbjsEncode: () => pb.ModelProto.encode(decoded).finish(),
  };
  const pairs = pb === undefined ? [['decode'], ['encode']] : [['decode', 'pbjsDecode'], ['encode', 'pbjsEncode']];
  const times = {};
  for (const pair of pairs) {
    for (const step of round % 2 === 0 ? pair : [...pair].reverse()) {
      settle();
      times[step] = ms(steps[step])[0];
    }
  }
  for (const [step, t] of Object.entries(times)) rows[step].push(t);
  if (pb === undefined) continue;
  rows.decodeRatio.push(times.decode / times.pbjsDecode);
  rows.encodeRatio.push(times.encode / times.pbjsEncode);
}
const out = { nodes, weightMiB, modelMiB: +(bytes.length / 2 ** 20).toFixed(1) };
for (const [key, values] of Object.entries(rows)) if (values.length > 0) out[key] = +median(values).toFixed(key.endsWith('Ratio') ? 2 : 1);
process.stdout.write(JSON.stringify(out) + '\n');
