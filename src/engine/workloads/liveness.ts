/**
 * Turns one run of an ONNX graph into a sequence of memory events, PyTorch-allocator style.
 *
 * Reconstructed (exact sizes, lifetimes from the graph): each node's outputs are allocated when it
 * starts, and a tensor is freed when its last consumer (in the order the runtime executed) ends.
 * Graph inputs and initializers exist before the first node; graph outputs are never freed, except those
 * that stand for a function's locals (`releasedAtEnd`), freed after the last node.
 *
 * Measured (where onnxruntime's profile carries arena statistics, see ortProfile.ts):
 * - a node whose arena usage did not grow and that consumes, for the last time, an input of its
 *   output's size wrote in place: the input's block becomes the output's block;
 * - bytes the arena had in use beyond the live tensors (buffers it keeps for reuse, padding) form a
 *   block "held by onnxruntime", resized at each node, attributed to no source line;
 * - a rise of the arena's running peak during a node above what the trace already holds then is
 *   kernel scratch memory, allocated and freed within the node and attributed to the node's line.
 * So where the arena measured, the trace's total at each node is the arena's figure (plus inputs).
 */
import type { Frame } from '../snapshot/model';

export interface ExecNode {
  readonly name: string;
  readonly opType: string;
  readonly inputs: readonly string[];
  readonly outputs: readonly string[];
  /** Where the node comes from, innermost first. */
  readonly frames: readonly Frame[];
}

/** The graph as the reconstruction sees it. */
export interface ExecGraph {
  readonly nodes: readonly ExecNode[];
  /** Bytes of every tensor the nodes produce or read; unknown tensors count 0. */
  readonly tensorBytes: ReadonlyMap<string, number>;
  /** Tensors that exist before the first node (graph inputs, initializers), with their frames. */
  readonly preexisting: readonly { readonly name: string; readonly frames: readonly Frame[] }[];
  readonly outputs: ReadonlySet<string>;
  /**
   * Graph outputs that stand for a function's locals (kept as outputs so that onnxruntime does not free
   * them at their last read): freed when the last node ends, with these frames (the `return` statement).
   */
  readonly releasedAtEnd?: ReadonlyMap<string, readonly Frame[]>;
}

/** onnxruntime's arena statistics for one node (profile `mem_*` fields). */
export interface ArenaStats {
  /** Bytes requested and not yet freed, right after the kernel ran. */
  readonly requestedInUse: number;
  /** The same with the arena's chunk rounding. */
  readonly inUse: number;
  /** Change of `requestedInUse` during the kernel. */
  readonly requestedDelta: number;
  /** Running maximum of `inUse` since the session started. */
  readonly runningPeak: number;
}

/** One executed node, in execution order. */
export interface NodeRun {
  /** Index into `ExecGraph.nodes`. */
  readonly node: number;
  /** Start, microseconds (any origin, consistent within the run). */
  readonly startUs: number;
  readonly durationUs: number;
  readonly arena: ArenaStats | undefined;
}

export type FigureOrigin = 'measured' | 'reconstructed';

export interface MemoryEvent {
  readonly kind: 'alloc' | 'free';
  /** A block id, unique within the trace; alloc and free of one block share it. */
  readonly block: number;
  readonly bytes: number;
  readonly timeUs: number;
  readonly frames: readonly Frame[];
  /** What the block holds, e.g. `MatMul a_sq`, `held by onnxruntime`, `input mk`. */
  readonly label: string;
  readonly origin: FigureOrigin;
}

/** Memory while one node ran. */
export interface NodeMemory {
  readonly name: string;
  readonly opType: string;
  readonly frames: readonly Frame[];
  readonly startUs: number;
  readonly durationUs: number;
  readonly outputBytes: number;
  /** Bytes of node outputs (intermediates) live while the node ran, from the graph. */
  readonly reconstructedBytes: number;
  /** The arena's requested bytes in use after the kernel, when the profile measured it. */
  readonly measuredBytes: number | undefined;
  /** Kernel scratch seen by the arena's running peak during this node. */
  readonly scratchBytes: number;
}

