// PyTorch's own viewer, MemoryViz.js (torch/utils/viz/MemoryViz.js), run headless on a snapshot file: its
// unpickler, `annotate_snapshot` and `process_alloc_data` (the Active Memory Timeline's data) for every
// device with a trace, which is what the page computes before it draws. The bench runs it as a whole
// process beside `vram-lens analyze`:
//
//   node bench/memoryviz.mjs PATH/TO/MemoryViz.js FILE
//
// The file is PyTorch's (BSD-licensed, no wheel ships it), so it stays out of this repository: give the
// path of a copy from a PyTorch checkout. It is used as it is: its five `import ... from "https://..."`
// lines (d3 from a CDN) are replaced by a stand-in whose every call returns itself (the page's top-level
// code builds its controls with d3 and draws nothing until a file is chosen), and an export of the three
// functions is appended; the result is written to a temporary module and imported.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';

/** A d3 stand-in: any property, any call, any `new` gives the stand-in back. */
const D3_STAND_IN = `
const __standIn = new Proxy(function () {}, {
  get: (_t, key) => (key === Symbol.toPrimitive ? () => '' : __standIn),
  apply: () => __standIn,
  construct: () => __standIn,
});
const d3 = __standIn, axisLeft = __standIn, scaleLinear = __standIn, zoom = __standIn, zoomIdentity = __standIn, brushX = __standIn;
`;

/** MemoryViz.js as a module exporting `unpickle`, `annotate_snapshot` and `process_alloc_data`. */
export function headlessSource(text) {
  const imports = /^import\s[^;]*from\s+"https:\/\/[^"]+";\s*$/gm;
  const found = text.match(imports) ?? [];
  if (found.length === 0 || !/function unpickle\(/.test(text) || !/function annotate_snapshot\(/.test(text) || !/function process_alloc_data\(/.test(text)) {
    throw new Error('this does not look like torch/utils/viz/MemoryViz.js (its d3 imports, unpickle, annotate_snapshot, process_alloc_data)');
  }
  return `${D3_STAND_IN}\n${text.replace(imports, '')}\nexport { unpickle as __unpickle, annotate_snapshot as __annotate, process_alloc_data as __process };\n`;
}

/** Loads MemoryViz.js from `file` headless: { unpickle, annotate, processAllocData }. */
export async function loadMemoryViz(file) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'memoryviz-'));
  try {
    const module = path.join(dir, 'MemoryViz.mjs');
    writeFileSync(module, headlessSource(readFileSync(file, 'utf8')));
    const m = await import(pathToFileURL(module).href);
    return { unpickle: m.__unpickle, annotate: m.__annotate, processAllocData: m.__process };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What the viewer computes for a snapshot file: unpickle, annotate, and each device's timeline data. */
export function viewSnapshot(viz, bytes) {
  const snapshot = viz.unpickle(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  // A bare list of segments is what torch.cuda.memory_snapshot() returns; the viewer's Python side wraps it so.
  const data = Array.isArray(snapshot) ? { segments: snapshot, device_traces: [] } : snapshot;
  viz.annotate(data);
  const devices = [];
  data.device_traces.forEach((trace, device) => {
    if (trace.length === 0) return;
    const timeline = viz.processAllocData(data, device, false, 15000);
    devices.push({ device, events: trace.length, maxSize: timeline.max_size });
  });
  return devices;
}

async function main() {
  const [vizPath, file] = process.argv.slice(2);
  if (vizPath === undefined || file === undefined) {
    process.stderr.write('usage: node bench/memoryviz.mjs PATH/TO/MemoryViz.js SNAPSHOT\n');
    process.exitCode = 2;
    return;
  }
  const viz = await loadMemoryViz(vizPath);
  const devices = viewSnapshot(viz, readFileSync(file));
  if (process.env.BENCH_VERBOSE) process.stdout.write(`${JSON.stringify(devices)}\n`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  main().catch((e) => {
    process.stderr.write(`memoryviz: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 1;
  });
}
