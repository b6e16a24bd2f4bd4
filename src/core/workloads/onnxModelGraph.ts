/**
 * A user's ONNX model as the memory reconstruction reads it: which inputs to feed (and which of their
 * dimensions the user must choose), where each node comes from in the source (the PyTorch exporter's
 * `pkg.torch.onnx.stack_trace`, a TorchScript-style `doc_string`, or else the node itself on the
 * pseudo-file `onnx:<model>`, line = node index + 1), and tensor sizes from the run's profile.
 */
import type { Dim, OnnxModel, OnnxNode, ValueInfo } from '../onnx/model';
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
  const initializers = new Set(denseAndSparseInitializers(model).map((i) => i.name));
  return model.graph.inputs.filter((i) => !initializers.has(i.name));
}

/** Every initializer with the shape onnxruntime allocates for it (sparse ones dense, as it loads them). */
export function denseAndSparseInitializers(model: OnnxModel): { readonly name: string; readonly elemType: number; readonly dims: readonly number[] }[] {
  return [...model.graph.initializers, ...(model.graph.sparseInitializers ?? [])];
}

/** The name a user gives a dimension: its `dim_param`, or `input[axis]` when the model leaves it unnamed. */
export function dimensionKey(input: string, axis: number, dim: Dim): string | undefined {
  if (typeof dim === 'number' && dim >= 0) return undefined;
  return typeof dim === 'string' && dim !== '' ? dim : `${input}[${axis}]`;
}

/** Every distinct dimension the user must choose, in input order. */
export function openDimensions(model: OnnxModel): string[] {
  const keys = new Set<string>();
  for (const input of modelInputs(model)) {
    (input.shape ?? []).forEach((dim, axis) => {
      const key = dimensionKey(input.name, axis, dim);
      if (key !== undefined) keys.add(key);
    });
  }
  return [...keys];
}

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

/**
 * The model's graph with sizes from the profile, and the profiled kernels as runs. Kernels the model
 * does not name (copies between devices, fused nodes) run as nodes of their own with no tensors.
 */
export function modelRunGraph(model: OnnxModel, modelPath: string, profile: ProfiledRun, inputBytes: ReadonlyMap<string, number>): ModelRunGraph {
  const modelNodes = model.graph.nodes;
  const byName = new Map<string, number>();
  modelNodes.forEach((n, i) => {
    if (n.name !== '' && !byName.has(n.name)) byName.set(n.name, i);
  });
  const nodes: ExecNode[] = [];
  let nodesWithSource = 0;
  modelNodes.forEach((n, i) => {
    const frames = sourceFrames(n);
    if (frames) nodesWithSource++;
    nodes.push({ name: n.name, opType: n.opType, inputs: n.inputs, outputs: n.outputs, frames: frames ?? [pseudoFrame(modelPath, n, i)] });
  });

  const tensorBytes = new Map<string, number>(inputBytes);
  const initializers = denseAndSparseInitializers(model);
  for (const init of initializers) {
    const size = elemByteSize(init.elemType);
    if (size !== undefined) tensorBytes.set(init.name, init.dims.reduce((a, b) => a * b, size));
  }
  // Constant nodes are weights: onnxruntime makes them initializers when it loads the model (no kernel
  // runs them), so they are pre-existing tensors, shown on the node's own line.
  const constants: { name: string; frames: readonly Frame[] }[] = [];
  modelNodes.forEach((n, i) => {
    const output = n.outputs[0];
    const size = n.constant && elemByteSize(n.constant.elemType);
    if (!n.constant || size === undefined || output === undefined || output === '') return;
    const bytes = n.constant.dims.reduce((a, b) => a * b, size);
    tensorBytes.set(output, bytes);
    constants.push({ name: output, frames: nodes[i].frames });
  });
  const constantOutputs = new Set(constants.map((c) => c.name));
  const runs: NodeRun[] = [];
  for (const kernel of profile.nodes) {
    let index = byName.get(kernel.name);
    if (index === undefined && kernel.nodeIndex !== undefined && modelNodes[kernel.nodeIndex]?.opType === kernel.opType && modelNodes[kernel.nodeIndex].name === '') {
      index = kernel.nodeIndex;
    }
    if (index !== undefined && modelNodes[index].outputs.some((t) => constantOutputs.has(t))) continue;
    if (index === undefined) {
      index = nodes.length;
      nodes.push({ name: kernel.name, opType: kernel.opType, inputs: [], outputs: [], frames: RUNTIME_FRAMES });
    } else {
      modelNodes[index].outputs.forEach((t, k) => {
        const bytes = kernel.outputBytes?.[k];
        if (t !== '' && bytes !== undefined) tensorBytes.set(t, bytes);
      });
    }
    runs.push({ node: index, startUs: kernel.startUs, durationUs: kernel.durationUs, arena: kernel.arena });
  }
  const preexisting = [...inputBytes.keys(), ...initializers.map((i) => i.name)];
  const inputFrame: Frame[] = [{ filename: `${ONNX_PSEUDO_FILE_PREFIX}${modelPath}`, line: 0, name: 'inputs' }];
  return {
    graph: {
      nodes,
      tensorBytes,
      preexisting: [...preexisting.map((name) => ({ name, frames: inputFrame })), ...constants],
      outputs: new Set(model.graph.outputs.map((o) => o.name)),
    },
    runs,
    nodesWithSource,
  };
}
