#!/usr/bin/env node
// npm run test:torch: the bootstrap's suites against every real PyTorch that scripts/setup-torch.sh installed
// (bookworm's 1.13.1 natively, trixie's 2.6.0 and sid's 2.14.1 in chroots) and against the stand-in.
// Per real torch: test/torch (python unittest: signatures, import order, unrecorded paths, module ranges, Predict
// VRAM's programs) and, test/unit/engine/python/inPlaceRealTorch (the advisor's in-place fixes compute the same);
// test/unit/runtime/predict/predictRealTorch (a prediction end to end: bootstrap, placement, CLI); where torchrun
// works, test/unit/runtime/profile/torchrunCancel (the runner cancelling 2 gloo ranks). The wheels run only
// Predict VRAM's suites. Predict VRAM's native library is cached in /tmp/vram-lens-predict-native (seen inside
// the chroots) between runs. The chroots see this
// clone and /tmp at the same paths (bind mounts, removed at the end), so every path means the same inside.
// Needs root (chroot, mount). Arguments pass as argv arrays; nothing goes through a shell.
import { spawnSync } from 'node:child_process';
import { NATIVE_CACHE, cleanup, isReady, prepare, pythonCommand, repo, torchTargets, torchVersion } from './torch-chroots.mjs';

const only = process.argv.slice(2);
const targets = torchTargets.filter((t) => only.length === 0 || only.includes(t.name));

for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]]) {
  process.on(signal, () => {
    cleanup(); // the chroots' mounts are not left behind
    process.exit(code);
  });
}

const failures = [];
function step(label, command, args, env = {}) {
  console.log(`\n=== ${label}`);
  const r = spawnSync(command, args, { cwd: repo, stdio: 'inherit', env: { ...process.env, ...env } });
  if (r.status !== 0) failures.push(label);
}

try {
  step('stand-in torch: bootstrap suite', process.execPath, ['--test', 'out/test/unit/runtime/profile/profileBootstrap.test.js', 'out/test/unit/runtime/profile/profileBackwardLines.test.js']);
  for (const t of targets) {
    if (!isReady(t)) {
      failures.push(`${t.name}: not set up (run scripts/setup-torch.sh)`);
      continue;
    }
    prepare(t);
    const version = torchVersion(t);
    const python = pythonCommand(t);
    const predictEnv = { VRAM_LENS_TEST_NATIVE_CACHE: NATIVE_CACHE, VRAM_LENS_TORCH_PYTHON: t.python, VRAM_LENS_TORCH_ROOT: t.root };
    if (t.predictOnly) {
      step(`${t.name} (PyTorch ${version}): test/torch test_predict`, python[0], [...python.slice(1), '-m', 'unittest', 'discover', '-s', 'test/torch', '-p', 'test_predict.py', '-v'], predictEnv);
      step(`${t.name} (PyTorch ${version}): a prediction end to end`, process.execPath, ['--test', 'out/test/unit/runtime/predict/predictRealTorch.test.js'], predictEnv);
      continue;
    }
    step(`${t.name} (PyTorch ${version}): test/torch`, python[0], [...python.slice(1), '-m', 'unittest', 'discover', '-s', 'test/torch', '-p', 'test_*.py', '-v'], predictEnv);
    step(`${t.name} (PyTorch ${version}): a prediction end to end`, process.execPath, ['--test', 'out/test/unit/runtime/predict/predictRealTorch.test.js'], predictEnv);
    step(`${t.name} (PyTorch ${version}): in-place quick fixes`, process.execPath, ['--test', 'out/test/unit/engine/python/inPlaceRealTorch.test.js'], {
      VRAM_LENS_TORCH_PYTHON: t.python,
      VRAM_LENS_TORCH_ROOT: t.root,
    });
    if (t.torchrun) {
      step(`${t.name} (PyTorch ${version}): torchrun Cancel`, process.execPath, ['--test', 'out/test/unit/runtime/profile/torchrunCancel.test.js'], {
        VRAM_LENS_TORCH_PYTHON: t.python,
        VRAM_LENS_TORCH_ROOT: t.root,
      });
    }
  }
} finally {
  cleanup();
}
if (failures.length > 0) {
  console.error(`\ntest:torch failed: ${failures.join('; ')}`);
  process.exit(1);
}
console.log('\ntest:torch: all passed');
