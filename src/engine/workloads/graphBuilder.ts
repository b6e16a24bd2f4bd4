/**
 * Builds the float32 ONNX graphs of the built-in workloads: each node is tagged with the statement
 * of the Python sample it stands for, and every tensor's shape is inferred here (the handful of ops
 * we use), so memory figures can be reconstructed without asking the runtime.
 */
import type { AttributeValue, OnnxInitializer, OnnxModel, OnnxNode } from '../onnx/model';
import { ElemType } from '../onnx/model';

/**
 * A statement of a shipped Python sample: the first line of `function` (qualified as `Class.method`
 * where a simple name is ambiguous) whose stripped text starts with `statement`, looking only past
 * the first line that starts with `after` when given.
 */
export interface SourceKey {
  readonly function: string;
  readonly statement: string;
  readonly after?: string;
}

export type Shape = readonly number[];

export interface WorkloadNode extends OnnxNode {
  /** The statements this node stands for, innermost first (the statement, then its callers). */
  readonly stack: readonly SourceKey[];
}

/** A graph ready to run, with what the memory reconstruction needs to know about it. */
export interface WorkloadGraph {
  readonly model: OnnxModel;
  readonly nodes: readonly WorkloadNode[];
  /** Shapes of every tensor (inputs, initializers, node outputs), float32 unless in `int64Tensors`. */
  readonly shapes: ReadonlyMap<string, Shape>;
  readonly int64Tensors: ReadonlySet<string>;
  /** Graph inputs (fed at run time), in order. */
  readonly inputs: readonly string[];
  readonly outputs: readonly string[];
  /** Where each graph input is created in the sample (innermost first); inputs not listed are attributed to the entry function's `def` line. */
  readonly inputStacks: ReadonlyMap<string, readonly SourceKey[]>;
  /**
   * Views: each `Reshape` output and the tensor whose buffer it shares (onnxruntime's Reshape kernel
   * declares its output an alias of its input, as PyTorch's `view` is). A view owns no bytes and keeps
   * its base alive while it is read.
   */
  readonly views: ReadonlyMap<string, string>;
  /** Outputs that stand for the entry function's locals, with the statement that releases them (its `return`). */
  readonly releasedAtEnd: ReadonlyMap<string, readonly SourceKey[]>;
  /** The sample function the graph stands for. */
  readonly entryFunction: string;
}

export const OPSET = 17;

export function elementCount(shape: Shape): number {
  return shape.reduce((a, b) => a * b, 1);
}

/** Bytes of a tensor of this shape (float32 and int64 are all we build). */
export function tensorBytes(shape: Shape, int64 = false): number {
  return elementCount(shape) * (int64 ? 8 : 4);
}

function broadcast(a: Shape, b: Shape, where: string): number[] {
  const rank = Math.max(a.length, b.length);
  const out: number[] = [];
  for (let i = 0; i < rank; i++) {
    const x = a[a.length - rank + i] ?? 1;
    const y = b[b.length - rank + i] ?? 1;
    if (x !== y && x !== 1 && y !== 1) throw new Error(`${where}: shapes [${a.join(',')}] and [${b.join(',')}] do not broadcast`);
    out.push(x === 1 ? y : x);
  }
  return out;
}

const ELEMENTWISE_BINARY = new Set(['Add', 'Sub', 'Mul', 'Div', 'Pow']);
const ELEMENTWISE_UNARY = new Set(['Neg', 'Relu', 'Sign', 'Sqrt', 'Identity']);

export class GraphBuilder {
  private readonly nodes: WorkloadNode[] = [];
  private readonly initializers: OnnxInitializer[] = [];
  private readonly shapes = new Map<string, Shape>();
  private readonly int64Tensors = new Set<string>();
  private readonly intValues = new Map<string, readonly number[]>();
  private readonly inputs: string[] = [];
  private readonly inputStacks = new Map<string, readonly SourceKey[]>();
  private readonly outputs: string[] = [];
  private readonly views = new Map<string, string>();
  private readonly releasedAtEnd = new Map<string, readonly SourceKey[]>();
  private stack: readonly SourceKey[] = [];

  constructor(
    private readonly name: string,
    private readonly entryFunction: string,
  ) {}

  /** A float32 graph input fed at run time, created in the sample by `stack` (innermost first). */
  input(name: string, shape: Shape, ...stack: SourceKey[]): string {
    this.define(name, shape);
    this.inputs.push(name);
    if (stack.length > 0) this.inputStacks.set(name, stack);
    return name;
  }

  /** A float32 constant. */
  constant(name: string, values: readonly number[], shape: Shape = []): string {
    if (values.length !== elementCount(shape)) throw new Error(`constant ${name}: ${values.length} values for shape [${shape.join(',')}]`);
    this.define(name, shape);
    this.initializers.push({ name, elemType: ElemType.Float, dims: shape, data: Float32Array.from(values) });
    return name;
  }

  /** An int64 constant (axes, shapes). */
  ints(name: string, values: readonly number[]): string {
    this.define(name, [values.length]);
    this.int64Tensors.add(name);
    this.intValues.set(name, values);
    this.initializers.push({ name, elemType: ElemType.Int64, dims: [values.length], data: BigInt64Array.from(values.map(BigInt)) });
    return name;
  }

  /** Nodes added after this call stand for `statement`, called from `callers` (innermost first). */
  at(statement: SourceKey, ...callers: SourceKey[]): this {
    this.stack = [statement, ...callers];
    return this;
  }

