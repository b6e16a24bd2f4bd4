/**
 * `npm run package` from this checkout builds a VSIX with exactly what the installed extension needs:
 * the extension and worker bundles, the webviews, the Python bootstrap, the samples, the README's
 * images, and this platform's native modules (onnxruntime-node, koffi) with the JS that loads them.
 * Then the native modules are loaded from the unpacked VSIX, as the extension host would.
 *
 * Slow (a production build and vsce): `npm run test:package`, run by CI, not by `npm test`.
 */
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { BOOTSTRAP_ENTRY } from '../../src/runtime/profile/command';
import { zipEntries, zipEntryBytes, type ZipEntry } from '../helpers/zipArchive';

const root = path.resolve(__dirname, '..', '..', '..');
const os = process.platform;
const arch = process.arch;
const escape = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The README's relative image links: the pictures the Extensions view shows. */
function readmeImages(): string[] {
  const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
  return [...readme.matchAll(/!\[[^\]]*\]\(([^)\s]+)\)/g)].map((m) => m[1]).filter((link) => !/^[a-z]+:/i.test(link));
}

/** The walkthrough's media (markdown and images), as package.json names them. */
function walkthroughMedia(): string[] {
  const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
    contributes: { walkthroughs: { steps: { media: { image?: string; markdown?: string; svg?: string } }[] }[] };
  };
  return manifest.contributes.walkthroughs.flatMap((w) => w.steps.flatMap((s) => [s.media.image, s.media.markdown, s.media.svg])).filter((m): m is string => m !== undefined);
}

/** Every module of the bootstrap package (src/python/vram_lens), read from this checkout, and Predict VRAM's C++ source. */
const bootstrapModules = readdirSync(path.join(root, 'src', 'python', 'vram_lens'))
  .filter((f) => f.endsWith('.py') || f.endsWith('.cpp'))
  .map((f) => `extension/src/python/vram_lens/${f}`);

const required = [
  '[Content_Types].xml',
  'extension.vsixmanifest',
  'extension/package.json',
  'extension/readme.md',
  'extension/dist/extension.js',
  'extension/dist/analysisWorker.js',
  'extension/dist/workloadWorker.js',
  'extension/dist/webview/summary.js',
  'extension/dist/webview/timeline.js',
  'extension/dist/webview/compare.js',
  'extension/dist/webview/whatIf.js',
  'extension/dist/codicons/codicon.css',
  'extension/dist/codicons/codicon.ttf',
  'extension/media/icon.png',
  'extension/media/heat/heat-dark-9.svg',
  `extension/${BOOTSTRAP_ENTRY.join('/')}`, // what the runner starts
  ...bootstrapModules,
  `extension/node_modules/onnxruntime-node/bin/napi-v6/${os}/${arch}/onnxruntime_binding.node`,
  'extension/node_modules/onnxruntime-node/dist/index.js',
  'extension/node_modules/onnxruntime-common/dist/cjs/index.js',
  'extension/node_modules/koffi/index.cjs',
  `extension/node_modules/@koromix/koffi-${os}-${arch}/package.json`,
  `extension/node_modules/@koromix/koffi-${os}-${arch}/${os}_${arch}/koffi.node`,
  ...readmeImages().map((image) => `extension/${image}`),
  // Open Sample annotates the samples with these; the Welcome page's walkthrough shows its media.
  'extension/media/samples/similarity-eager.pickle',
  'extension/media/samples/train-step.pickle',
  ...walkthroughMedia().map((file) => `extension/${file}`),
];

/** Everything else the VSIX may hold; a file none of these match fails the test. */
const allowed: RegExp[] = [
  /^extension\/media\/[^/]+\.(css|svg|png)$/,
  /^extension\/media\/heat\/heat-[A-Za-z]+-\d\.svg$/,
  /^extension\/media\/samples\/[^/]+\.(py|md|pickle)$/,
  /^extension\/media\/walkthrough\/[^/]+\.(md|png|svg)$/,
  /^extension\/LICENSE(\.txt)?$/,
  /^extension\/node_modules\/(onnxruntime-node|onnxruntime-common|koffi)\/package\.json$/,
  /^extension\/node_modules\/onnxruntime-node\/dist\/[^/]+\.js$/,
  new RegExp(`^extension/node_modules/onnxruntime-node/bin/napi-v6/${escape(os)}/${escape(arch)}/[^/]+$`),
  /^extension\/node_modules\/onnxruntime-common\/dist\/cjs\/[^/]+\.(js|json)$/,
  /^extension\/node_modules\/koffi\/(index\.cjs|LICENSE\.txt|src\/koffi\/index\.cjs|src\/koffi\/src\/[^/]+\.cjs)$/,
  new RegExp(`^extension/node_modules/@koromix/koffi-${escape(os)}-${escape(arch)}/(package\\.json|index\\.js|${escape(os)}_${escape(arch)}/koffi\\.node)$`),
];

