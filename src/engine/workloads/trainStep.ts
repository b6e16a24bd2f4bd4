/**
 * One training step of media/samples/train_step.py's residual MLP in plain ONNX ops: blocks of
 * Linear-ReLU-Linear-ReLU added to the residual stream, mean squared error, a backward pass with
 * explicit gradient nodes, and an SGD update whose new parameters are the graph's outputs (the sample
 * uses Adam; SGD keeps the graph free of optimiser state without changing the activation memory).
 *
 * `checkpointed` keeps only the residual stream from the forward pass and recomputes each block's
 * activations in its backward, as `checkpoint(block, x, use_reentrant=False)` does.
 */
import type { SourceKey, WorkloadGraph } from './graphBuilder';
import { GraphBuilder } from './graphBuilder';

export interface TrainStepSize {
  readonly batch: number;
  /** Width of the residual stream (input and output). */
  readonly width: number;
  /** Width inside a block. */
  readonly hidden: number;
  /** Number of blocks (>= 1). */
  readonly blocks: number;
}

export type TrainStepVariant = 'plain' | 'checkpointed';

export const LEARNING_RATE = 0.01;

/** The function of media/samples/train_step.py the graph stands for, and the statements its nodes stand for. */
export const TRAIN_STEP_FUNCTION = 'main';
const inMain = (statement: string): SourceKey => ({ function: TRAIN_STEP_FUNCTION, statement, after: 'for step in range' });
export const TrainStepStatements = {
  modelCall: inMain('out = model(x)'),
  fc1: { function: 'Block.forward', statement: 'h = ' },
  fc2: { function: 'Block.forward', statement: 'y = ' },
  residual: { function: 'ResidualMLP.forward', statement: 'x = x + block(x)' },
  residualCheckpointed: { function: 'ResidualMLP.forward', statement: 'x = x + checkpoint(' },
  loss: inMain('loss = '),
  backward: inMain('scaler.scale(loss).backward()'),
  update: inMain('scaler.step(optimizer)'),
  inputX: { function: TRAIN_STEP_FUNCTION, statement: 'x = torch.randn(' },
  inputY: { function: TRAIN_STEP_FUNCTION, statement: 'y = torch.randn(' },
  parameters: { function: TRAIN_STEP_FUNCTION, statement: 'model = ResidualMLP(' },
} as const satisfies Record<string, SourceKey>;

/** Parameter names of block i (1-based), in the order the update writes them. */
export function parameterNames(i: number): { w1: string; b1: string; w2: string; b2: string } {
  return { w1: `w1_${i}`, b1: `b1_${i}`, w2: `w2_${i}`, b2: `b2_${i}` };
}

const TRANS_A = { transA: { kind: 'int', value: 1 } } as const;
const TRANS_B = { transB: { kind: 'int', value: 1 } } as const;
const NO_KEEPDIMS = { keepdims: { kind: 'int', value: 0 } } as const;

