/** The GPUs a prediction is for, and sizes as users write them (engine/predict/gpus.ts). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GPU_MODELS, gpuFor, parseCapability, parseGpuSize } from '../../../../src/engine/predict/gpus';

const GiB = 2 ** 30;

describe('GPUs for a prediction', () => {
  it('names the issue asks for, with their memory in GiB and their compute capability', () => {
    const table = Object.fromEntries(GPU_MODELS.map((g) => [g.name, [g.memoryBytes / GiB, g.capability]]));
    assert.deepEqual(table, {
      'H200 141GB': [141, '9.0'],
      'H100 80GB': [80, '9.0'],
      'A100 80GB': [80, '8.0'],
      'A100 40GB': [40, '8.0'],
      'L40S 48GB': [48, '8.9'],
      'A10 24GB': [24, '8.6'],
      'L4 24GB': [24, '8.9'],
      'RTX 4090 24GB': [24, '8.9'],
      'RTX 3090 24GB': [24, '8.6'],
      'T4 16GB': [16, '7.5'],
      'V100 32GB': [32, '7.0'],
      'V100 16GB': [16, '7.0'],
    });
  });

  it('finds a model whatever its case, spaces, hyphens and underscores', () => {
    for (const text of ['H100-80GB', 'h100 80gb', 'H100_80GB', ' h100-80GB ']) assert.equal(gpuFor(text)?.name, 'H100 80GB', text);
    assert.equal(gpuFor('a100 40gb')?.memoryBytes, 40 * GiB);
  });

  it('reads a size as users mean it: a GPU sold as "24 GB" has 24 GiB', () => {
    assert.equal(parseGpuSize('24GiB'), 24 * GiB);
    assert.equal(parseGpuSize('24 GB'), 24 * GiB);
    assert.equal(parseGpuSize('12 GB'), 12 * GiB);
    assert.equal(parseGpuSize('24g'), 24 * GiB);
    assert.equal(parseGpuSize('0.5 TiB'), 512 * GiB);
    assert.equal(parseGpuSize('1536 MiB'), 1536 * 2 ** 20);
    assert.equal(parseGpuSize('25769803776'), 24 * GiB);
    for (const bad of ['', 'big', '-3GB', '24 GHz', '1.5 bytes', '0']) assert.equal(parseGpuSize(bad), undefined, bad);
  });

  it('a size becomes a GPU of that memory, with the capability given (8.0 when none)', () => {
    assert.deepEqual(gpuFor('24GiB'), { id: `custom-${24 * GiB}`, name: 'GPU with 24 GiB', memoryBytes: 24 * GiB, capability: '8.0' });
    assert.equal(gpuFor('12 GB', '7.5')?.capability, '7.5');
    assert.equal(gpuFor('12 GB')?.memoryBytes, 12 * GiB);
    assert.equal(gpuFor('not a gpu'), undefined);
  });

  it('capabilities are MAJOR.MINOR', () => {
    assert.deepEqual(parseCapability('9.0'), [9, 0]);
    assert.deepEqual(parseCapability('8'), [8, 0]);
    assert.equal(parseCapability('sm_80'), undefined);
  });
});
