/**
 * A model of our own making for the input questions of Profile ONNX Model: `x` float32 [rows, 8] with an
 * open dimension `rows`, and `k` an int64 scalar. y = Relu(x) holds rows x 8 x 4 bytes; r = Range(0, k, 1)
 * holds k int64 elements, 8 k bytes; both are graph outputs, alive to the end. So a run's figures say which
 * answers it used: inputs = 32 rows + 8 (k) + 16 (the two int64 initializers), and the reconstructed peak
 * of intermediates = 32 rows + 8 k.
 */
import { encodeModel } from '../../src/engine/onnx/encode';

export function rangerModel(): Uint8Array {
  return encodeModel({
    irVersion: 8,
    opsetImports: [{ domain: '', version: 17 }],
    producerName: 'vram-lens-test',
    producerVersion: '1',
    graph: {
      name: 'ranger',
      inputs: [
        { name: 'x', elemType: 1, shape: ['rows', 8] },
        { name: 'k', elemType: 7, shape: [] },
      ],
      outputs: [
        { name: 'y', elemType: 1, shape: ['rows', 8] },
        { name: 'r', elemType: 7, shape: ['n'] },
      ],
      initializers: [
        { name: 'start', elemType: 7, dims: [], data: BigInt64Array.of(0n) },
        { name: 'delta', elemType: 7, dims: [], data: BigInt64Array.of(1n) },
      ],
      nodes: [
        { name: 'relu', opType: 'Relu', inputs: ['x'], outputs: ['y'] },
        { name: 'range', opType: 'Range', inputs: ['start', 'k', 'delta'], outputs: ['r'] },
      ],
    },
  });
}

/** The figures a run with `rows` and `k` must report (see above). */
export function rangerFigures(rows: number, k: number): { inputBytes: number; reconstructedPeakBytes: number } {
  return { inputBytes: 32 * rows + 8 + 16, reconstructedPeakBytes: 32 * rows + 8 * k };
}
