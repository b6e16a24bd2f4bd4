/**
 * Before a prediction on the program's own data (Predict with Real Data): the real tensors live in this
 * machine's RAM, about as much as the GPU memory the fake run predicted and more (the corpus pair: 11.6 GiB
 * predicted, 18.4 GiB peak RSS, 1.59x). Said before the run when the machine's free memory looks too small.
 */
import { formatBytes } from '../../engine/text/format';

/** Measured on the corpus pair (docs/predict.md): the real-data run's peak RSS over the peak it predicted, rounded up. */
export const REAL_DATA_RAM_FACTOR = 1.6;

/** A warning when `predictedPeakBytes` of real tensors may not fit in `freeBytes` of RAM, else undefined. */
export function realDataMemoryWarning(predictedPeakBytes: number | undefined, freeBytes: number): string | undefined {
  if (predictedPeakBytes === undefined || predictedPeakBytes <= 0) return undefined;
  const needed = predictedPeakBytes * REAL_DATA_RAM_FACTOR;
  if (needed <= freeBytes) return undefined;
  return (
    `On its own data the program's tensors live in this machine's memory: about ${formatBytes(needed)} ` +
    `(the predicted peak, ${formatBytes(predictedPeakBytes)}, and the CPU's own buffers), and ${formatBytes(freeBytes)} is free now. ` +
    'It may run out of memory or make the machine swap.'
  );
}
