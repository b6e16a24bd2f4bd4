/**
 * The similarity workload (McByte's `get_similarity`): memory keys mk [B,C,M], query keys qk and
 * selection qe [B,C,Q], shrinkage ms [B,M,1];
 *   a_sq = mk.pow(2).transpose(1,2) @ qe
 *   two_ab = 2 * (mk.transpose(1,2) @ (qk*qe))
 *   b_sq = (qe*qk.pow(2)).sum(1, keepdim=True)
 *   similarity = (-a_sq + two_ab - b_sq) * ms / sqrt(C)
 * in the seed's three iterations, each a graph whose nodes stand for the lines of the sample function
 * it mirrors (media/samples/similarity.py):
 * - `eager` (similarity_eager): every [B,M,Q] intermediate is its own tensor, the locals `a_sq` and
 *   `two_ab` stay alive until the function returns, and the old `similarity` while the last line's
 *   right-hand side is evaluated (Python rebinds the name only after it), as in PyTorch eager. They are
 *   graph outputs here: onnxruntime would otherwise free each at its last read;
 * - `cleanup` (similarity_cleanup): the same statements, every intermediate freed at its last use (the
 *   `del`s) except the old `similarity` of the last line (the same rebinding), and no caching allocator:
 *   the session runs with onnxruntime's CPU arena off, so every freed tensor goes back to the system,
 *   onnxruntime-node's nearest analogue of `torch.cuda.empty_cache()` (its binding exposes no run option
 *   for arena shrinkage);
 * - `inplace` (similarity_inplace): small tensors first, the similarity built once and updated
 *   (`mul_`, `sub_`, `baddbmm_`, `div_`). ONNX has no in-place operators: each update is a node with a
 *   new output, and the input dies at it. `baddbmm_(mk.pow(2).transpose(1, 2), qe, alpha=-1)` is a Gemm
 *   with C = similarity, transA = 1, alpha = -1, beta = 1 on 2-D views (Reshape, which onnxruntime
 *   aliases) of the batch of one: like the PyTorch statement, it never materialises a_sq.
 */
import type { SourceKey, WorkloadGraph } from './graphBuilder';
import { GraphBuilder } from './graphBuilder';

export interface SimilaritySize {
  readonly batch: number;
  readonly channels: number;
  /** M: memory elements. */
  readonly memory: number;
  /** Q: query elements. */
  readonly query: number;
}

export type SimilarityVariant = 'eager' | 'cleanup' | 'inplace';

/** Names of earlier releases, still accepted: `baseline` was the eager graph, `fused` the memory-saving one. */
export const SIMILARITY_ALIASES: Readonly<Record<string, SimilarityVariant>> = { baseline: 'eager', fused: 'inplace', 'empty-cache': 'cleanup' };

/** The sample function each variant mirrors. */
export const SIMILARITY_FUNCTIONS: Readonly<Record<SimilarityVariant, string>> = {
  eager: 'similarity_eager',
  cleanup: 'similarity_cleanup',
  inplace: 'similarity_inplace',
};
/** The function whose arguments the graphs' inputs are (all three take the same). */
export const SIMILARITY_FUNCTION = SIMILARITY_FUNCTIONS.eager;

/** The call in main() that every statement runs under. */
const CALL: SourceKey = { function: 'main', statement: 'similarity = fn(' };

function declareInputs(g: GraphBuilder, size: SimilaritySize): void {
  const { batch: B, channels: C, memory: M, query: Q } = size;
  const created = (name: string): SourceKey => ({ function: 'main', statement: `${name} = ` });
  g.input('mk', [B, C, M], created('mk'));
  g.input('qk', [B, C, Q], created('qk'));
  g.input('qe', [B, C, Q], created('qe'));
  g.input('ms', [B, M, 1], created('ms'));
}

const SWAP_LAST: { perm: { kind: 'ints'; value: number[] } } = { perm: { kind: 'ints', value: [0, 2, 1] } };

/** Nodes for `b_sq = (qe * qk.pow(2)).sum(1, keepdim=True)`. */
function bSq(g: GraphBuilder): string {
  const qkSq = g.op('Pow', ['qk', 'two'], 'qk_sq');
  const weighted = g.op('Mul', ['qe', qkSq], 'qe_qk_sq');
  return g.op('ReduceSum', [weighted, g.ints('channel_axis', [1])], 'b_sq', { keepdims: { kind: 'int', value: 1 } });
}

/** Nodes for `a_sq = mk.pow(2).transpose(1, 2) @ qe`. */
function aSq(g: GraphBuilder): string {
  const mkSq = g.op('Pow', ['mk', 'two'], 'mk_sq');
  const mkSqT = g.op('Transpose', [mkSq], 'mk_sq_t', SWAP_LAST);
  return g.op('MatMul', [mkSqT, 'qe'], 'a_sq');
}

/** Nodes for `mk.transpose(1, 2) @ (qk * qe)`. */
function ab(g: GraphBuilder): string {
  const mkT = g.op('Transpose', ['mk'], 'mk_t', SWAP_LAST);
  const qkQe = g.op('Mul', ['qk', 'qe'], 'qk_qe');
  return g.op('MatMul', [mkT, qkQe], 'ab');
}

