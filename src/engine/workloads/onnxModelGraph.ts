/**
 * A user's ONNX model as the memory reconstruction reads it: which inputs to feed (and which of their
 * dimensions the user must choose), where each node comes from in the source (the PyTorch exporter's
 * `pkg.torch.onnx.stack_trace`, a TorchScript-style `doc_string`, or else the node itself on the
 * pseudo-file `onnx:<model>`, line = node index + 1), and tensor sizes from the run's profile.
 */
import type { Dim, OnnxGraph, OnnxModel, OnnxNode, ValueInfo } from '../onnx/model';
import { elemByteSize } from '../onnx/model';
import { ONNX_PSEUDO_FILE_PREFIX } from '../analysis/frameFilter';
import type { Frame } from '../snapshot/model';
import type { ExecGraph, ExecNode, NodeRun } from './liveness';
import { RUNTIME_FRAMES } from './liveness';
import type { ProfiledRun } from './ortProfile';


/** Metadata key under which `torch.onnx.export(..., dynamo=True)` writes each node's Python stack. */
export const TORCH_STACK_TRACE_KEY = 'pkg.torch.onnx.stack_trace';

/** Inputs the caller must feed: graph inputs that are not initializers (older exporters list weights as inputs too). */
export function modelInputs(model: OnnxModel): ValueInfo[] {
  // Sparse ones too: feeding one would override its values.
  const initializers = new Set(denseAndSparseInitializers(model.graph).map((i) => i.name));
  return model.graph.inputs.filter((i) => !initializers.has(i.name));
}

/** Every initializer with the shape onnxruntime allocates for it (sparse ones dense, as it loads them). */
export function denseAndSparseInitializers(graph: OnnxGraph): { readonly name: string; readonly elemType: number; readonly dims: readonly number[] }[] {
  return [...graph.initializers, ...(graph.sparseInitializers ?? [])];
}

/** The name a user gives a dimension: its `dim_param`, or `input[axis]` when the model leaves it unnamed. */
export function dimensionKey(input: string, axis: number, dim: Dim): string | undefined {
  if (typeof dim === 'number' && dim >= 0) return undefined;
  return typeof dim === 'string' && dim !== '' ? dim : `${input}[${axis}]`;
}

/** Every distinct dimension the user must choose, in input order (inputs in `given` have their shape already). */
export function openDimensions(model: OnnxModel, given: ReadonlySet<string> = new Set()): string[] {
  const keys = new Set<string>();
  for (const input of modelInputs(model)) {
    if (given.has(input.name)) continue;
    (input.shape ?? []).forEach((dim, axis) => {
      const key = dimensionKey(input.name, axis, dim);
      if (key !== undefined) keys.add(key);
    });
  }
  return [...keys];
}

/** The size an open dimension gets when nobody gives one (the command line says which it chose). */
export const DEFAULT_DIMENSION_SIZE = 1;

/** The input's shape with chosen sizes for its open dimensions; throws when one is missing. */
export function concreteShape(input: ValueInfo, sizes: Readonly<Record<string, number>>): number[] {
  if (input.shape === undefined) throw new Error(`input '${input.name}' has no shape in the model`);
  return input.shape.map((dim, axis) => {
    const key = dimensionKey(input.name, axis, dim);
    if (key === undefined) return dim as number;
    const size = sizes[key];
    if (size === undefined || !Number.isSafeInteger(size) || size < 0) throw new Error(`no size for dimension '${key}' of input '${input.name}'`);
    return size;
  });
}

const PYTHON_FRAME = /File "([^"]+)", line (\d+), in (\S+)/g;
const TORCHSCRIPT_FRAME = /^\s*(.+\.py)\((\d+)\): (\S+)\s*$/gm;

