// Builds the VSIX for one platform, with only that platform's native binaries (onnxruntime-node
// ships every platform's, ~290 MB; one platform's is ~70 MB unpacked) so the built-in ONNX
// workloads run from the installed extension:
//
//   npm run package                       this machine's platform (process.platform-process.arch)
//   npm run package -- win32-x64          another one: linux-x64, linux-arm64, darwin-arm64, win32-x64, win32-arm64
//   npm run package -- linux-x64 --out x.vsix     further arguments go to `vsce package`
//
// Run it where `npm ci` installed the target's optional packages (koffi's binary comes from
// @koromix/koffi-<platform>-<arch>). @vscode/vsce (fetched from the npm registry by npx) needs
// Node >= 22: where this Node is older, the Node 24 of scripts/setup-e2e.sh (.e2e/node24) runs it.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const TARGETS = ['linux-x64', 'linux-arm64', 'darwin-arm64', 'win32-x64', 'win32-arm64'];
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
process.chdir(root);

const fail = (message) => {
  console.error(`package: ${message}`);
  process.exit(1);
};

const [first, ...rest] = process.argv.slice(2);
const explicit = first !== undefined && !first.startsWith('-');
const target = explicit ? first : `${process.platform}-${process.arch}`;
const vsceArgs = explicit ? rest : process.argv.slice(2);
if (!TARGETS.includes(target)) fail(`no VSIX for ${target}; targets: ${TARGETS.join(', ')}`);
const [os, arch] = target.split('-');

// The target's native binaries must be installed, else the workloads could not run from the VSIX.
const natives = [`node_modules/onnxruntime-node/bin/napi-v6/${os}/${arch}`, `node_modules/@koromix/koffi-${os}-${arch}`];
const missing = natives.filter((p) => !existsSync(p));
if (missing.length > 0) fail(`${target}'s native modules are not installed (${missing.join(', ')}): run npm ci on that platform`);

// vsce keeps a file that any `!` rule matches, whatever the order, so the broad rules of .vscodeignore
// for these packages are replaced by this target's files.
const platformSpecific = {
  '!node_modules/onnxruntime-node/**': [
    '!node_modules/onnxruntime-node/package.json',
    '!node_modules/onnxruntime-node/dist/**',
    `!node_modules/onnxruntime-node/bin/napi-v6/${os}/${arch}/**`,
  ],
  '!node_modules/@koromix/**': [`!node_modules/@koromix/koffi-${os}-${arch}/**`],
};
const rules = readFileSync('.vscodeignore', 'utf8')
  .split(/\r?\n/)
  .flatMap((line) => platformSpecific[line.trim()] ?? [line]);
const ignoreFile = path.join(mkdtempSync(path.join(tmpdir(), 'vram-lens-vsix-')), '.vscodeignore');
writeFileSync(ignoreFile, rules.join('\n'));

// vsce needs Node >= 22; npx's own script runs on the first `node` on PATH.
const env = { ...process.env };
if (Number(process.versions.node.split('.')[0]) < 22) {
  const node24 = path.join(root, '.e2e', 'node24', 'bin');
  if (!existsSync(path.join(node24, process.platform === 'win32' ? 'node.exe' : 'node'))) {
    fail(`@vscode/vsce needs Node >= 22 (this is ${process.version}); run 'bash scripts/setup-e2e.sh' to get .e2e/node24`);
  }
  env.PATH = `${node24}${path.delimiter}${env.PATH ?? ''}`;
}

const run = (command, args, options = {}) => {
  const r = spawnSync(command, args, { stdio: 'inherit', shell: process.platform === 'win32', ...options });
  if (r.status !== 0) process.exit(r.status ?? 1);
};
rmSync('dist', { recursive: true, force: true });
run(process.execPath, ['scripts/build.mjs', '--production']);
run('npx', ['--yes', '@vscode/vsce@3', 'package', '--target', target, '--ignoreFile', ignoreFile, ...vsceArgs], { env });
