/**
 * Which GPU to predict for: common models by name and memory, or a size the user types (a GPU sold as
 * "24 GB" has 24 GiB, so "24 GB" means 24 GiB here; the item shows the bytes it uses). The choice is
 * remembered per workspace and offered first next time.
 */
import * as vscode from 'vscode';
import type { GpuModel } from '../../engine/predict/gpus';
import { CUSTOM_CAPABILITY, GPU_MODELS, gpuFor, parseCapability, parseGpuSize } from '../../engine/predict/gpus';
import { formatBytes, formatCount } from '../../engine/text/format';

const REMEMBERED = 'vramLens.predict.gpu';

/** The GPU remembered for this workspace, if any (and still readable). */
export function rememberedGpu(state: vscode.Memento): GpuModel | undefined {
  const stored = state.get<GpuModel>(REMEMBERED);
  if (stored === undefined || typeof stored.name !== 'string' || typeof stored.memoryBytes !== 'number' || typeof stored.capability !== 'string') return undefined;
  return stored;
}

function describe(gpu: GpuModel): string {
  return `${formatBytes(gpu.memoryBytes)} · compute capability ${gpu.capability}`;
}

/** Asks which GPU to predict for; undefined when the user cancels. */
export async function pickGpu(state: vscode.Memento): Promise<GpuModel | undefined> {
  type Item = vscode.QuickPickItem & { gpu?: GpuModel; custom?: true };
  const last = rememberedGpu(state);
  const items: Item[] = [];
  if (last) items.push({ label: last.name, description: `${describe(last)} · last used`, gpu: last }, { label: '', kind: vscode.QuickPickItemKind.Separator });
  for (const gpu of GPU_MODELS) if (gpu.id !== last?.id) items.push({ label: gpu.name, description: describe(gpu), gpu });
  items.push({ label: '$(edit) Custom size...', description: 'a GPU of any memory size', custom: true });
  const picked = await vscode.window.showQuickPick(items, {
    title: 'VRAM Lens: predict for which GPU?',
    placeHolder: 'The program runs without a GPU; its memory is predicted for the GPU you pick',
    matchOnDescription: true,
  });
  if (picked === undefined) return undefined;
  const gpu = picked.custom ? await customGpu(last) : picked.gpu;
  if (gpu !== undefined) await state.update(REMEMBERED, gpu);
  return gpu;
}

async function customGpu(last: GpuModel | undefined): Promise<GpuModel | undefined> {
  const size = await vscode.window.showInputBox({
    title: 'VRAM Lens: the GPU\'s memory',
    prompt: 'A size such as 24GB or 12 GiB (a GPU sold as "24 GB" has 24 GiB), or a number of bytes',
    value: last?.id.startsWith('custom-') ? `${last.memoryBytes}` : '24GB',
    validateInput: (text) => {
      const bytes = parseGpuSize(text);
      return bytes === undefined ? 'Give a size: 24GB, 12 GiB, 0.5TiB or a number of bytes' : { message: `${formatCount(bytes)} bytes`, severity: vscode.InputBoxValidationSeverity.Info };
    },
  });
  if (size === undefined) return undefined;
  const capability = await vscode.window.showInputBox({
    title: 'VRAM Lens: the GPU\'s compute capability',
    prompt: 'It decides cuBLAS\'s workspace (32 MiB on 9.0) and the attention kernel: 7.0 V100, 7.5 T4, 8.0 A100, 8.6 A10/RTX 30xx, 8.9 L4/L40S/RTX 40xx, 9.0 H100/H200',
    value: CUSTOM_CAPABILITY,
    validateInput: (text) => (parseCapability(text) === undefined ? 'MAJOR.MINOR, such as 8.0' : undefined),
  });
  if (capability === undefined) return undefined;
  return gpuFor(size, capability.trim());
}
