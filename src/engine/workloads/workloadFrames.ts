/**
 * Gives a built-in workload's graph its source locations: each node's statements are looked up in
 * the shipped sample's current text, and the result is the graph as the memory reconstruction reads it.
 */
import type { Frame } from '../snapshot/model';
import type { SourceKey, WorkloadGraph } from './graphBuilder';
import { tensorBytes } from './graphBuilder';
import type { ExecGraph } from './liveness';
import { PythonSource, SourceKeyError } from './sourceLines';

export interface ResolvedWorkload {
  readonly graph: ExecGraph;
  /** Statements that could not be found (the sample was edited or is missing); they fall back to the function's `def` line, or line 1. */
  readonly unresolved: readonly string[];
}

export function resolveWorkloadFrames(workload: WorkloadGraph, samplePath: string, sampleText: string): ResolvedWorkload {
  const source = new PythonSource(sampleText);
  const unresolved = new Set<string>();
  const frameCache = new Map<string, Frame>();
  const lineOf = (key: SourceKey): number => {
    try {
      return source.resolve(key);
    } catch (e) {
      if (!(e instanceof SourceKeyError)) throw e;
      unresolved.add(`${key.function}: ${key.statement}`);
      try {
        return source.defLine(key.function);
      } catch {
        return 1;
      }
    }
  };
  const frame = (key: SourceKey): Frame => {
    const id = `${key.function}\u0000${key.statement}\u0000${key.after ?? ''}`;
    let f = frameCache.get(id);
    if (!f) {
      f = { filename: samplePath, line: lineOf(key), name: key.function.slice(key.function.lastIndexOf('.') + 1) };
      frameCache.set(id, f);
    }
    return f;
  };
  // Frames lists are shared between nodes with the same stack, so the snapshot shares them too.
  const stacks = new Map<readonly SourceKey[], Frame[]>();
  const framesOf = (stack: readonly SourceKey[]): Frame[] => {
    let frames = stacks.get(stack);
    if (!frames) {
      frames = stack.map(frame);
      stacks.set(stack, frames);
    }
    return frames;
  };

  let entryLine = 1;
  try {
    entryLine = source.defLine(workload.entryFunction);
  } catch {
    unresolved.add(`${workload.entryFunction}: def`);
  }
  const entryFrames: Frame[] = [{ filename: samplePath, line: entryLine, name: workload.entryFunction }];

  const tensorBytesMap = new Map<string, number>();
  for (const [name, shape] of workload.shapes) tensorBytesMap.set(name, workload.views.has(name) ? 0 : tensorBytes(shape, workload.int64Tensors.has(name)));
  // A view owns no bytes; a node that reads it reads its base, which so lives until the view's last reader.
  const base = (t: string): string => workload.views.get(t) ?? t;
  const inputFrames = (name: string): readonly Frame[] => {
    const stack = workload.inputStacks.get(name);
    return stack ? framesOf(stack) : entryFrames;
  };
  return {
    graph: {
      nodes: workload.nodes.map((n) => ({ name: n.name, opType: n.opType, inputs: n.inputs.map(base), outputs: n.outputs, frames: framesOf(n.stack) })),
      tensorBytes: tensorBytesMap,
      // The graph's constants (2, sqrt(C), axes: a few bytes, Python scalars in the sample) are left out.
      preexisting: workload.inputs.map((name) => ({ name, frames: inputFrames(name) })),
      outputs: new Set(workload.outputs.map(base)),
      releasedAtEnd: new Map([...workload.releasedAtEnd].map(([t, stack]) => [base(t), framesOf(stack)])),
    },
    unresolved: [...unresolved],
  };
}