  /** Adds a node with one output named `output`; returns the output name. */
  op(opType: string, inputs: readonly string[], output: string, attributes: Record<string, AttributeValue> = {}): string {
    if (this.stack.length === 0) throw new Error(`node ${output}: no source statement set`);
    for (const input of inputs) if (!this.shapes.has(input)) throw new Error(`node ${output}: unknown input ${input}`);
    this.define(output, this.infer(opType, inputs, attributes, output));
    this.nodes.push({ name: output, opType, inputs, outputs: [output], attributes, stack: this.stack });
    return output;
  }

  /** A `Reshape` of `input` to `shape` (a view: it shares the input's buffer); returns the output name. */
  view(input: string, shape: Shape, output: string): string {
    const from = this.shape(input);
    if (elementCount(from) !== elementCount(shape)) throw new Error(`view ${output}: [${from.join(',')}] cannot be viewed as [${shape.join(',')}]`);
    const target = this.ints(`${output}_shape`, shape);
    this.op('Reshape', [input, target], output);
    this.views.set(output, this.views.get(input) ?? input);
    return output;
  }

  /**
   * A graph output. With `releasedBy` (the statement, then its callers), it stands for a local that the
   * sample keeps alive until that statement (a `return`) and is freed there, after the last node.
   */
  output(name: string, ...releasedBy: SourceKey[]): void {
    if (!this.shapes.has(name)) throw new Error(`output ${name} is not a tensor of the graph`);
    this.outputs.push(name);
    if (releasedBy.length > 0) this.releasedAtEnd.set(name, releasedBy);
  }

  shape(name: string): Shape {
    const shape = this.shapes.get(name);
    if (!shape) throw new Error(`unknown tensor ${name}`);
    return shape;
  }

  build(): WorkloadGraph {
    const info = (name: string) => ({ name, elemType: ElemType.Float, shape: this.shape(name) });
    const model: OnnxModel = {
      irVersion: 8,
      opsetImports: [{ domain: '', version: OPSET }],
      producerName: 'vram-lens',
      producerVersion: '1',
      graph: {
        name: this.name,
        nodes: this.nodes,
        inputs: this.inputs.map(info),
        outputs: this.outputs.map(info),
        initializers: this.initializers,
      },
    };
    return {
      model,
      nodes: this.nodes,
      shapes: this.shapes,
      int64Tensors: this.int64Tensors,
      inputs: this.inputs,
      outputs: this.outputs,
      inputStacks: this.inputStacks,
      views: this.views,
      releasedAtEnd: this.releasedAtEnd,
      entryFunction: this.entryFunction,
    };
  }

  private define(name: string, shape: Shape): void {
    if (this.shapes.has(name)) throw new Error(`tensor ${name} is defined twice`);
    this.shapes.set(name, shape);
  }

  private infer(opType: string, inputs: readonly string[], attributes: Record<string, AttributeValue>, where: string): Shape {
    const shapes = inputs.map((i) => this.shape(i));
    const int = (key: string, fallback: number): number => {
      const a = attributes[key];
      return a?.kind === 'int' ? a.value : fallback;
    };
    if (ELEMENTWISE_BINARY.has(opType)) return broadcast(shapes[0], shapes[1], where);
    if (ELEMENTWISE_UNARY.has(opType)) return shapes[0];
    switch (opType) {
      case 'MatMul': {
        const [a, b] = shapes;
        if (a.length !== b.length || a.length < 2 || a[a.length - 1] !== b[b.length - 2]) {
          throw new Error(`${where}: MatMul of [${a.join(',')}] and [${b.join(',')}]`);
        }
        return [...broadcast(a.slice(0, -2), b.slice(0, -2), where), a[a.length - 2], b[b.length - 1]];
      }
      case 'Gemm': {
        const [a, b] = shapes;
        const m = int('transA', 0) ? a[1] : a[0];
        const k = int('transA', 0) ? a[0] : a[1];
        const kb = int('transB', 0) ? b[1] : b[0];
        const n = int('transB', 0) ? b[0] : b[1];
        if (k !== kb) throw new Error(`${where}: Gemm inner sizes ${k} and ${kb}`);
        if (shapes[2] !== undefined) broadcast(shapes[2], [m, n], where);
        return [m, n];
      }
      case 'Reshape': {
        const target = this.intValues.get(inputs[1]);
        if (target === undefined || target.some((d) => d <= 0)) throw new Error(`${where}: Reshape needs a constant shape of positive sizes`);
        return target;
      }
      case 'Transpose': {
        const perm = attributes.perm;
        if (perm?.kind !== 'ints') throw new Error(`${where}: Transpose needs perm`);
        return perm.value.map((p) => shapes[0][p]);
      }
      case 'Concat': {
        const rank = shapes[0].length;
        const axis = (int('axis', 0) + rank) % rank;
        const out = [...shapes[0]];
        out[axis] = shapes.reduce((sum, s) => sum + s[axis], 0);
        return out;
      }
      case 'ReduceSum': {
        const keep = int('keepdims', 1) === 1;
        const rank = shapes[0].length;
        const axes = inputs[1] === undefined ? [...shapes[0].keys()] : (this.intValues.get(inputs[1]) ?? []).map((a) => (a + rank) % rank);
        return keep ? shapes[0].map((d, i) => (axes.includes(i) ? 1 : d)) : shapes[0].filter((_, i) => !axes.includes(i));
      }
      default:
        throw new Error(`${where}: no shape rule for ${opType}`);
    }
  }
}
