/**
 * What the suites that predict with a real PyTorch record: 100,000 entries with Python stacks, for "Test GPU"
 * (compute capability 8.0) of `memoryBytes`, the native library built into the suites' cache
 * (VRAM_LENS_TEST_NATIVE_CACHE, which npm run test:torch and test:notebook set).
 */
import type { PredictData, RecordingOptions } from '../../src/runtime/profile/command';

export function predictRecording(memoryBytes: number, data?: PredictData): RecordingOptions {
  const cache = process.env.VRAM_LENS_TEST_NATIVE_CACHE;
  return {
    maxEntries: 100_000,
    stacks: 'python',
    sampleIntervalMs: 1000,
    predict: { gpuName: 'Test GPU', memoryBytes, capability: '8.0', ...(data ? { data } : {}), ...(cache ? { nativeCache: cache } : {}) },
  };
}
