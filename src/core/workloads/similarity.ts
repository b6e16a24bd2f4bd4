/**
 * The similarity workload (McByte's `get_similarity`): memory keys mk [B,C,M], query keys qk and
 * selection qe [B,C,Q], shrinkage ms [B,M,1];
 *   a_sq = mk.pow(2).transpose(1,2) @ qe
 *   two_ab = 2 * (mk.transpose(1,2) @ (qk*qe))
 *   b_sq = (qe*qk.pow(2)).sum(1, keepdim=True)
 *   similarity = (-a_sq + two_ab - b_sq) * ms / sqrt(C)
 * Two graphs: `baseline` materialises every [B,M,Q] intermediate as the eager code does; `fused`
 * folds the whole expression into one matrix product over 2C+1 concatenated channels
 *   [s*mk^T, -s*(mk^T)^2, -s] @ [2*qk*qe ; qe ; b_sq],  s = ms / sqrt(C)
 * so the output is its only [B,M,Q] tensor.
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

export type SimilarityVariant = 'baseline' | 'fused';

/** The function of media/samples/similarity.py both graphs stand for, and its statements. */
export const SIMILARITY_FUNCTION = 'similarity_eager';
const at = (statement: string): SourceKey => ({ function: SIMILARITY_FUNCTION, statement });
export const SimilarityStatements = {
  aSq: at('a_sq ='),
  twoAb: at('two_ab ='),
  bSq: at('b_sq ='),
  /** `similarity = -a_sq + two_ab - b_sq` */
  combine: at('similarity = -a_sq'),
  /** `similarity = similarity * ms / math.sqrt(c)` */
  scale: at('similarity = similarity * ms'),
  /** The call in main() that every statement above runs under. */
  call: { function: 'main', statement: 'similarity = fn(' },
} as const satisfies Record<string, SourceKey>;

function declareInputs(g: GraphBuilder, size: SimilaritySize): void {
  const { batch: B, channels: C, memory: M, query: Q } = size;
  const created = (name: string): SourceKey => ({ function: 'main', statement: `${name} = ` });
  g.input('mk', [B, C, M], created('mk'));
  g.input('qk', [B, C, Q], created('qk'));
  g.input('qe', [B, C, Q], created('qe'));
  g.input('ms', [B, M, 1], created('ms'));
}

/** Nodes added next stand for `statement` of similarity_eager, called from main. */
function inEager(g: GraphBuilder, statement: SourceKey): void {
  g.at(statement, SimilarityStatements.call);
}

function bSq(g: GraphBuilder): string {
  inEager(g, SimilarityStatements.bSq);
  const qkSq = g.op('Pow', ['qk', 'two'], 'qk_sq');
  const weighted = g.op('Mul', ['qe', qkSq], 'qe_qk_sq');
  return g.op('ReduceSum', [weighted, g.ints('channel_axis', [1])], 'b_sq', { keepdims: { kind: 'int', value: 1 } });
}

const SWAP_LAST: { perm: { kind: 'ints'; value: number[] } } = { perm: { kind: 'ints', value: [0, 2, 1] } };

export function buildSimilarity(variant: SimilarityVariant, size: SimilaritySize): WorkloadGraph {
  const g = new GraphBuilder(`similarity_${variant}`, SIMILARITY_FUNCTION);
  declareInputs(g, size);
  g.constant('two', [2]);
  g.constant('sqrt_c', [Math.sqrt(size.channels)]);
  if (variant === 'baseline') {
    inEager(g, SimilarityStatements.aSq);
    const mkSq = g.op('Pow', ['mk', 'two'], 'mk_sq');
    const mkSqT = g.op('Transpose', [mkSq], 'mk_sq_t', SWAP_LAST);
    const aSq = g.op('MatMul', [mkSqT, 'qe'], 'a_sq');
    inEager(g, SimilarityStatements.twoAb);
    const mkT = g.op('Transpose', ['mk'], 'mk_t', SWAP_LAST);
    const qkQe = g.op('Mul', ['qk', 'qe'], 'qk_qe');
    const ab = g.op('MatMul', [mkT, qkQe], 'ab');
    const twoAb = g.op('Mul', ['two', ab], 'two_ab');
    const b = bSq(g);
    inEager(g, SimilarityStatements.combine);
    const negASq = g.op('Neg', [aSq], 'neg_a_sq');
    const sum = g.op('Add', [negASq, twoAb], 'neg_a_sq_plus_two_ab');
    const combined = g.op('Sub', [sum, b], 'minus_b_sq');
    inEager(g, SimilarityStatements.scale);
    const shrunk = g.op('Mul', [combined, 'ms'], 'times_ms');
    g.op('Div', [shrunk, 'sqrt_c'], 'similarity');
  } else {
    inEager(g, SimilarityStatements.scale);
    const scale = g.op('Div', ['ms', 'sqrt_c'], 'scale');
    const negScale = g.op('Neg', [scale], 'neg_scale');
    inEager(g, SimilarityStatements.twoAb);
    const mkT = g.op('Transpose', ['mk'], 'mk_t', SWAP_LAST);
    const leftAb = g.op('Mul', [mkT, scale], 'left_ab');
    const qkQe = g.op('Mul', ['qk', 'qe'], 'qk_qe');
    const rightAb = g.op('Mul', ['two', qkQe], 'right_ab');
    inEager(g, SimilarityStatements.aSq);
    const mkTSq = g.op('Pow', [mkT, 'two'], 'mk_t_sq');
    const leftA = g.op('Mul', [mkTSq, negScale], 'left_a');
    const b = bSq(g);
    // The one product computes -a_sq + two_ab - b_sq, already scaled.
    inEager(g, SimilarityStatements.combine);
    const left = g.op('Concat', [leftAb, leftA, negScale], 'left', { axis: { kind: 'int', value: 2 } });
    const right = g.op('Concat', [rightAb, 'qe', b], 'right', { axis: { kind: 'int', value: 1 } });
    g.op('MatMul', [left, right], 'similarity');
  }
  g.output('similarity');
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
