/**
 * Reads what VRAM Lens needs from a user's ONNX model: producer, opsets, graph inputs and outputs
 * (element types, shapes with dim_value / dim_param), initializer shapes (not their data), and the
 * node list with `doc_string` and `metadata_props` (where exporters write source locations), and the
 * subgraphs held by `If` / `Loop` / `Scan` attributes (nested at most MAX_GRAPH_DEPTH deep). Other
 * attributes (but a Constant's shape) and tensor data are skipped without being copied. Every read is
 * bounds-checked: bad input ends in an `OnnxFormatError`.
 */
import { OnnxFormatError } from './errors';
import type { Dim, OnnxGraph, OnnxSubgraph, OnnxInitializer, OnnxModel, OnnxNode, OnnxSparseInitializer, OpsetImport, ValueInfo } from './model';
import type { Field } from './protobuf';
import { ProtoReader, WireType, fieldInt, fieldInts, fieldText } from './protobuf';

/** Iterates the fields of the message in `data`, which starts at offset `base` of the file. */
function* fieldsOf(data: Uint8Array, base: number): Generator<Field> {
  const reader = new ProtoReader(data, base);
  for (let f = reader.next(); f !== undefined; f = reader.next()) yield f;
}

function nested(field: Field): { data: Uint8Array; base: number } {
  if (field.wire !== WireType.LengthDelimited || field.bytes === undefined) {
    throw new OnnxFormatError('corrupt', field.offset, `field ${field.number} should be a message`);
  }
  return { data: field.bytes, base: field.bytesOffset };
}

function readDim(field: Field): Dim {
  const { data, base } = nested(field);
  let dim: Dim;
  for (const f of fieldsOf(data, base)) {
    if (f.number === 1) dim = fieldInt(f);
    else if (f.number === 2) dim = fieldText(f);
  }
  return dim;
}

function readValueInfo(field: Field): ValueInfo {
  const { data, base } = nested(field);
  let name = '';
  let elemType: number | undefined;
  let shape: Dim[] | undefined;
  for (const f of fieldsOf(data, base)) {
    if (f.number === 1) name = fieldText(f);
    else if (f.number === 2) {
      const type = nested(f);
      for (const t of fieldsOf(type.data, type.base)) {
        if (t.number !== 1) continue; // tensor_type only; sequences and maps have no element type here
        const tensor = nested(t);
        for (const x of fieldsOf(tensor.data, tensor.base)) {
          if (x.number === 1) elemType = fieldInt(x);
          else if (x.number === 2) {
            const s = nested(x);
            shape = [];
            for (const d of fieldsOf(s.data, s.base)) if (d.number === 1) shape.push(readDim(d));
          }
        }
      }
    }
  }
  return { name, elemType, shape };
}

/** Deeper nesting of subgraphs than this is no model an exporter writes; refusing it keeps the stack bounded. */
export const MAX_GRAPH_DEPTH = 32;

/** Graphs a node's attributes hold (AttributeProto: name 1, g 6, graphs 11). */
function subgraphsOf(attributes: readonly Field[], depth: number): OnnxSubgraph[] {
  const subgraphs: OnnxSubgraph[] = [];
  for (const attribute of attributes) {
    const { data, base } = nested(attribute);
    let name = '';
    const graphs: Field[] = [];
    for (const f of fieldsOf(data, base)) {
      if (f.number === 1) name = fieldText(f);
      else if (f.number === 6 || f.number === 11) graphs.push(f);
    }
    for (const g of graphs) {
      if (depth + 1 > MAX_GRAPH_DEPTH) throw new OnnxFormatError('not-onnx', g.offset, `subgraphs nested more than ${MAX_GRAPH_DEPTH} deep`);
      subgraphs.push({ attribute: name, graph: readGraph(g, depth + 1) });
    }
  }
  return subgraphs;
}

function readNode(field: Field, depth: number): OnnxNode {
  const { data, base } = nested(field);
  const inputs: string[] = [];
  const outputs: string[] = [];
  let name = '';
  let opType = '';
  let domain = '';
  let docString: string | undefined;
  const metadata: Record<string, string> = {};
  const attributes: Field[] = [];
  for (const f of fieldsOf(data, base)) {
    switch (f.number) {
      case 1:
        inputs.push(fieldText(f));
        break;
      case 2:
        outputs.push(fieldText(f));
        break;
      case 3:
        name = fieldText(f);
        break;
      case 4:
        opType = fieldText(f);
        break;
      case 6:
        docString = fieldText(f);
        break;
      case 7:
        domain = fieldText(f);
        break;
      case 9: {
        const entry = nested(f);
        let key = '';
        let value = '';
        for (const e of fieldsOf(entry.data, entry.base)) {
          if (e.number === 1) key = fieldText(e);
          else if (e.number === 2) value = fieldText(e);
        }
        metadata[key] = value;
        break;
      }
      case 5:
        attributes.push(f);
        break;
      default:
        break; // overload (8), device configurations (10): not needed
    }
  }
  // Attributes are read only where a figure needs them: the shape of what a Constant node outputs, and subgraphs.
  const constant = opType === 'Constant' && domain === '' ? constantShape(attributes) : undefined;
  const subgraphs = subgraphsOf(attributes, depth);
  return { name, opType, domain, inputs, outputs, docString, metadata, ...(constant ? { constant } : {}), ...(subgraphs.length > 0 ? { subgraphs } : {}) };
}

