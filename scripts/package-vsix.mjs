// Packages one platform's VSIX with only that platform's native binaries (onnxruntime-node ships
// every platform's, ~290 MB; one platform's is ~70 MB):
//
//   node scripts/package-vsix.mjs linux-x64        (also linux-arm64, darwin-arm64, win32-x64, win32-arm64)
//
// Run it where `npm ci` installed that platform's optional packages (koffi's binary comes from
// @koromix/koffi-<platform>-<arch>), with Node >= 22 for @vscode/vsce.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import process from 'node:process';

const target = process.argv[2];
const match = /^(linux|darwin|win32)-(x64|arm64)$/.exec(target ?? '');
if (!match) {
  console.error('usage: node scripts/package-vsix.mjs <linux-x64|linux-arm64|darwin-arm64|win32-x64|win32-arm64>');
  process.exit(2);
}
const [, os, arch] = match;
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

const run = (command, args) => {
  const r = spawnSync(command, args, { stdio: 'inherit', shell: process.platform === 'win32' });
  if (r.status !== 0) process.exit(r.status ?? 1);
};
run(process.execPath, ['scripts/build.mjs', '--production']);
run('npx', ['--yes', '@vscode/vsce', 'package', '--target', target, '--ignoreFile', ignoreFile, '--out', `vram-lens-${target}.vsix`]);
