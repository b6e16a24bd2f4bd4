/**
 * The GPUs a prediction can be for: common models by name and memory, and any size a user types. A GPU sold
 * as "24 GB" has 24 GiB (its memory is counted in binary units, as `torch.cuda.get_device_properties` shows
 * about that much), so a size typed in GB means GiB here too; every answer says the bytes it used.
 *
 * The compute capability decides what PyTorch does differently per GPU: cuBLAS's workspace (32 MiB on sm90,
 * 8,519,680 bytes elsewhere) and which attention kernel `scaled_dot_product_attention` takes.
 */

import { parseGpuMemory } from '../text/format';

export interface GpuModel {
  /** Short id, as typed: "h100-80gb". */
  readonly id: string;
  /** As shown: "H100 80GB". */
  readonly name: string;
  readonly memoryBytes: number;
  /** CUDA compute capability, "9.0". */
  readonly capability: string;
}

const GiB = 1024 ** 3;

const model = (name: string, gib: number, capability: string): GpuModel => ({
  id: name.toLowerCase().replace(/\s+/g, '-'),
  name,
  memoryBytes: gib * GiB,
  capability,
});

/** The picker's list, largest first within each family. */
export const GPU_MODELS: readonly GpuModel[] = [
  model('H200 141GB', 141, '9.0'),
  model('H100 80GB', 80, '9.0'),
  model('A100 80GB', 80, '8.0'),
  model('A100 40GB', 40, '8.0'),
  model('L40S 48GB', 48, '8.9'),
  model('A10 24GB', 24, '8.6'),
  model('L4 24GB', 24, '8.9'),
  model('RTX 4090 24GB', 24, '8.9'),
  model('RTX 3090 24GB', 24, '8.6'),
  model('T4 16GB', 16, '7.5'),
  model('V100 32GB', 32, '7.0'),
  model('V100 16GB', 16, '7.0'),
];

/** A GPU of a size the user gave: assumed an Ampere-class device (capability 8.0) unless said otherwise. */
export const CUSTOM_CAPABILITY = '8.0';

const squash = (s: string): string => s.toLowerCase().replace(/[\s_-]+/g, '');

/**
 * Bytes of a GPU size as users write it (`parseGpuMemory`: "24GiB", "24 GB" = 24 GiB, "24g", a number of
 * bytes); undefined for anything else, and for no bytes at all.
 */
export function parseGpuSize(text: string): number | undefined {
  const bytes = parseGpuMemory(text);
  return bytes !== undefined && bytes > 0 ? bytes : undefined;
}

/**
 * The GPU `text` names: a model of the list (case, spaces, hyphens and underscores ignored: "H100-80GB",
 * "a100 40gb"), or a size ("24GiB", "24 GB"), with `capability` for a size (default 8.0). Undefined when it is
 * neither.
 */
export function gpuFor(text: string, capability: string = CUSTOM_CAPABILITY): GpuModel | undefined {
  const key = squash(text);
  if (key === '') return undefined;
  const named = GPU_MODELS.find((g) => squash(g.name) === key || squash(g.id) === key);
  if (named) return named;
  const bytes = parseGpuSize(text);
  if (bytes === undefined) return undefined;
  return { id: `custom-${bytes}`, name: customName(bytes), memoryBytes: bytes, capability };
}

/** "GPU with 24 GiB" (or the exact bytes when they are not a whole number of MiB). */
export function customName(bytes: number): string {
  if (bytes % GiB === 0) return `GPU with ${bytes / GiB} GiB`;
  if (bytes % 1024 ** 2 === 0) return `GPU with ${bytes / 1024 ** 2} MiB`;
  return `GPU with ${bytes} bytes`;
}

/** A capability string as the numbers PyTorch reports ((major, minor)); undefined when malformed. */
export function parseCapability(text: string): readonly [number, number] | undefined {
  const m = /^\s*(\d+)(?:\.(\d+))?\s*$/.exec(text);
  return m ? [Number(m[1]), Number(m[2] ?? '0')] : undefined;
}