/** Frames (innermost first) named by a node's metadata or doc string, or undefined when it names none. */
export function sourceFrames(node: OnnxNode): Frame[] | undefined {
  const trace = node.metadata?.[TORCH_STACK_TRACE_KEY];
  if (trace) {
    // A Python traceback lists the outermost call first.
    const frames = [...trace.matchAll(PYTHON_FRAME)].map((m) => ({ filename: m[1], line: Number(m[2]), name: m[3] }));
    if (frames.length > 0) return frames.reverse();
  }
  if (node.docString) {
    // TorchScript export writes `file.py(line): function` lines, innermost first.
    const frames = [...node.docString.matchAll(TORCHSCRIPT_FRAME)].map((m) => ({ filename: m[1], line: Number(m[2]), name: m[3] }));
    if (frames.length > 0) return frames;
  }
  return undefined;
}

/** The pseudo-file frame of node `index`: line index + 1 of `onnx:<model path>`. */
export function pseudoFrame(modelPath: string, node: OnnxNode, index: number): Frame {
  return { filename: `${ONNX_PSEUDO_FILE_PREFIX}${modelPath}`, line: index + 1, name: node.name || node.opType };
}

export interface ModelRunGraph {
  readonly graph: ExecGraph;
  readonly runs: NodeRun[];
  /** Nodes that carried a source location. */
  readonly nodesWithSource: number;
}

/** A node of the model or of one of its subgraphs, with the tensor names the reconstruction uses. */
interface FlatNode {
  readonly source: OnnxNode;
  readonly exec: ExecNode;
}

/** A weight of a subgraph: its initializers, named in the subgraph's scope. */
interface ScopedWeight {
  readonly name: string;
  readonly elemType: number;
  readonly dims: readonly number[];
  readonly frames: readonly Frame[];
}

/**
 * The nodes of `parent`'s subgraphs (recursively), attributed to the parent's line: each gets the
 * parent's frames under one more innermost frame, on the parent's file and line, naming the subgraph
 * node (`Loop/body/Add`), so hovers and the timeline show it as a child. Names a subgraph defines
 * (its inputs, initializers and node outputs) are prefixed by the subgraph's path so they cannot meet
 * the outer graph's; names it reads from outer scopes keep the outer name (so their lifetime counts
 * the subgraph's reads).
 */
function subgraphNodes(parent: OnnxNode, parentFrames: readonly Frame[], outerScope: ReadonlyMap<string, string>, path: string, into: FlatNode[], weights: ScopedWeight[]): void {
  const where = parentFrames[0];
  for (const { attribute, graph } of parent.subgraphs ?? []) {
    const prefix = `${path}/${attribute}`;
    const scope = new Map(outerScope);
    const define = (name: string) => {
      if (name !== '') scope.set(name, `${prefix}/${name}`);
    };
    const initializers = denseAndSparseInitializers(graph);
    for (const i of graph.inputs) define(i.name);
    for (const i of initializers) define(i.name);
    for (const n of graph.nodes) n.outputs.forEach(define);
    const rename = (name: string) => (name === '' ? name : (scope.get(name) ?? name));
    const frame = (label: string): Frame[] => [{ filename: where.filename, line: where.line, name: `${prefix}/${label}` }, ...parentFrames];
    for (const i of initializers) {
      weights.push({ name: rename(i.name), elemType: i.elemType, dims: i.dims, frames: frame(i.name) });
    }
    for (const n of graph.nodes) {
      const label = n.name || n.opType;
      const frames = frame(label);
      into.push({ source: n, exec: { name: n.name, opType: n.opType, inputs: n.inputs.map(rename), outputs: n.outputs.map(rename), frames } });
      subgraphNodes(n, frames, scope, `${prefix}/${label}`, into, weights);
    }
  }
}

/**
 * The model's graph with sizes from the profile, and the profiled kernels as runs. Kernels the model
 * does not name (copies between devices, fused nodes) run as nodes of their own with no tensors.
 * Nodes of `If` / `Loop` / `Scan` subgraphs run under their own names in the profile (a `Loop` body's
 * once per iteration); their memory is attributed to the line of the node that holds the subgraph.
 */