/** The eager statements, shared by `eager` and `cleanup` (which differ in what stays alive and in the allocator). */
function eagerStatements(g: GraphBuilder, at: (statement: string) => void, cleanup: boolean): { aSq: string; twoAb: string; oldSimilarity: string } {
  at('a_sq =');
  const a = aSq(g);
  at('two_ab =');
  const twoAb = g.op('Mul', ['two', ab(g)], 'two_ab');
  at('b_sq =');
  const b = bSq(g);
  at('similarity = -a_sq');
  const negASq = g.op('Neg', [a], 'neg_a_sq');
  let similarity = g.op('Add', [negASq, twoAb], 'neg_a_sq_plus_two_ab');
  // similarity_cleanup subtracts b_sq on its own line, after the `del` and the cache release.
  if (cleanup) at('similarity = similarity - b_sq');
  similarity = g.op('Sub', [similarity, b], 'minus_b_sq');
  at('similarity = similarity * ms');
  const shrunk = g.op('Mul', [similarity, 'ms'], 'times_ms');
  g.op('Div', [shrunk, 'sqrt_c'], 'similarity');
  return { aSq: a, twoAb, oldSimilarity: similarity };
}

/**
 * Nodes for `similarity.baddbmm_(mk.pow(2).transpose(1, 2), qe, alpha=-1)`: similarity - a_sq without a_sq.
 * ONNX's only multiply-accumulate is the 2-D Gemm, so a batch of one (every built-in size) is viewed as
 * 2-D; for B > 1 there is no batched form, and the graph computes a_sq and subtracts it (one more [B,M,Q]).
 */
function subtractASq(g: GraphBuilder, similarity: string, size: SimilaritySize): string {
  const { batch: B, channels: C, memory: M, query: Q } = size;
  const mkSq = g.op('Pow', ['mk', 'two'], 'mk_sq');
  if (B !== 1) {
    const mkSqT = g.op('Transpose', [mkSq], 'mk_sq_t', SWAP_LAST);
    return g.op('Sub', [similarity, g.op('MatMul', [mkSqT, 'qe'], 'a_sq')], 'similarity_minus_a_sq');
  }
  const product = g.op('Gemm', [g.view(mkSq, [C, M], 'mk_sq_2d'), g.view('qe', [C, Q], 'qe_2d'), g.view(similarity, [M, Q], 'similarity_2d')], 'similarity_minus_a_sq_2d', {
    transA: { kind: 'int', value: 1 },
    alpha: { kind: 'float', value: -1 },
    beta: { kind: 'float', value: 1 },
  });
  return g.view(product, [B, M, Q], 'similarity_minus_a_sq');
}

export function buildSimilarity(variant: SimilarityVariant, size: SimilaritySize): WorkloadGraph {
  const fn = SIMILARITY_FUNCTIONS[variant];
  const g = new GraphBuilder(`similarity_${variant}`, fn);
  declareInputs(g, size);
  g.constant('two', [2]);
  g.constant('sqrt_c', [Math.sqrt(size.channels)]);
  const at = (statement: string): void => {
    g.at({ function: fn, statement }, CALL);
  };
  if (variant === 'inplace') {
    at('b_sq =');
    const b = bSq(g);
    at('similarity = mk.transpose');
    let similarity = ab(g);
    at('similarity.mul_(2)');
    similarity = g.op('Mul', [similarity, 'two'], 'similarity_times_2');
    at('similarity.sub_(b_sq)');
    similarity = g.op('Sub', [similarity, b], 'similarity_minus_b_sq');
    at('similarity.baddbmm_(');
    similarity = subtractASq(g, similarity, size);
    at('similarity.mul_(ms)');
    similarity = g.op('Mul', [similarity, 'ms'], 'similarity_times_ms');
    at('similarity.div_(');
    g.op('Div', [similarity, 'sqrt_c'], 'similarity');
    g.output('similarity');
  } else {
    const held = eagerStatements(g, at, variant === 'cleanup');
    g.output('similarity');
    // PyTorch eager keeps the locals a_sq and two_ab until the function returns; in both, the old
    // `similarity` lives until the last line's right-hand side is done (nothing runs after it here).
    const released = (statement: string): SourceKey => ({ function: fn, statement });
    if (variant === 'eager') {
      g.output(held.aSq, released('return similarity'), CALL);
      g.output(held.twoAb, released('return similarity'), CALL);
    }
    g.output(held.oldSimilarity, released('similarity = similarity * ms'), CALL);
  }
  return g.build();
}

export interface SimilarityInputs {
  readonly mk: Float32Array;
  readonly qk: Float32Array;
  readonly qe: Float32Array;
  readonly ms: Float32Array;
}

/** The plain formula in float64, element by element: the reference both graphs are checked against. */
export function similarityReference(size: SimilaritySize, x: SimilarityInputs): Float64Array {
  const { batch: B, channels: C, memory: M, query: Q } = size;
  const out = new Float64Array(B * M * Q);
  for (let b = 0; b < B; b++) {
    for (let m = 0; m < M; m++) {
      for (let q = 0; q < Q; q++) {
        let aSq = 0;
        let ab = 0;
        let bSquared = 0;
        for (let c = 0; c < C; c++) {
          const k = x.mk[(b * C + c) * M + m];
          const qi = (b * C + c) * Q + q;
          aSq += k * k * x.qe[qi];
          ab += k * x.qk[qi] * x.qe[qi];
          bSquared += x.qe[qi] * x.qk[qi] * x.qk[qi];
        }
        out[(b * M + m) * Q + q] = ((-aSq + 2 * ab - bSquared) * x.ms[b * M + m]) / Math.sqrt(C);
      }
    }
  }
  return out;
}
