/**
 * The part of the ONNX model format VRAM Lens writes (graphs built for the built-in workloads) and
 * reads (a user's model: its inputs and node list). Field meanings follow onnx.proto; only what we
 * use is modelled.
 */

/** `TensorProto.DataType` values we name; others pass through as numbers. */
export const enum ElemType {
  Float = 1,
  Uint8 = 2,
  Int8 = 3,
  Uint16 = 4,
  Int16 = 5,
  Int32 = 6,
  Int64 = 7,
  String = 8,
  Bool = 9,
  Float16 = 10,
  Double = 11,
  Uint32 = 12,
  Uint64 = 13,
  Bfloat16 = 16,
}

/** A dimension: a fixed size, a named symbolic size (`dim_param`), or unknown (neither set). */
export type Dim = number | string | undefined;

export interface ValueInfo {
  readonly name: string;
  /** Element type for tensors; undefined for sequences, maps and values without a type. */
  readonly elemType: number | undefined;
  /** Undefined when the shape (even the rank) is unknown. */
  readonly shape: readonly Dim[] | undefined;
}

export type AttributeValue =
  | { readonly kind: 'int'; readonly value: number }
  | { readonly kind: 'ints'; readonly value: readonly number[] }
  | { readonly kind: 'float'; readonly value: number }
  | { readonly kind: 'floats'; readonly value: readonly number[] }
  /** A tensor (written as a TensorProto, as an initializer is); `Constant` nodes hold their weights so. */
  | { readonly kind: 'tensor'; readonly value: OnnxInitializer }
  | { readonly kind: 'string'; readonly value: string }
  /** A subgraph (`If`'s branches, `Loop`'s and `Scan`'s body). */
  | { readonly kind: 'graph'; readonly value: OnnxGraph }
  | { readonly kind: 'graphs'; readonly value: readonly OnnxGraph[] };

/** A graph held by a node attribute (type GRAPH or GRAPHS), read back with its nodes. */
export interface OnnxSubgraph {
  /** The attribute's name, e.g. `then_branch`, `else_branch`, `body`. */
  readonly attribute: string;
  readonly graph: OnnxGraph;
}

export interface OnnxNode {
  readonly name: string;
  readonly opType: string;
  readonly domain?: string;
  readonly inputs: readonly string[];
  readonly outputs: readonly string[];
  /** Written by the encoder; the decoder does not read attributes. */
  readonly attributes?: Readonly<Record<string, AttributeValue>>;
  readonly docString?: string;
  /**
   * For a `Constant` node, read back: the element type and shape of the tensor it outputs (from its
   * `value`, `sparse_value` (dense shape), `value_float(s)` or `value_int(s)` attribute). Its data is not read.
   */
  readonly constant?: { readonly elemType: number; readonly dims: readonly number[] };
  /** `NodeProto.metadata_props` (e.g. `pkg.torch.onnx.stack_trace`). */
  readonly metadata?: Readonly<Record<string, string>>;
  /** Read back: the graphs the node's GRAPH / GRAPHS attributes hold, in attribute order. */
  readonly subgraphs?: readonly OnnxSubgraph[];
}

/** An initializer: for writing, with its data; when read, `data` is left out (only the shape matters). */
export interface OnnxInitializer {
  readonly name: string;
  readonly elemType: number;
  readonly dims: readonly number[];
  readonly data?: Float32Array | BigInt64Array;
  /**
   * Written only: the data lives in a file beside the model (`external_data` location, with
   * `data_location` EXTERNAL), as exporters write models over 2 GB; `data` is then not written.
   */
  readonly external?: { readonly location: string; readonly offset?: number; readonly length?: number };
}

export interface OnnxSparseInitializer {
  readonly name: string;
  readonly elemType: number;
  /** The dense shape. */
  readonly dims: readonly number[];
  readonly values?: Float32Array;
  readonly indices?: BigInt64Array;
}

export interface OnnxGraph {
  readonly name: string;
  readonly nodes: readonly OnnxNode[];
  readonly inputs: readonly ValueInfo[];
  readonly outputs: readonly ValueInfo[];
  readonly initializers: readonly OnnxInitializer[];
  /**
   * Sparse initializers (GraphProto field 15). Read back as their dense shape (`dims`) and the type of their
   * values, which is what onnxruntime allocates: it makes them dense when it loads the model. Written with
   * `values` and `indices` (int64, positions in the flattened tensor).
   */
  readonly sparseInitializers?: readonly OnnxSparseInitializer[];
}

export interface OpsetImport {
  readonly domain: string;
  readonly version: number;
}

export interface OnnxModel {
  readonly irVersion: number;
  readonly opsetImports: readonly OpsetImport[];
  readonly producerName: string;
  readonly producerVersion: string;
  readonly graph: OnnxGraph;
}

/** Bytes per element of a tensor type, or undefined for strings and unknown types. */
export function elemByteSize(elemType: number): number | undefined {
  switch (elemType) {
    case ElemType.Uint8:
    case ElemType.Int8:
    case ElemType.Bool:
      return 1;
    case ElemType.Uint16:
    case ElemType.Int16:
    case ElemType.Float16:
    case ElemType.Bfloat16:
      return 2;
    case ElemType.Float:
    case ElemType.Int32:
    case ElemType.Uint32:
      return 4;
    case ElemType.Int64:
    case ElemType.Double:
    case ElemType.Uint64:
      return 8;
    default:
      return undefined;
  }
}