export function modelRunGraph(model: OnnxModel, modelPath: string, profile: ProfiledRun, inputBytes: ReadonlyMap<string, number>): ModelRunGraph {
  const modelNodes = model.graph.nodes;
  let nodesWithSource = 0;
  // The model's own nodes first (index = node index), then those of their subgraphs.
  const flat: FlatNode[] = modelNodes.map((n, i) => {
    const frames = sourceFrames(n);
    if (frames) nodesWithSource++;
    return { source: n, exec: { name: n.name, opType: n.opType, inputs: n.inputs, outputs: n.outputs, frames: frames ?? [pseudoFrame(modelPath, n, i)] } };
  });
  const subgraphWeights: ScopedWeight[] = [];
  modelNodes.forEach((n, i) => subgraphNodes(n, flat[i].exec.frames, new Map(), n.name || n.opType, flat, subgraphWeights));
  const nodes: ExecNode[] = flat.map((f) => f.exec);
  const byName = new Map<string, number>();
  nodes.forEach((n, i) => {
    if (n.name !== '' && !byName.has(n.name)) byName.set(n.name, i);
  });

  const tensorBytes = new Map<string, number>(inputBytes);
  const initializers = denseAndSparseInitializers(model.graph);
  for (const init of [...initializers, ...subgraphWeights]) {
    const size = elemByteSize(init.elemType);
    if (size !== undefined) tensorBytes.set(init.name, init.dims.reduce((a, b) => a * b, size));
  }
  // Constant nodes are weights: onnxruntime makes them initializers when it loads the model (no kernel
  // runs them), so they are pre-existing tensors, shown on the node's own line.
  const constants: { name: string; frames: readonly Frame[] }[] = [];
  for (const { source: n, exec } of flat) {
    const output = exec.outputs[0];
    const size = n.constant && elemByteSize(n.constant.elemType);
    if (!n.constant || size === undefined || output === undefined || output === '') continue;
    const bytes = n.constant.dims.reduce((a, b) => a * b, size);
    tensorBytes.set(output, bytes);
    constants.push({ name: output, frames: exec.frames });
  }
  const constantOutputs = new Set(constants.map((c) => c.name));
  const runs: NodeRun[] = [];
  for (const kernel of profile.nodes) {
    let index = byName.get(kernel.name);
    if (index === undefined && kernel.nodeIndex !== undefined && modelNodes[kernel.nodeIndex]?.opType === kernel.opType && modelNodes[kernel.nodeIndex].name === '') {
      index = kernel.nodeIndex;
    }
    if (index !== undefined && nodes[index].outputs.some((t) => constantOutputs.has(t))) continue;
    if (index === undefined) {
      index = nodes.length;
      nodes.push({ name: kernel.name, opType: kernel.opType, inputs: [], outputs: [], frames: RUNTIME_FRAMES });
    } else {
      nodes[index].outputs.forEach((t, k) => {
        const bytes = kernel.outputBytes?.[k];
        if (t !== '' && bytes !== undefined) tensorBytes.set(t, bytes);
      });
    }
    // An If / Loop / Scan kernel's statistics span its subgraph's kernels, which carry their own: its
    // running peak would count their tensors a second time, as scratch of the parent.
    const arena = flat[index]?.source.subgraphs ? undefined : kernel.arena;
    runs.push({ node: index, startUs: kernel.startUs, durationUs: kernel.durationUs, arena });
  }
  const inputFrame: Frame[] = [{ filename: `${ONNX_PSEUDO_FILE_PREFIX}${modelPath}`, line: 0, name: 'inputs' }];
  const preexisting = [...inputBytes.keys(), ...initializers.map((i) => i.name)].map((name) => ({ name, frames: inputFrame }));
  return {
    graph: {
      nodes,
      tensorBytes,
      preexisting: [...preexisting, ...subgraphWeights.map((w) => ({ name: w.name, frames: w.frames })), ...constants],
      outputs: new Set(model.graph.outputs.map((o) => o.name)),
    },
    runs,
    nodesWithSource,
  };
}
