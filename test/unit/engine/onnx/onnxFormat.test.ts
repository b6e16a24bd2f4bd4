/**
 * ONNX model bytes: the wire format written by hand-derived expectations, models that round-trip
 * through our encoder and decoder, and bad input that must end in an OnnxFormatError (never a hang,
 * a RangeError or a silently wrong model).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeModel } from '../../../../src/engine/onnx/decode';
import { encodeModel } from '../../../../src/engine/onnx/encode';
import { OnnxFormatError } from '../../../../src/engine/onnx/errors';
import type { OnnxModel } from '../../../../src/engine/onnx/model';
import { ProtoReader, ProtoWriter, fieldInts } from '../../../../src/engine/onnx/protobuf';
import { seededRandom } from '../../../../src/engine/workloads/catalog';

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

describe('protobuf wire format', () => {
  it('writes varints, negative int64, strings and packed lists as protoc does', () => {
    // Field 1 varint 150 -> 08 96 01 (the protobuf documentation's example).
    assert.equal(hex(new ProtoWriter().varint(1, 150).finish()), '089601');
    // Field 2 string "ab" -> tag 0x12, length 2.
    assert.equal(hex(new ProtoWriter().string(2, 'ab').finish()), '12026162');
    // int64 -1 is ten bytes of two's complement.
    assert.equal(hex(new ProtoWriter().varint(3, -1).finish()), '18ffffffffffffffffff01');
    // Packed [3, 270] -> tag (4<<3|2), length 3, 03 8e 02.
    assert.equal(hex(new ProtoWriter().packedVarints(4, [3, 270]).finish()), '2203038e02');
    // float 1.0 -> tag (5<<3|5), 00 00 80 3f.
    assert.equal(hex(new ProtoWriter().float(5, 1).finish()), '2d0000803f');
  });

  it('reads back what it writes, including large and negative numbers', () => {
    const values = [0, 1, 127, 128, 2 ** 31, 2 ** 40 + 5, Number.MAX_SAFE_INTEGER, -1, -300];
    const w = new ProtoWriter();
    for (const v of values) w.varint(1, v);
    w.packedVarints(2, values);
    const reader = new ProtoReader(w.finish());
    const read: number[] = [];
    let packed: number[] = [];
    for (let f = reader.next(); f; f = reader.next()) {
      if (f.number === 1) read.push(f.value);
      else packed = fieldInts(f);
    }
    assert.deepEqual(read, values);
    assert.deepEqual(packed, values);
  });
});

const sample: OnnxModel = {
  irVersion: 8,
  opsetImports: [
    { domain: '', version: 17 },
    { domain: 'com.microsoft', version: 1 },
  ],
  producerName: 'pytorch',
  producerVersion: '2.5.0',
  graph: {
    name: 'main_graph',
    inputs: [
      { name: 'input_ids', elemType: 7, shape: ['batch', 'sequence'] },
      { name: 'mask', elemType: 9, shape: [undefined, 128] },
    ],
    outputs: [{ name: 'logits', elemType: 1, shape: ['batch', 128, 50257] }],
    initializers: [{ name: 'weight', elemType: 1, dims: [50257, 768], data: new Float32Array(4) }],
    nodes: [
      {
        name: 'node_embedding',
        opType: 'Gather',
        inputs: ['weight', 'input_ids'],
        outputs: ['embedded'],
        attributes: { axis: { kind: 'int', value: 0 } },
        metadata: { 'pkg.torch.onnx.stack_trace': 'File "/home/u/model.py", line 7, in forward\n    x = self.embed(ids)' },
      },
      { name: '', opType: 'MatMul', inputs: ['embedded', 'weight_t'], outputs: ['logits'], docString: '/home/u/model.py(9): forward\n' },
    ],
  },
};

describe('ONNX model encoding and decoding', () => {
  it('round-trips inputs, shapes with dim_param, initializer shapes, nodes, metadata_props and doc strings', () => {
    const decoded = decodeModel(encodeModel(sample));
    assert.equal(decoded.irVersion, 8);
    assert.deepEqual(decoded.opsetImports, sample.opsetImports);
    assert.equal(decoded.producerName, 'pytorch');
    assert.deepEqual(decoded.graph.inputs, sample.graph.inputs);
    assert.deepEqual(decoded.graph.outputs, sample.graph.outputs);
    assert.deepEqual(decoded.graph.initializers, [{ name: 'weight', elemType: 1, dims: [50257, 768] }]);
    assert.equal(decoded.graph.nodes.length, 2);
    assert.deepEqual(decoded.graph.nodes[0].metadata, sample.graph.nodes[0].metadata);
    assert.deepEqual(decoded.graph.nodes[0].inputs, ['weight', 'input_ids']);
    assert.equal(decoded.graph.nodes[1].docString, '/home/u/model.py(9): forward\n');
    assert.equal(decoded.graph.nodes[1].opType, 'MatMul');
  });

  it('rejects every truncation inside the graph with an OnnxFormatError', () => {
    const bytes = encodeModel(sample);
    const full = decodeModel(bytes);
    let rejected = 0;
    for (let n = 0; n < bytes.length; n++) {
      try {
        // A cut between two top-level fields is a valid (shorter) message: then the graph must be whole.
        assert.deepEqual(decodeModel(bytes.subarray(0, n)).graph, full.graph, `prefix of ${n} bytes`);
      } catch (e) {
        assert.ok(e instanceof OnnxFormatError, `prefix of ${n} bytes: ${String(e)}`);
        rejected++;
      }
    }
    assert.ok(rejected > bytes.length - 20, `${rejected} of ${bytes.length} prefixes rejected`);
  });

  it('answers random bytes and a pickle with an OnnxFormatError, quickly', () => {
    const random = seededRandom(7);
    const started = Date.now();
    for (let i = 0; i < 2000; i++) {
      const bytes = Uint8Array.from({ length: 1 + Math.floor(random() * 64) }, () => Math.floor(random() * 256));
      try {
        decodeModel(bytes);
      } catch (e) {
        assert.ok(e instanceof OnnxFormatError, `unexpected ${String(e)}`);
      }
    }
    assert.ok(Date.now() - started < 2000);
    assert.throws(() => decodeModel(Uint8Array.from([0x80, 0x04, 0x95, 0x00])), OnnxFormatError);
  });

  it('says why: no graph, a field past the end, invalid UTF-8', () => {
    assert.throws(() => decodeModel(new ProtoWriter().varint(1, 8).finish()), { code: 'not-onnx' });
    assert.throws(() => decodeModel(Uint8Array.from([0x3a, 0x10, 0x00])), { code: 'truncated' });
    const badText = new ProtoWriter().varint(1, 8).message(7, (g) => g.bytes(2, Uint8Array.from([0xff, 0xfe]))).finish();
    assert.throws(() => decodeModel(badText), { code: 'corrupt', message: /UTF-8/ });
  });
});
