// Builds the VSIX for one platform, with only that platform's native binaries (onnxruntime-node
// ships every platform's, ~290 MB; one platform's is ~70 MB unpacked) so the built-in ONNX
// workloads run from the installed extension:
//
//   npm run package                       this machine's platform (process.platform-process.arch)
//   npm run package -- win32-x64          another one: linux-x64, linux-arm64, darwin-arm64, win32-x64, win32-arm64
//   npm run package -- linux-x64 --out x.vsix     further arguments go to `vsce package`
//
// Run it where `npm ci` installed the target's optional packages (koffi's binary comes from
// @koromix/koffi-<platform>-<arch>).
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
// for these packages are replaced by what `require` loads at run time on this target (and the licence
// texts they ship): no sources, headers, docs, type declarations, source maps or ESM twins.
const platformSpecific = {
  '!node_modules/onnxruntime-node/**': [
    '!node_modules/onnxruntime-node/package.json',
    '!node_modules/onnxruntime-node/dist/*.js',
    `!node_modules/onnxruntime-node/bin/napi-v6/${os}/${arch}/**`,
  ],
  '!node_modules/onnxruntime-common/**': [
    '!node_modules/onnxruntime-common/package.json',
    '!node_modules/onnxruntime-common/dist/cjs/*.js',
    '!node_modules/onnxruntime-common/dist/cjs/package.json',
  ],
  '!node_modules/koffi/**': [
    '!node_modules/koffi/package.json',
    '!node_modules/koffi/LICENSE.txt',
    '!node_modules/koffi/index.cjs',
    '!node_modules/koffi/src/koffi/index.cjs',
    '!node_modules/koffi/src/koffi/src/*.cjs',
  ],
  // koffi's Linux packages also carry a musl build (VS Code's alpine-* targets, not built here); the
  // glibc target gets its own binary only. The .lib/.exp files of Windows are for linking, not loading.
  '!node_modules/@koromix/**': [
    `!node_modules/@koromix/koffi-${os}-${arch}/package.json`,
    `!node_modules/@koromix/koffi-${os}-${arch}/index.js`,
    `!node_modules/@koromix/koffi-${os}-${arch}/${os}_${arch}/koffi.node`,
  ],
};
const rules = readFileSync('.vscodeignore', 'utf8')
  .split(/\r?\n/)
  .flatMap((line) => platformSpecific[line.trim()] ?? [line]);
const ignoreFile = path.join(mkdtempSync(path.join(tmpdir(), 'vram-lens-vsix-')), '.vscodeignore');
writeFileSync(ignoreFile, rules.join('\n'));

// @vscode/vsce is a pinned devDependency (3.9.x runs on Node 20), run by this Node: no download, no
// second Node. The README's images are relative links that vsce would rewrite to a repository URL
// (the manifest names none): they stay relative and the images they show travel in the VSIX.
const vsce = path.join(root, 'node_modules', '@vscode', 'vsce', 'vsce');
const run = (command, args) => {
  const r = spawnSync(command, args, { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
};
rmSync('dist', { recursive: true, force: true });
run(process.execPath, ['scripts/build.mjs', '--production']);
run(process.execPath, [vsce, 'package', '--target', target, '--ignoreFile', ignoreFile, '--no-rewrite-relative-links', '--allow-missing-repository', ...vsceArgs]);
