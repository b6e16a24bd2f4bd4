/**
 * Where the figures of a snapshot were recorded, as the status bar names it: `cuda:0` for a PyTorch
 * snapshot (device numbers are CUDA devices), and for a built-in workload or model run the execution
 * provider that actually ran it (`CPU`, `WebGPU`, `cuda:0`), never a CUDA device it did not use.
 * Free of `vscode` so it is unit-tested in plain Node.
 */

import type { ExecutionProvider } from '../../runtime/ort/providers';

const PROVIDER_NAMES: Readonly<Record<ExecutionProvider, string>> = { cuda: 'CUDA', webgpu: 'WebGPU', cpu: 'CPU' };

/** Short form for the status bar text: `cuda:0`, `CPU`, `WebGPU`. */
export function deviceShortName(device: number, ranOn: ExecutionProvider | undefined): string {
  if (ranOn === undefined || ranOn === 'cuda') return `cuda:${device}`;
  return PROVIDER_NAMES[ranOn];
}

/** Long form for the tooltip: `device 0 (CUDA)`, `the CPU (onnxruntime's CPU execution provider)`. */
export function deviceLongName(device: number, ranOn: ExecutionProvider | undefined): string {
  if (ranOn === undefined) return `CUDA device ${device}`;
  if (ranOn === 'cuda') return `CUDA device ${device} (onnxruntime's CUDA execution provider)`;
  return `the ${PROVIDER_NAMES[ranOn]} (onnxruntime's ${PROVIDER_NAMES[ranOn]} execution provider)`;
}
