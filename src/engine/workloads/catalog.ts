/**
 * The built-in workloads a user can run without PyTorch: what they are, their variants and sizes,
 * the graph of each, and deterministic input data. Shared by the command palette and the CLI.
 */
import type { WorkloadGraph } from './graphBuilder';
import { elementCount } from './graphBuilder';
import { SIMILARITY_ALIASES, SIMILARITY_FUNCTION, buildSimilarity } from './similarity';
import type { SimilaritySize, SimilarityVariant } from './similarity';
import { TRAIN_STEP_FUNCTION, buildTrainStep } from './trainStep';
import type { TrainStepSize, TrainStepVariant } from './trainStep';

export type WorkloadId = 'similarity' | 'train-step';
export type SizeId = 'tiny' | 'small' | 'medium' | 'large';

export interface VariantInfo {
  readonly id: string;
  readonly title: string;
  readonly detail: string;
  /** Forces onnxruntime's CPU memory arena on or off for this variant (the `cleanup` variant runs without a caching allocator). */
  readonly memoryArena?: boolean;
}

export interface SizeInfo {
  readonly id: SizeId;
  /** The dimensions, e.g. `B=1 C=64 M=4096 Q=4096`. */
  readonly detail: string;
}

export interface WorkloadInfo {
  readonly id: WorkloadId;
  readonly title: string;
  readonly detail: string;
  /** The shipped Python sample the graph's nodes map to (in media/samples/). */
  readonly sample: string;
  /** The sample function whose arguments the graph's inputs are. */
  readonly entryFunction: string;
  readonly variants: readonly VariantInfo[];
  readonly sizes: readonly SizeInfo[];
  readonly defaultSize: SizeId;
  /** Older variant names still accepted, mapped to the current ones. */
  readonly aliases?: Readonly<Record<string, string>>;
}

const SIMILARITY_SIZES: Readonly<Record<SizeId, SimilaritySize>> = {
  tiny: { batch: 1, channels: 16, memory: 64, query: 48 },
  small: { batch: 1, channels: 64, memory: 1024, query: 1024 },
  medium: { batch: 1, channels: 64, memory: 4096, query: 4096 },
  large: { batch: 1, channels: 64, memory: 8192, query: 8192 },
};

const TRAIN_STEP_SIZES: Readonly<Record<SizeId, TrainStepSize>> = {
  tiny: { batch: 16, width: 8, hidden: 16, blocks: 2 },
  small: { batch: 1024, width: 128, hidden: 512, blocks: 4 },
  medium: { batch: 4096, width: 256, hidden: 1024, blocks: 8 },
  large: { batch: 16384, width: 512, hidden: 2048, blocks: 8 },
};

export const WORKLOADS: readonly WorkloadInfo[] = [
  {
    id: 'similarity',
    title: 'Similarity (McByte get_similarity)',
    detail: "The seed's three iterations: eager, cleanup (del + cache release), in place (small tensors first)",
    sample: 'similarity.py',
    entryFunction: SIMILARITY_FUNCTION,
    variants: [
      {
        id: 'eager',
        title: 'eager',
        detail: 'the eager code: every [B,M,Q] intermediate is its own tensor, the locals a_sq and two_ab alive until return, the old similarity until its line is done',
      },
      {
        id: 'cleanup',
        title: 'cleanup',
        detail: "intermediates freed at their last use (del) and no caching arena (onnxruntime's analogue of empty_cache)",
        memoryArena: false,
      },
      {
        id: 'inplace',
        title: 'inplace',
        detail: 'small tensors first, the similarity built once and updated in place',
      },
    ],
    aliases: SIMILARITY_ALIASES,
    sizes: (Object.keys(SIMILARITY_SIZES) as SizeId[]).map((id) => {
      const s = SIMILARITY_SIZES[id];
      return { id, detail: `B=${s.batch} C=${s.channels} M=${s.memory} Q=${s.query}` };
    }),
    defaultSize: 'medium',
  },
  {
    id: 'train-step',
    title: 'Residual MLP training step',
    detail: 'Forward, loss, backward and SGD update of a residual ReLU MLP',
    sample: 'train_step.py',
    entryFunction: TRAIN_STEP_FUNCTION,
    variants: [
      { id: 'plain', title: 'plain', detail: 'keeps every activation for the backward pass' },
      { id: 'checkpointed', title: 'checkpointed', detail: 'keeps only the residual stream and recomputes each block in its backward pass' },
    ],
    sizes: (Object.keys(TRAIN_STEP_SIZES) as SizeId[]).map((id) => {
      const s = TRAIN_STEP_SIZES[id];
      return { id, detail: `batch=${s.batch} width=${s.width} hidden=${s.hidden} blocks=${s.blocks}` };
    }),
    defaultSize: 'small',
  },
];

export function workloadInfo(id: string): WorkloadInfo | undefined {
  return WORKLOADS.find((w) => w.id === id);
}

/** A variant by its id or an older alias; undefined when the workload has no such variant. */
export function resolveVariant(info: WorkloadInfo, name: string): VariantInfo | undefined {
  const id = info.aliases?.[name] ?? name;
  return info.variants.find((v) => v.id === id);
}

/** The graph of a workload; throws on an unknown variant or size (callers validate user input first). */
export function buildWorkload(id: WorkloadId, variant: string, size: SizeId): WorkloadGraph {
  const info = workloadInfo(id);
  const resolved = info && resolveVariant(info, variant);
  if (!info || !resolved) throw new Error(`unknown variant '${variant}' of ${id}`);
  if (!info.sizes.some((s) => s.id === size)) throw new Error(`unknown size '${size}'`);
  return id === 'similarity'
    ? buildSimilarity(resolved.id as SimilarityVariant, SIMILARITY_SIZES[size])
    : buildTrainStep(resolved.id as TrainStepVariant, TRAIN_STEP_SIZES[size]);
}

/** A small, fast, seeded generator (mulberry32): the same inputs on every run and machine. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Fills a tensor with values uniform in [low, high). */
export function uniform(count: number, low: number, high: number, random: () => number): Float32Array {
  const out = new Float32Array(count);
  for (let i = 0; i < count; i++) out[i] = low + (high - low) * random();
  return out;
}

/** Input data for a workload's graph: keys and queries around 0, selection in [0,1), shrinkage in [1,2); MLP weights scaled by 1/sqrt(fan-in). */
export function workloadInputs(id: WorkloadId, graph: WorkloadGraph, seed = 1): Map<string, Float32Array> {
  const random = seededRandom(seed);
  const feeds = new Map<string, Float32Array>();
  for (const name of graph.inputs) {
    const shape = graph.shapes.get(name) ?? [];
    const n = elementCount(shape);
    let range: [number, number] = [-1, 1];
    if (id === 'similarity') {
      if (name === 'qe') range = [0, 1];
      else if (name === 'ms') range = [1, 2];
    } else if (/^w\d_/.test(name)) {
      const limit = Math.sqrt(3 / shape[0]);
      range = [-limit, limit];
    } else if (/^b\d_/.test(name)) {
      range = [-0.1, 0.1];
    }
    feeds.set(name, uniform(n, range[0], range[1], random));
  }
  return feeds;
}