export interface MemoryTrace {
  readonly events: readonly MemoryEvent[];
  readonly nodes: readonly NodeMemory[];
  /** Bytes of graph inputs and initializers (live throughout). */
  readonly preexistingBytes: number;
  /** Peak of reconstructed intermediates (node outputs) alone. */
  readonly reconstructedPeakBytes: number;
  /** Peak of the arena's requested bytes in use, when measured. */
  readonly measuredPeakBytes: number | undefined;
  /** Whether any node carried arena statistics. */
  readonly measured: boolean;
}

/** Frames of memory that belongs to the runtime rather than to a source line (a library frame by the spec's rules). */
export const RUNTIME_FRAMES: readonly Frame[] = [{ filename: '<onnxruntime>', line: 0, name: 'arena' }];

export function reconstructMemory(graph: ExecGraph, runs: readonly NodeRun[]): MemoryTrace {
  const bytesOf = (t: string) => graph.tensorBytes.get(t) ?? 0;
  const preexisting = new Set(graph.preexisting.map((p) => p.name));
  const lastUse = new Map<string, number>();
  runs.forEach((run, position) => {
    for (const input of graph.nodes[run.node].inputs) if (input !== '') lastUse.set(input, position);
  });

  const events: MemoryEvent[] = [];
  const nodes: NodeMemory[] = [];
  const blockOf = new Map<string, { block: number; bytes: number }>();
  let nextBlock = 0;
  let live = 0;
  let reconstructedPeak = 0;
  let measuredPeak: number | undefined;
  let held: { block: number; bytes: number } | undefined;
  let previousRunningPeak = 0;

  const alloc = (tensor: string, bytes: number, timeUs: number, frames: readonly Frame[], label: string, origin: FigureOrigin) => {
    const block = nextBlock++;
    blockOf.set(tensor, { block, bytes });
    events.push({ kind: 'alloc', block, bytes, timeUs, frames, label, origin });
  };
  /** Frees the block of `tensor`; returns its bytes (0 when it had none). */
  const free = (tensor: string, timeUs: number, frames: readonly Frame[], label: string, origin: FigureOrigin): number => {
    const held = blockOf.get(tensor);
    if (held === undefined) return 0;
    blockOf.delete(tensor);
    events.push({ kind: 'free', block: held.block, bytes: held.bytes, timeUs, frames, label, origin });
    return held.bytes;
  };

  // What the arena held before the first node ran and holds throughout: the initializers (onnxruntime
  // places them in the provider's arena, and makes `Constant` nodes initializers when it loads a model).
  // They are counted once, as pre-existing tensors (the built-in workloads' few-byte scalar constants,
  // Python scalars in the samples, not at all), so every measured figure leaves them out.
  const first = runs.find((r) => r.arena !== undefined)?.arena;
  const resident = first ? Math.max(0, first.requestedInUse - first.requestedDelta) : 0;
  /** The arena's figures without what it held before the first node. */
  const ownStats = (a: ArenaStats | undefined): ArenaStats | undefined =>
    a && {
      requestedInUse: Math.max(0, a.requestedInUse - resident),
      inUse: Math.max(0, a.inUse - resident),
      requestedDelta: a.requestedDelta,
      runningPeak: Math.max(0, a.runningPeak - resident),
    };

  const startUs = runs.length > 0 ? runs[0].startUs : 0;
  let preexistingBytes = 0;
  for (const p of graph.preexisting) {
    const bytes = bytesOf(p.name);
    preexistingBytes += bytes;
    if (bytes > 0) alloc(p.name, bytes, startUs, p.frames, `input ${p.name}`, 'reconstructed');
  }

  runs.forEach((run, position) => {
    const node = graph.nodes[run.node];
    const label = `${node.opType} ${node.name}`;
    const endUs = run.startUs + run.durationUs;
    const arena = ownStats(run.arena);
    const dying = [...new Set(node.inputs)].filter(
      (t) => t !== '' && lastUse.get(t) === position && !preexisting.has(t) && !graph.outputs.has(t) && blockOf.has(t),
    );
    const outputs = node.outputs.filter((t) => t !== '');
    let outputBytes = 0;
    for (const t of outputs) outputBytes += bytesOf(t);

    // In place: measured no growth, one output, and an input of the same size dies here.
    let inPlaceInput: string | undefined;
    if (arena && arena.requestedDelta <= 0 && outputs.length === 1 && outputBytes > 0) {
      inPlaceInput = dying.find((t) => bytesOf(t) === outputBytes);
    }
    if (inPlaceInput !== undefined) {
      live -= free(inPlaceInput, run.startUs, node.frames, label, 'measured');
    }
    let newOutputBytes = 0;
    for (const t of outputs) newOutputBytes += Math.max(0, bytesOf(t));
    // What the arena holds beyond the live tensors once this node's outputs exist. A shrinking hold is
    // applied before the outputs are allocated (the arena handed that memory to them), a growing one after.
    const heldBytes = arena ? Math.max(0, arena.requestedInUse - (live + newOutputBytes)) : 0;
    const resizeHeld = () => {
      if (!arena || heldBytes === (held?.bytes ?? 0)) return;
      if (held) free(`\u0000held${held.block}`, run.startUs, RUNTIME_FRAMES, 'held by onnxruntime', 'measured');
      held = undefined;
      if (heldBytes > 0) {
        held = { block: nextBlock, bytes: heldBytes };
        alloc(`\u0000held${held.block}`, heldBytes, run.startUs, RUNTIME_FRAMES, 'held by onnxruntime', 'measured');
      }
    };
    if (heldBytes < (held?.bytes ?? 0)) resizeHeld();
    for (const t of outputs) {
      const bytes = bytesOf(t);
      // A node that runs again (a Loop body, once per iteration) replaces what its last run made.
      if (blockOf.has(t) && !preexisting.has(t)) live -= free(t, run.startUs, node.frames, label, 'reconstructed');
      if (bytes <= 0) continue;
      alloc(t, bytes, run.startUs, node.frames, label, inPlaceInput === undefined ? 'reconstructed' : 'measured');
      live += bytes;
    }
    resizeHeld();
    reconstructedPeak = Math.max(reconstructedPeak, live);

    let scratch = 0;
    if (arena) {
      measuredPeak = Math.max(measuredPeak ?? 0, arena.requestedInUse);
      if (arena.runningPeak > previousRunningPeak) {
        // The arena's peak during the kernel, in requested bytes, beyond what the trace already shows.
        const transientPeak = arena.requestedInUse + arena.runningPeak - arena.inUse;
        scratch = Math.max(0, transientPeak - Math.max(live, arena.requestedInUse));
      }
      previousRunningPeak = Math.max(previousRunningPeak, arena.runningPeak);
      if (scratch > 0) {
        const key = `\u0000scratch${position}`;
        alloc(key, scratch, run.startUs, node.frames, `${label} scratch`, 'measured');
        free(key, endUs, node.frames, `${label} scratch`, 'measured');
        measuredPeak = Math.max(measuredPeak, arena.requestedInUse + scratch);
      }
    }

    nodes.push({
      name: node.name,
      opType: node.opType,
      frames: node.frames,
      startUs: run.startUs,
      durationUs: run.durationUs,
      outputBytes,
      reconstructedBytes: live,
      measuredBytes: arena?.requestedInUse,
      scratchBytes: scratch,
    });

    for (const t of dying) {
      if (t === inPlaceInput) continue;
      live -= free(t, endUs, node.frames, label, 'reconstructed');
    }
    for (const t of outputs) {
      if (!lastUse.has(t) && !graph.outputs.has(t) && blockOf.has(t)) {
        live -= free(t, endUs, node.frames, label, 'reconstructed');
      }
    }
  });

  if (graph.releasedAtEnd && runs.length > 0) {
    const last = runs[runs.length - 1];
    for (const [t, frames] of graph.releasedAtEnd) live -= free(t, last.startUs + last.durationUs, frames, `released ${t}`, 'reconstructed');
  }

  return {
    events,
    nodes,
    preexistingBytes,
    reconstructedPeakBytes: reconstructedPeak,
    measuredPeakBytes: measuredPeak,
    measured: measuredPeak !== undefined,
  };
}
