// Profiles `vram-lens analyze FILE --json` with V8's sampling CPU profiler and prints where the time
// goes: self time by function (mapped back to the TypeScript sources through dist/cli.js.map), self
// time by module, and the inclusive time of the core's phases.
//
//   node bench/profile.mjs FILE [--top N] [--as-typed] [--interval US]
//
// --as-typed profiles `analyze FILE` (the text report and the allocator's self-check) instead of --json;
// --interval sets the sampling interval in microseconds (500 unless given; 50-100 suits a small file).
//
// The raw profile stays in bench/.data/prof/ (open it in Chrome DevTools or VS Code).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { SourceMap } from 'node:module';
import * as path from 'node:path';
import { dataDir, repoRoot } from './common.mjs';

const args = process.argv.slice(2);
const valued = new Set(['--top', '--interval']);
const file = args.find((a, i) => !a.startsWith('--') && !valued.has(args[i - 1]));
const option = (name, fallback) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback);
const top = option('--top', 30);
const interval = option('--interval', 500);
const asTyped = args.includes('--as-typed');
if (file === undefined) {
  process.stderr.write('usage: node bench/profile.mjs FILE [--top N] [--as-typed] [--interval US]\n');
  process.exit(2);
}

const profDir = path.join(dataDir, 'prof');
rmSync(profDir, { recursive: true, force: true });
mkdirSync(profDir, { recursive: true });
const cli = path.join(repoRoot, 'bin', 'vram-lens.js');
execFileSync(process.execPath, ['--cpu-prof', '--cpu-prof-dir', profDir, '--cpu-prof-interval', String(interval), cli, 'analyze', path.resolve(file), ...(asTyped ? [] : ['--json'])], {
  cwd: repoRoot,
  stdio: ['ignore', 'ignore', 'inherit'],
});
const profileFile = readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'));
const profile = JSON.parse(readFileSync(path.join(profDir, profileFile), 'utf8'));

/** Maps a bundle position to its TypeScript source through dist/cli.js.map (esbuild writes it unless --production). */
function sourceMapper(bundle) {
  const mapFile = `${bundle}.map`;
  if (!existsSync(mapFile)) return () => undefined;
  const map = new SourceMap(JSON.parse(readFileSync(mapFile, 'utf8')));
  return (line, column) => {
    const entry = map.findEntry(line, column);
    if (entry?.originalSource === undefined) return undefined;
    const source = entry.originalSource.replace(/^file:\/\//, '');
    return { file: path.relative(repoRoot, path.resolve(path.dirname(bundle), source)), line: entry.originalLine + 1 };
  };
}
const bundle = path.join(repoRoot, 'dist', 'cli.js');
const toSource = sourceMapper(bundle);
const bundleLines = readFileSync(bundle, 'utf8').split('\n');

const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
const selfUs = new Map();
const deltas = profile.timeDeltas;
profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (deltas[i] ?? 0)));
const totalUs = [...selfUs.values()].reduce((a, b) => a + b, 0);

/** { file, line } of a profile node, in the TypeScript sources where the bundle maps back to them. */
function locate(node) {
  const cf = node.callFrame;
  if (cf.url === '') return { file: '(native)', line: 0 };
  if (cf.url.endsWith('dist/cli.js')) {
    const mapped = toSource(cf.lineNumber, cf.columnNumber);
    if (mapped !== undefined) return mapped;
  }
  return { file: cf.url.replace(/^file:\/\//, '').replace(repoRoot + '/', ''), line: cf.lineNumber + 1 };
}
function where(node) {
  return locate(node).file;
}
function label(node) {
  const { file, line } = locate(node);
  return `${node.callFrame.functionName || '(anonymous)'} ${file}${line > 0 ? `:${line}` : ''}`;
}

const byFunction = new Map();
const byModule = new Map();
const byLine = new Map();
for (const [id, us] of selfUs) {
  const node = nodes.get(id);
  byFunction.set(label(node), (byFunction.get(label(node)) ?? 0) + us);
  byModule.set(where(node), (byModule.get(where(node)) ?? 0) + us);
  // positionTicks: the node's self samples by bundle line (1-based); its self time split in proportion.
  const ticks = node.positionTicks ?? [];
  const total = ticks.reduce((sum, t) => sum + t.ticks, 0);
  if (!node.callFrame.url.endsWith('dist/cli.js')) continue;
  for (const t of ticks) {
    const text = bundleLines[t.line - 1] ?? '';
    const mapped = toSource(t.line - 1, text.length - text.trimStart().length);
    const key = mapped === undefined ? `dist/cli.js:${t.line}` : `${mapped.file}:${mapped.line}`;
    const entry = byLine.get(key) ?? { us: 0, code: text.trim().slice(0, 90), fn: node.callFrame.functionName };
    entry.us += (us * t.ticks) / total;
    byLine.set(key, entry);
  }
}

/** Inclusive time of the outermost call of each named function (recursion counted once). */
const PHASES = ['loadSnapshotFile', 'feed', 'read', 'snapshotFromPickle', 'analyzeSnapshot', 'buildLineIndex', 'replayDevice', 'attributeLines', 'toReport', 'stringifyExact'];
const inclusive = new Map(PHASES.map((p) => [p, 0]));
function walk(id, open) {
  const node = nodes.get(id);
  const name = node.callFrame.functionName;
  const counts = inclusive.has(name) && !open.has(name);
  const nextOpen = counts ? new Set([...open, name]) : open;
  let sum = selfUs.get(id) ?? 0;
  for (const child of node.children ?? []) sum += walk(child, nextOpen);
  if (counts) inclusive.set(name, inclusive.get(name) + sum);
  return sum;
}
walk(profile.nodes[0].id, new Set());

const ms = (us) => (us / 1000).toFixed(0).padStart(7);
const pct = (us) => `${((100 * us) / totalUs).toFixed(1).padStart(5)}%`;
const sorted = (map) => [...map].sort((a, b) => b[1] - a[1]);
process.stdout.write(`${file}: ${(totalUs / 1e6).toFixed(2)} s sampled (profile: ${path.relative(repoRoot, path.join(profDir, profileFile))})\n\n`);
process.stdout.write('inclusive time of the phases:\n');
for (const [name, us] of inclusive) if (us > 0) process.stdout.write(`${ms(us)} ms ${pct(us)}  ${name}\n`);
process.stdout.write('\nself time by module:\n');
for (const [name, us] of sorted(byModule).slice(0, 15)) process.stdout.write(`${ms(us)} ms ${pct(us)}  ${name}\n`);
process.stdout.write(`\nself time by function (top ${top}):\n`);
for (const [name, us] of sorted(byFunction).slice(0, top)) process.stdout.write(`${ms(us)} ms ${pct(us)}  ${name}\n`);
process.stdout.write(`\nself time by source line (top ${top}):\n`);
const lines = [...byLine].sort((a, b) => b[1].us - a[1].us).slice(0, top);
for (const [where, { us, code, fn }] of lines) process.stdout.write(`${ms(us)} ms ${pct(us)}  ${where} (${fn})  ${code}\n`);
