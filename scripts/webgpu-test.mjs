// `npm run test:webgpu`: the workload tests on onnxruntime's WebGPU execution provider. On a machine
// without a GPU, Vulkan is pointed at Mesa's lavapipe (installed by scripts/setup-webgpu.sh); with a
// GPU, or with VK_ICD_FILENAMES already set, the environment is left as it is.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import process from 'node:process';

const env = { ...process.env };
if (process.platform === 'linux' && !env.VK_ICD_FILENAMES && !env.VK_DRIVER_FILES) {
  const hasGpu = (existsSync('/dev/dri') && readdirSync('/dev/dri').some((f) => f.startsWith('renderD'))) || readdirSync('/dev').some((f) => /^nvidia\d+$/.test(f));
  if (!hasGpu) {
    const dir = '/usr/share/vulkan/icd.d';
    const lavapipe = existsSync(dir) ? readdirSync(dir).find((f) => /^lvp_icd.*\.json$/.test(f)) : undefined;
    if (!lavapipe) {
      console.error('test:webgpu: no GPU and no lavapipe Vulkan driver; run scripts/setup-webgpu.sh first (Debian 12: Mesa 25 from bookworm-backports).');
      process.exit(1);
    }
    env.VK_ICD_FILENAMES = path.join(dir, lavapipe);
  }
}
env.XDG_RUNTIME_DIR ??= mkdtempSync(path.join(tmpdir(), 'vram-lens-xdg-'));
const result = spawnSync(process.execPath, ['--test', '--test-reporter=spec', 'out/test/webgpu/'], { stdio: 'inherit', env });
process.exit(result.status ?? 1);
