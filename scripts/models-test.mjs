// `npm run test:models`: real public ONNX models (PaddleOCR, Silero VAD, openWakeWord) through `vram-lens run
// MODEL.onnx`, from the cache scripts/setup-models.mjs fills (.models/, or VRAM_LENS_MODELS). Ends with a line
// saying whether they ran: a run without the cache skips them, and must not look like a full pass.
import { spawn } from 'node:child_process';

const MARK = '# models not found at ';
const child = spawn(process.execPath, ['--test', '--test-reporter=spec', 'out/test/models/'], { stdio: ['inherit', 'pipe', 'inherit'] });
let skipped = 0;
let reason = '';
let pending = '';
child.stdout.on('data', (chunk) => {
  process.stdout.write(chunk);
  pending += chunk.toString('utf8');
  const lines = pending.split('\n');
  pending = lines.pop() ?? '';
  for (const line of lines) {
    const at = line.indexOf(MARK);
    if (at >= 0) {
      skipped++;
      reason = line.slice(at + 2).trim();
    }
  }
});
child.on('close', (code, signal) => {
  if (skipped > 0) process.stdout.write(`\nThe public models did not run: ${reason}\n`);
  else process.stdout.write('\nAll public-model tests ran (.models/ or VRAM_LENS_MODELS).\n');
  process.exitCode = code ?? (signal ? 1 : 0);
});
