/**
 * Writes an `OnnxModel` as ModelProto bytes that onnxruntime loads. Field numbers are those of
 * onnx.proto (ONNX 1.16+: `NodeProto.metadata_props` is field 9).
 */
import type { OnnxSparseInitializer, AttributeValue, Dim, OnnxGraph, OnnxInitializer, OnnxModel, OnnxNode, ValueInfo } from './model';
import { ElemType } from './model';
import { ProtoWriter } from './protobuf';

const enum AttributeType {
  Float = 1,
  Int = 2,
  String = 3,
  Tensor = 4,
  Graph = 5,
  Floats = 6,
  Ints = 7,
  Graphs = 10,
}

function writeDim(w: ProtoWriter, dim: Dim): void {
  if (typeof dim === 'number') w.varint(1, dim);
  else if (typeof dim === 'string') w.string(2, dim);
}

function writeValueInfo(w: ProtoWriter, info: ValueInfo): void {
  w.string(1, info.name);
  if (info.elemType === undefined) return;
  const elemType = info.elemType;
  // TypeProto.tensor_type (1) -> Tensor { elem_type (1), shape (2) -> TensorShapeProto { dim (1) } }
  w.message(2, (type) =>
    type.message(1, (tensor) => {
      tensor.varint(1, elemType);
      if (info.shape !== undefined) {
        const shape = info.shape;
        tensor.message(2, (s) => {
          for (const dim of shape) s.message(1, (d) => writeDim(d, dim));
        });
      }
    }),
  );
}

function writeAttribute(w: ProtoWriter, name: string, attribute: AttributeValue): void {
  w.string(1, name);
  switch (attribute.kind) {
    case 'float':
      w.float(2, attribute.value).varint(20, AttributeType.Float);
      break;
    case 'int':
      w.varint(3, attribute.value).varint(20, AttributeType.Int);
      break;
    case 'string':
      w.string(4, attribute.value).varint(20, AttributeType.String);
      break;
    case 'ints':
      w.packedVarints(8, attribute.value).varint(20, AttributeType.Ints);
      break;
    case 'floats':
      w.bytes(7, new Uint8Array(Float32Array.from(attribute.value).buffer)).varint(20, AttributeType.Floats);
      break;
    case 'tensor': {
      const tensor = attribute.value;
      w.message(5, (t) => writeInitializer(t, tensor)).varint(20, AttributeType.Tensor);
      break;
    }
    case 'graph': {
      const graph = attribute.value;
      w.message(6, (g) => writeGraph(g, graph)).varint(20, AttributeType.Graph);
      break;
    }
    case 'graphs':
      for (const graph of attribute.value) w.message(11, (g) => writeGraph(g, graph));
      w.varint(20, AttributeType.Graphs);
      break;
  }
}

function writeNode(w: ProtoWriter, node: OnnxNode): void {
  for (const input of node.inputs) w.string(1, input);
  for (const output of node.outputs) w.string(2, output);
  w.string(3, node.name);
  w.string(4, node.opType);
  for (const [name, value] of Object.entries(node.attributes ?? {})) w.message(5, (a) => writeAttribute(a, name, value));
  if (node.docString) w.string(6, node.docString);
  if (node.domain) w.string(7, node.domain);
  for (const [key, value] of Object.entries(node.metadata ?? {})) w.message(9, (e) => e.string(1, key).string(2, value));
}

function writeInitializer(w: ProtoWriter, init: OnnxInitializer): void {
  w.packedVarints(1, init.dims);
  w.varint(2, init.elemType);
  w.string(8, init.name);
  if (init.external) {
    // external_data (13): StringStringEntryProto { key 1, value 2 }; data_location (14) = EXTERNAL (1).
    const { location, offset, length } = init.external;
    const entries: [string, string][] = [['location', location]];
    if (offset !== undefined) entries.push(['offset', String(offset)]);
    if (length !== undefined) entries.push(['length', String(length)]);
    for (const [key, value] of entries) w.message(13, (e) => e.string(1, key).string(2, value));
    w.varint(14, 1);
    return;
  }
  if (init.data === undefined) return;
  const expected = init.data instanceof Float32Array ? ElemType.Float : ElemType.Int64;
  if (init.elemType !== expected) throw new TypeError(`initializer ${init.name}: data does not match its element type`);
  // raw_data (9): little-endian, fixed width. Typed arrays are little-endian on every platform Node runs on.
  w.bytes(9, new Uint8Array(init.data.buffer, init.data.byteOffset, init.data.byteLength));
}

/** SparseTensorProto: values (1, named as the tensor), indices (2, int64 [NNZ]), dims (3). */
function writeSparseInitializer(w: ProtoWriter, sparse: OnnxSparseInitializer): void {
  const values = sparse.values ?? new Float32Array(0);
  const indices = sparse.indices ?? new BigInt64Array(0);
  w.message(1, (t) => writeInitializer(t, { name: sparse.name, elemType: sparse.elemType, dims: [values.length], data: values }));
  w.message(2, (t) => writeInitializer(t, { name: `${sparse.name}_indices`, elemType: ElemType.Int64, dims: [indices.length], data: indices }));
  w.packedVarints(3, sparse.dims);
}

function writeGraph(w: ProtoWriter, graph: OnnxGraph): void {
  for (const node of graph.nodes) w.message(1, (n) => writeNode(n, node));
  w.string(2, graph.name);
  for (const init of graph.initializers) w.message(5, (t) => writeInitializer(t, init));
  for (const sparse of graph.sparseInitializers ?? []) w.message(15, (t) => writeSparseInitializer(t, sparse));
  for (const input of graph.inputs) w.message(11, (v) => writeValueInfo(v, input));
  for (const output of graph.outputs) w.message(12, (v) => writeValueInfo(v, output));
}

/** About how many bytes a graph takes: its weights, and a few hundred per node (so the writer rarely grows). */
function sizeHint(graph: OnnxGraph): number {
  let bytes = 4096 + 256 * graph.nodes.length;
  for (const init of graph.initializers) bytes += (init.data?.byteLength ?? 0) + 64;
  for (const sparse of graph.sparseInitializers ?? []) bytes += (sparse.values?.byteLength ?? 0) + (sparse.indices?.byteLength ?? 0) + 128;
  return bytes;
}

/** ModelProto bytes for `model`. */
export function encodeModel(model: OnnxModel): Uint8Array {
  const w = new ProtoWriter(sizeHint(model.graph));
  w.varint(1, model.irVersion);
  w.string(2, model.producerName);
  w.string(3, model.producerVersion);
  w.message(7, (g) => writeGraph(g, model.graph));
  for (const opset of model.opsetImports) w.message(8, (o) => o.string(1, opset.domain).varint(2, opset.version));
  return w.finish();
}