describe('npm run package', () => {
  const work = mkdtempSync(path.join(tmpdir(), 'vram-lens-vsix-test-'));
  const vsix = path.join(work, 'test.vsix');
  let zip: Buffer;
  let entries: ZipEntry[];

  before(() => {
    execFileSync(process.execPath, [path.join(root, 'scripts', 'package.mjs'), '--out', vsix], {
      cwd: root,
      stdio: ['ignore', 'ignore', 'inherit'],
      timeout: 300_000,
    });
    zip = readFileSync(vsix);
    entries = zipEntries(zip);
  });
  after(() => rmSync(work, { recursive: true, force: true }));

  it('holds every file the installed extension loads', () => {
    const names = new Set(entries.map((e) => e.name));
    const missing = required.filter((name) => !names.has(name));
    assert.deepEqual(missing, []);
  });

  it('holds nothing else: no sources, tests, maps, type declarations or other platforms', () => {
    const requiredSet = new Set(required);
    const unexpected = entries.map((e) => e.name).filter((name) => !requiredSet.has(name) && !allowed.some((re) => re.test(name)));
    assert.deepEqual(unexpected, []);
    assert.ok(!entries.some((e) => /\.(ts|map)$/.test(e.name) || e.name.startsWith('extension/dist/cli')), 'no TypeScript, source maps or CLI bundle');
  });

  /** Writes the VSIX's entries under `prefix` into `folder` (at their paths in the VSIX); returns the folder. */
  function unpack(prefix: string, folder: string): string {
    for (const entry of entries.filter((e) => e.name.startsWith(prefix))) {
      const to = path.join(folder, entry.name);
      mkdirSync(path.dirname(to), { recursive: true });
      writeFileSync(to, zipEntryBytes(zip, entry));
    }
    return folder;
  }

  it('runs the Profile VRAM bootstrap from the unpacked VSIX, as the extension starts it', () => {
    const unpacked = unpack('extension/src/python/', path.join(work, 'unpacked-python'));
    const snapshot = path.join(work, 'from-vsix.pickle');
    const workload = path.join(root, 'test', 'fixtures', 'profile', 'workload.py');
    const out = execFileSync('python3', [path.join(unpacked, 'extension', ...BOOTSTRAP_ENTRY), '--snapshot', snapshot, '--script', workload, '--', 'normal'], {
      cwd: work,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: process.env.PATH, PYTHONPATH: path.join(root, 'test', 'fixtures', 'fake-torch') },
    });
    assert.match(out, /workload done, holding 67108864 bytes/);
    assert.ok(existsSync(snapshot), 'the snapshot was written');
    assert.ok(!existsSync(path.join(unpacked, 'extension', 'src', 'python', 'vram_lens', '__pycache__')), 'no bytecode written beside the package');
  });

  it("loads this platform's native modules from the unpacked VSIX", () => {
    const unpacked = unpack('extension/node_modules/', path.join(work, 'unpacked'));
    const modules = path.join(unpacked, 'extension', 'node_modules');
    const probe = [
      'const ort = require(process.argv[1] + "/onnxruntime-node");',
      'const koffi = require(process.argv[1] + "/koffi");',
      'process.stdout.write(JSON.stringify({ cpu: ort.listSupportedBackends().some((b) => b.name === "cpu"), koffi: typeof koffi.load }));',
    ].join('\n');
    const out = execFileSync(process.execPath, ['-e', probe, modules], { encoding: 'utf8', env: { ...process.env, NODE_PATH: '' } });
    assert.deepEqual(JSON.parse(out), { cpu: true, koffi: 'function' });
  });
});
