/** The status bar names where the figures were recorded: the CUDA device, or the provider a workload ran on. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deviceLongName, deviceShortName } from '../../../../src/extension/editor/statusText';

describe('status bar device names', () => {
  it('a PyTorch snapshot names its CUDA device', () => {
    assert.equal(deviceShortName(1, undefined), 'cuda:1');
    assert.equal(deviceLongName(1, undefined), 'CUDA device 1');
  });

  it('a workload that ran on the CPU never says cuda:0 (issue 12 item 7)', () => {
    assert.equal(deviceShortName(0, 'cpu'), 'CPU');
    assert.equal(deviceLongName(0, 'cpu'), "the CPU (onnxruntime's CPU execution provider)");
    assert.equal(deviceShortName(0, 'webgpu'), 'WebGPU');
  });

  it('a workload on CUDA names the device and the provider', () => {
    assert.equal(deviceShortName(0, 'cuda'), 'cuda:0');
    assert.equal(deviceLongName(0, 'cuda'), "CUDA device 0 (onnxruntime's CUDA execution provider)");
  });
});
