/**
 * Which onnxruntime execution provider runs a workload: CUDA when its provider library was
 * installed, else WebGPU where a hardware adapter can exist, else CPU. Pure decisions over facts
 * probed from the file system, so they are testable without a GPU.
 */
import { existsSync, readdirSync } from 'node:fs';
import * as path from 'node:path';

export type ExecutionProvider = 'cuda' | 'webgpu' | 'cpu';
export type ProviderChoice = ExecutionProvider | 'auto';

export const PROVIDERS: readonly ExecutionProvider[] = ['cuda', 'webgpu', 'cpu'];

/** Display names, as onnxruntime calls them in its profile. */
export const PROVIDER_NAMES: Readonly<Record<ExecutionProvider, string>> = {
  cuda: 'CUDAExecutionProvider',
  webgpu: 'WebGpuExecutionProvider',
  cpu: 'CPUExecutionProvider',
};

export interface ProviderFacts {
  /** onnxruntime-node's CUDA provider library is installed next to its binding. */
  readonly cudaLibrary: boolean;
  /** Why WebGPU cannot work here, or undefined when it may. */
  readonly webgpuUnusable: string | undefined;
}

export interface ProviderSkip {
  readonly provider: ExecutionProvider;
  readonly reason: string;
}

export const CUDA_NOT_INSTALLED = 'the CUDA provider of onnxruntime-node is not installed (ONNXRUNTIME_NODE_INSTALL=cuda12 node node_modules/onnxruntime-node/script/install.js installs it)';

/**
 * Providers to try in order, and those left out with the reason. An explicit choice is tried even
 * where WebGPU looks unusable (the user may know better), but not CUDA without its library.
 */
export function providerCandidates(choice: ProviderChoice, facts: ProviderFacts): { candidates: ExecutionProvider[]; skipped: ProviderSkip[] } {
  if (choice === 'cuda' && !facts.cudaLibrary) return { candidates: [], skipped: [{ provider: 'cuda', reason: CUDA_NOT_INSTALLED }] };
  if (choice !== 'auto') return { candidates: [choice], skipped: [] };
  const candidates: ExecutionProvider[] = [];
  const skipped: ProviderSkip[] = [];
  if (facts.cudaLibrary) candidates.push('cuda');
  else skipped.push({ provider: 'cuda', reason: CUDA_NOT_INSTALLED });
  if (facts.webgpuUnusable === undefined) candidates.push('webgpu');
  else skipped.push({ provider: 'webgpu', reason: facts.webgpuUnusable });
  candidates.push('cpu');
  return { candidates, skipped };
}

/** The directory of onnxruntime-node's native binding (where its CUDA provider library lands). */
export function ortBindingDirectory(ortPackageJson: string): string {
  return path.join(path.dirname(ortPackageJson), 'bin', 'napi-v6', process.platform, process.arch);
}

function cudaLibraryName(): string {
  return process.platform === 'win32' ? 'onnxruntime_providers_cuda.dll' : 'libonnxruntime_providers_cuda.so';
}

const SOFTWARE_ICD = /lvp|lavapipe|swiftshader|llvmpipe/i;

/** Whether the machine has a GPU device node a hardware Vulkan driver could open. */
function hasGpuDevice(): boolean {
  const list = (dir: string) => {
    try {
      return readdirSync(dir);
    } catch {
      return [];
    }
  };
  return list('/dev/dri').some((f) => f.startsWith('renderD')) || list('/dev').some((f) => /^nvidia\d+$/.test(f));
}

/**
 * On Linux, Dawn (onnxruntime's WebGPU) runs on Vulkan: with no Vulkan driver manifest it cannot
 * start, and with no GPU device (or only a software rasteriser such as lavapipe) it runs on the CPU,
 * many times slower than the CPU provider and measuring no memory, so `auto` does not pick it (ask
 * for `webgpu` explicitly to use it anyway).
 */
export function webgpuUnusableReason(env: NodeJS.ProcessEnv = process.env, gpuDevice: () => boolean = hasGpuDevice): string | undefined {
  if (process.platform !== 'linux') return undefined;
  const explicit = (env.VK_DRIVER_FILES ?? env.VK_ICD_FILENAMES ?? '').split(':').filter((f) => f !== '');
  let manifests = explicit;
  if (manifests.length === 0) {
    const dirs = ['/usr/share/vulkan/icd.d', '/etc/vulkan/icd.d', '/usr/local/share/vulkan/icd.d'];
    manifests = dirs.flatMap((d) => {
      try {
        return readdirSync(d).filter((f) => f.endsWith('.json'));
      } catch {
        return [];
      }
    });
  }
  if (manifests.length === 0) return 'no Vulkan driver is installed';
  if (manifests.every((m) => SOFTWARE_ICD.test(path.basename(m)))) return 'the only Vulkan driver is a software rasteriser';
  if (!gpuDevice()) return 'no GPU device is present (WebGPU would run on a software rasteriser)';
  return undefined;
}

export function probeProviderFacts(ortPackageJson: string): ProviderFacts {
  return {
    cudaLibrary: existsSync(path.join(ortBindingDirectory(ortPackageJson), cudaLibraryName())),
    webgpuUnusable: webgpuUnusableReason(),
  };
}

export function isProviderChoice(value: string): value is ProviderChoice {
  return value === 'auto' || (PROVIDERS as readonly string[]).includes(value);
}
