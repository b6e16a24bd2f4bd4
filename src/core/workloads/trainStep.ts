/**
 * One training step of an MLP in plain ONNX ops: forward (Gemm + Relu per layer), mean squared error,
 * backward with explicit gradient nodes, and an SGD update whose new weights are the graph's outputs.
 *
 * `checkpointed` keeps only every k-th activation (k = ceil(sqrt(layers))) from the forward pass and
 * recomputes the others segment by segment in the backward pass, as torch.utils.checkpoint does.
 */
import type { SourceKey, WorkloadGraph } from './graphBuilder';
import { GraphBuilder } from './graphBuilder';

export interface TrainStepSize {
  readonly batch: number;
  /** Width of the input, of every hidden layer and of the output. */
  readonly width: number;
  /** Number of linear layers (>= 2); every one but the last is followed by a ReLU. */
  readonly layers: number;
}

export type TrainStepVariant = 'plain' | 'checkpointed';

export const LEARNING_RATE = 0.01;

/** The function of media/samples/train_step.py the graph stands for, and the statements its nodes stand for. */
export const TRAIN_STEP_FUNCTION = 'train_step';
export const TrainStepStatements = {
  /** The model call in train_step: the caller of every forward statement. */
  modelCall: { function: TRAIN_STEP_FUNCTION, statement: 'out = model(' },
  hidden: { function: 'forward', statement: 'x = ' },
  head: { function: 'forward', statement: 'return ' },
  loss: { function: TRAIN_STEP_FUNCTION, statement: 'loss = ' },
  backward: { function: TRAIN_STEP_FUNCTION, statement: 'loss.backward()' },
  update: { function: TRAIN_STEP_FUNCTION, statement: 'optimizer.step()' },
} as const satisfies Record<string, SourceKey>;

/** Graph input names of the weights and biases of layer i (1-based). */
export const weightName = (i: number): string => `w${i}`;
export const biasName = (i: number): string => `b${i}`;

/** Which activations the checkpointed variant keeps: a_0 (the input) and every k-th one. */
export function checkpointStride(layers: number): number {
  return Math.max(1, Math.ceil(Math.sqrt(layers)));
}

const TRANS_A = { transA: { kind: 'int', value: 1 } } as const;
const TRANS_B = { transB: { kind: 'int', value: 1 } } as const;

export function buildTrainStep(variant: TrainStepVariant, size: TrainStepSize, learningRate = LEARNING_RATE): WorkloadGraph {
  const { batch: N, width: D, layers: L } = size;
  if (L < 2) throw new Error('the MLP needs at least two layers');
  const g = new GraphBuilder(`train_step_${variant}`, TRAIN_STEP_FUNCTION);
  g.input('x', [N, D]);
  g.input('y', [N, D]);
  for (let i = 1; i <= L; i++) {
    g.input(weightName(i), [D, D]);
    g.input(biasName(i), [D]);
  }
  g.constant('inv_count', [1 / (N * D)]);
  g.constant('two_over_count', [2 / (N * D)]);
  g.constant('lr', [learningRate]);
  const batchAxis = g.ints('batch_axis', [0]);

  // Forward: a_0 = x; z_i = a_{i-1} W_i + b_i; a_i = relu(z_i); the output is z_L.
  const activation: string[] = ['x'];
  for (let i = 1; i < L; i++) {
    g.at(TrainStepStatements.hidden, TrainStepStatements.modelCall);
    const z = g.op('Gemm', [activation[i - 1], weightName(i), biasName(i)], `z${i}`);
    activation.push(g.op('Relu', [z], `a${i}`));
  }
  g.at(TrainStepStatements.head, TrainStepStatements.modelCall);
  const out = g.op('Gemm', [activation[L - 1], weightName(L), biasName(L)], 'out');

  g.at(TrainStepStatements.loss);
  const diff = g.op('Sub', [out, 'y'], 'diff');
  const squared = g.op('Mul', [diff, diff], 'squared');
  const total = g.op('ReduceSum', [squared], 'squared_sum', { keepdims: { kind: 'int', value: 0 } });
  g.op('Mul', [total, 'inv_count'], 'loss');
  g.output('loss');

  // Backward, layer L down to 1. `saved(j)` is a_j as the backward reads it: the forward's tensor, or
  // (checkpointed, j not a checkpoint) its recomputation from the checkpoint below it.
  g.at(TrainStepStatements.backward);
  const stride = checkpointStride(L);
  const isCheckpoint = (j: number) => variant === 'plain' || j % stride === 0;
  const recomputed = new Map<number, string>();
  const saved = (j: number): string => {
    if (isCheckpoint(j)) return activation[j];
    if (!recomputed.has(j)) {
      // Recompute the whole segment above the checkpoint below j, up to the next checkpoint.
      // The forward statement runs again, called from the backward (as torch.utils.checkpoint does).
      g.at(TrainStepStatements.hidden, TrainStepStatements.backward);
      const base = j - (j % stride);
      let previous = activation[base];
      for (let k = base + 1; k < Math.min(base + stride, L); k++) {
        const z = g.op('Gemm', [previous, weightName(k), biasName(k)], `recompute_z${k}`);
        previous = g.op('Relu', [z], `recompute_a${k}`);
        recomputed.set(k, previous);
      }
      g.at(TrainStepStatements.backward);
    }
    return recomputed.get(j)!;
  };

  let dz = g.op('Mul', [diff, 'two_over_count'], `dz${L}`);
  const gradW: string[] = [];
  const gradB: string[] = [];
  for (let i = L; i >= 1; i--) {
    const input = saved(i - 1);
    gradW[i] = g.op('Gemm', [input, dz], `dw${i}`, TRANS_A);
    gradB[i] = g.op('ReduceSum', [dz, batchAxis], `db${i}`, { keepdims: { kind: 'int', value: 0 } });
    if (i > 1) {
      const da = g.op('Gemm', [dz, weightName(i)], `da${i - 1}`, TRANS_B);
      const gate = g.op('Sign', [input], `relu_gate${i - 1}`);
      dz = g.op('Mul', [da, gate], `dz${i - 1}`);
    }
  }

  g.at(TrainStepStatements.update);
  for (let i = 1; i <= L; i++) {
    for (const [param, grad] of [
      [weightName(i), gradW[i]],
      [biasName(i), gradB[i]],
    ] as const) {
      const step = g.op('Mul', [grad, 'lr'], `${param}_step`);
      g.output(g.op('Sub', [param, step], `${param}_new`));
    }
  }
  return g.build();
}

export interface TrainStepParams {
  readonly x: Float64Array;
  readonly y: Float64Array;
  /** weights[i-1] is W_i, row-major [D, D] (input index major). */
  readonly weights: readonly Float64Array[];
  readonly biases: readonly Float64Array[];
}

/** The loss of the MLP in float64 (for finite differences). */
export function trainStepLoss(size: TrainStepSize, p: TrainStepParams): number {
  const { batch: N, width: D, layers: L } = size;
  let a = p.x;
  for (let i = 0; i < L; i++) {
    const z = new Float64Array(N * D);
    const w = p.weights[i];
    const b = p.biases[i];
    for (let n = 0; n < N; n++) {
      for (let o = 0; o < D; o++) {
        let s = b[o];
        for (let k = 0; k < D; k++) s += a[n * D + k] * w[k * D + o];
        z[n * D + o] = i < L - 1 ? Math.max(0, s) : s;
      }
    }
    a = z;
  }
  let sum = 0;
  for (let j = 0; j < N * D; j++) sum += (a[j] - p.y[j]) ** 2;
  return sum / (N * D);
}