/**
 * A SparseTensorProto as its dense tensor: the name and element type of its `values` (1), and its
 * `dims` (3), the dense shape.
 */
function readSparseInitializer(field: Field): OnnxSparseInitializer {
  const { data, base } = nested(field);
  const dims: number[] = [];
  let name = '';
  let elemType = 0;
  for (const f of fieldsOf(data, base)) {
    if (f.number === 3) dims.push(...fieldInts(f));
    else if (f.number === 1) ({ name, elemType } = readInitializer(f));
  }
  return { name, elemType, dims };
}

/** Count of a repeated float field: packed (4 bytes each) or one fixed32 field per value. */
function floatCount(fields: readonly Field[]): number {
  return fields.reduce((n, f) => n + (f.wire === WireType.LengthDelimited ? (f.bytes?.length ?? 0) / 4 : 1), 0);
}

/** What a Constant node outputs, from its attribute (AttributeProto: name 1, f 2, i 3, t 5, floats 7, ints 8, sparse_tensor 22). */
function constantShape(attributes: readonly Field[]): { elemType: number; dims: readonly number[] } | undefined {
  for (const attribute of attributes) {
    const { data, base } = nested(attribute);
    const fields = [...fieldsOf(data, base)];
    const name = fields.find((f) => f.number === 1);
    const key = name ? fieldText(name) : '';
    const of = (n: number) => fields.filter((f) => f.number === n);
    switch (key) {
      case 'value': {
        const t = of(5)[0];
        if (t) {
          const { elemType, dims } = readInitializer(t);
          return { elemType, dims };
        }
        break;
      }
      case 'sparse_value': {
        const t = of(22)[0];
        if (t) {
          const { elemType, dims } = readSparseInitializer(t);
          return { elemType, dims };
        }
        break;
      }
      case 'value_float':
        return { elemType: 1, dims: [] };
      case 'value_floats':
        return { elemType: 1, dims: [floatCount(of(7))] };
      case 'value_int':
        return { elemType: 7, dims: [] };
      case 'value_ints':
        return { elemType: 7, dims: [of(8).reduce((n, f) => n + fieldInts(f).length, 0)] };
      default:
        break;
    }
  }
  return undefined;
}

function readInitializer(field: Field): OnnxInitializer {
  const { data, base } = nested(field);
  const dims: number[] = [];
  let elemType = 0;
  let name = '';
  for (const f of fieldsOf(data, base)) {
    if (f.number === 1) dims.push(...fieldInts(f));
    else if (f.number === 2) elemType = fieldInt(f);
    else if (f.number === 8) name = fieldText(f);
  }
  return { name, elemType, dims };
}

function readGraph(field: Field, depth: number): OnnxGraph {
  const { data, base } = nested(field);
  const nodes: OnnxNode[] = [];
  const inputs: ValueInfo[] = [];
  const outputs: ValueInfo[] = [];
  const initializers: OnnxInitializer[] = [];
  const sparseInitializers: OnnxSparseInitializer[] = [];
  let name = '';
  for (const f of fieldsOf(data, base)) {
    switch (f.number) {
      case 1:
        nodes.push(readNode(f, depth));
        break;
      case 2:
        name = fieldText(f);
        break;
      case 5:
        initializers.push(readInitializer(f));
        break;
      case 15:
        sparseInitializers.push(readSparseInitializer(f));
        break;
      case 11:
        inputs.push(readValueInfo(f));
        break;
      case 12:
        outputs.push(readValueInfo(f));
        break;
      default:
        break;
    }
  }
  return { name, nodes, inputs, outputs, initializers, ...(sparseInitializers.length > 0 ? { sparseInitializers } : {}) };
}

/** Decodes a ModelProto; throws OnnxFormatError when the bytes are not one. */
export function decodeModel(bytes: Uint8Array): OnnxModel {
  let irVersion = 0;
  let producerName = '';
  let producerVersion = '';
  let graph: OnnxGraph | undefined;
  const opsetImports: OpsetImport[] = [];
  for (const f of fieldsOf(bytes, 0)) {
    switch (f.number) {
      case 1:
        irVersion = fieldInt(f);
        break;
      case 2:
        producerName = fieldText(f);
        break;
      case 3:
        producerVersion = fieldText(f);
        break;
      case 7:
        graph = readGraph(f, 0);
        break;
      case 8: {
        const o = nested(f);
        let domain = '';
        let version = 0;
        for (const x of fieldsOf(o.data, o.base)) {
          if (x.number === 1) domain = fieldText(x);
          else if (x.number === 2) version = fieldInt(x);
        }
        opsetImports.push({ domain, version });
        break;
      }
      default:
        break;
    }
  }
  if (graph === undefined) throw new OnnxFormatError('not-onnx', 0, 'the data holds no graph');
  if (irVersion <= 0) throw new OnnxFormatError('not-onnx', 0, 'the data has no IR version');
  return { irVersion, opsetImports, producerName, producerVersion, graph };
}