export function buildTrainStep(variant: TrainStepVariant, size: TrainStepSize, learningRate = LEARNING_RATE): WorkloadGraph {
  const { batch: N, width: D, hidden: H, blocks: L } = size;
  if (L < 1) throw new Error('the MLP needs at least one block');
  const s = TrainStepStatements;
  const g = new GraphBuilder(`train_step_${variant}`, TRAIN_STEP_FUNCTION);
  g.input('x', [N, D], s.inputX);
  g.input('y', [N, D], s.inputY);
  for (let i = 1; i <= L; i++) {
    const p = parameterNames(i);
    g.input(p.w1, [D, H], s.parameters);
    g.input(p.b1, [H], s.parameters);
    g.input(p.w2, [H, D], s.parameters);
    g.input(p.b2, [D], s.parameters);
  }
  g.constant('inv_count', [1 / (N * D)]);
  g.constant('two_over_count', [2 / (N * D)]);
  g.constant('lr', [learningRate]);
  const batchAxis = g.ints('batch_axis', [0]);
  const residualLine = variant === 'plain' ? s.residual : s.residualCheckpointed;

  /** Block i's forward from `input`, named with `prefix`: h = relu(fc1(x)), y = relu(fc2(h)). */
  const block = (i: number, input: string, prefix: string, ...callers: SourceKey[]) => {
    const p = parameterNames(i);
    g.at(s.fc1, ...callers);
    const h = g.op('Relu', [g.op('Gemm', [input, p.w1, p.b1], `${prefix}fc1_${i}`)], `${prefix}h${i}`);
    g.at(s.fc2, ...callers);
    const y = g.op('Relu', [g.op('Gemm', [h, p.w2, p.b2], `${prefix}fc2_${i}`)], `${prefix}y${i}`);
    return { h, y };
  };

  // Forward: x_0 = x; x_i = x_{i-1} + block_i(x_{i-1}).
  const stream: string[] = ['x'];
  const saved: { h: string; y: string }[] = [];
  for (let i = 1; i <= L; i++) {
    saved[i] = block(i, stream[i - 1], '', residualLine, s.modelCall);
    g.at(residualLine, s.modelCall);
    stream.push(g.op('Add', [stream[i - 1], saved[i].y], `x${i}`));
  }

  // onnxruntime runs nodes in a reverse depth-first order from the graph's leaves, the last-added leaf
  // first, a node's last-added input first. The nodes are added so that this order is the one
  // PyTorch follows: the loss (added last) runs right after the forward pass, then block L's
  // backward and update, then block L-1's, ... (each block's parameter updates are added in
  // reverse). Otherwise activations would live until weight gradients computed at the very end.
  g.at(s.loss);
  const diff = g.op('Sub', [stream[L], 'y'], 'diff');

  // Backward: `grad` is dL/dx_i; through the residual it reaches x_{i-1} unchanged, plus the block's part.
  g.at(s.backward);
  let grad = g.op('Mul', [diff, 'two_over_count'], `grad_x${L}`);
  const gradients: [string, string][][] = [];
  for (let i = L; i >= 1; i--) {
    const p = parameterNames(i);
    // Checkpointed: the block runs again from the kept residual stream (its statements, called by the recomputation).
    const { h, y } = variant === 'plain' ? saved[i] : block(i, stream[i - 1], 'recompute_', s.backward);
    g.at(s.backward);
    const gradFc2 = g.op('Mul', [grad, g.op('Sign', [y], `relu_gate_y${i}`)], `grad_fc2_${i}`);
    const gradW2 = g.op('Gemm', [h, gradFc2], `grad_${p.w2}`, TRANS_A);
    const gradB2 = g.op('ReduceSum', [gradFc2, batchAxis], `grad_${p.b2}`, NO_KEEPDIMS);
    const gateH = g.op('Sign', [h], `relu_gate_h${i}`);
    const gradFc1 = g.op('Mul', [g.op('Gemm', [gradFc2, p.w2], `grad_h${i}`, TRANS_B), gateH], `grad_fc1_${i}`);
    const gradW1 = g.op('Gemm', [stream[i - 1], gradFc1], `grad_${p.w1}`, TRANS_A);
    const gradB1 = g.op('ReduceSum', [gradFc1, batchAxis], `grad_${p.b1}`, NO_KEEPDIMS);
    const gradBlockInput = g.op('Gemm', [gradFc1, p.w1], `grad_block_input${i}`, TRANS_B);
    grad = g.op('Add', [grad, gradBlockInput], `grad_x${i - 1}`);
    gradients[i] = [
      [p.b1, gradB1],
      [p.w1, gradW1],
      [p.b2, gradB2],
      [p.w2, gradW2],
    ];
  }

  g.at(s.update);
  for (let i = 1; i <= L; i++) {
    for (const [param, gradient] of gradients[i]) {
      const update = g.op('Mul', [gradient, 'lr'], `${param}_step`);
      g.output(g.op('Sub', [param, update], `${param}_new`));
    }
  }

  g.at(s.loss);
  const squared = g.op('Mul', [diff, diff], 'squared');
  const total = g.op('ReduceSum', [squared], 'squared_sum', NO_KEEPDIMS);
  g.output(g.op('Mul', [total, 'inv_count'], 'loss'));
  return g.build();
}

export interface TrainStepParams {
  readonly x: Float64Array;
  readonly y: Float64Array;
  /** Per block (index 0 = block 1), row-major: w1 [D, H], b1 [H], w2 [H, D], b2 [D]. */
  readonly blocks: readonly { w1: Float64Array; b1: Float64Array; w2: Float64Array; b2: Float64Array }[];
}

/** relu(a @ w + b) for a [N, K], w [K, M], b [M], in float64. */
function linearRelu(a: Float64Array, w: Float64Array, b: Float64Array, n: number, k: number, m: number): Float64Array {
  const out = new Float64Array(n * m);
  for (let r = 0; r < n; r++) {
    for (let c = 0; c < m; c++) {
      let sum = b[c];
      for (let j = 0; j < k; j++) sum += a[r * k + j] * w[j * m + c];
      out[r * m + c] = Math.max(0, sum);
    }
  }
  return out;
}

/** The loss of the residual MLP in float64 (the reference for finite differences). */
export function trainStepLoss(size: TrainStepSize, p: TrainStepParams): number {
  const { batch: N, width: D, hidden: H } = size;
  let x = p.x;
  for (const blk of p.blocks) {
    const h = linearRelu(x, blk.w1, blk.b1, N, D, H);
    const y = linearRelu(h, blk.w2, blk.b2, N, H, D);
    x = x.map((v, i) => v + y[i]);
  }
  let sum = 0;
  for (let j = 0; j < N * D; j++) sum += (x[j] - p.y[j]) ** 2;
  return sum / (N * D);
}
