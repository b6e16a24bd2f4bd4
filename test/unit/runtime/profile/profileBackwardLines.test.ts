/**
 * Backward memory on lines (issue 11, "done when"): a training step (named submodules, loss.backward(),
 * SGD with momentum) run through the real bootstrap with the stand-in torch, whose autograd records as
 * PyTorch does (test/fixtures/fake-torch/README.md), analysed by the core. Which allocations belong to
 * backward is known without our analysis: the program writes the clock around each backward call, and
 * the snapshot's events carry that clock.
 * - Setting on: every backward byte live at the peak is on a line (the `loss.backward()` line); no bucket
 *   of the peak breakdown holds any. When no frame is the user's (the whole program is library code),
 *   the bytes made inside a module's backward are in buckets named by the module ("backward: model.head").
 * - Setting off (the control, so the test can fail): backward bytes at the peak land on no line, in
 *   anonymous buckets (no frames; with stacks="all", autograd node names).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { analyzeSnapshot } from '../../../../src/engine/analysis/analyze';
import { PROFILER_LIBRARY_PATHS } from '../../../../src/engine/analysis/frameFilter';
import type { BucketName } from '../../../../src/engine/analysis/peakBucketClassifier';
import { NO_LINE } from '../../../../src/engine/analysis/lineIndex';
import { traceOf } from '../../../../src/engine/analysis/replay';
import { snapshotFromBytes } from '../../../../src/engine/decode/load';
import { BOOTSTRAP_ENTRY } from '../../../../src/runtime/profile/command';
import { repoRoot } from '../../../helpers/corpus';

const bootstrap = path.join(repoRoot, ...BOOTSTRAP_ENTRY);
const fakeTorch = path.join(repoRoot, 'test', 'fixtures', 'fake-torch');
const program = path.join(repoRoot, 'test', 'fixtures', 'profile', 'train_step.py');
const programLines = readFileSync(program, 'utf8').split('\n');
const backwardLine = programLines.findIndex((l) => l.trim() === 'loss.backward()') + 1;
/** The model's module names, as the program builds it: ResidualMLP(64, 4096, 2) with layers and a head. */
const MODULES = new Set(['model', 'model.head', 'model.layers', 'model.layers.0', 'model.layers.1', ...['0', '1'].flatMap((i) => [`model.layers.${i}.fc1`, `model.layers.${i}.fc2`])]);

const root = mkdtempSync(path.join(os.tmpdir(), 'vram-lens-backward-'));
after(() => rmSync(root, { recursive: true, force: true }));
let counter = 0;

interface BackwardAtPeak {
  readonly peakBytes: number;
  /** Live-at-peak bytes allocated inside a backward call, per place: `line FILE:N` or the bucket. */
  readonly places: Map<string, number>;
  /** Live-at-peak bytes on a line or in a module-named bucket (every allocation, not only backward's). */
  readonly namedBytes: number;
  readonly total: number;
}

function placeOf(bucket: BucketName | undefined, line: string | undefined): string {
  if (bucket === undefined) return `line ${line}`;
  return `${bucket.kind}: ${bucket.label}`;
}

/** Runs the program under the bootstrap and splits the backward bytes live at the peak by where they land. */
function trainStep(options: { backwardLines: 'on' | 'off'; stacks?: 'python' | 'all'; asLibrary?: boolean }): BackwardAtPeak {
  const dir = path.join(root, `run${++counter}`);
  // As a library: the program's own file under site-packages, so no frame of the run is the user's.
  const folder = options.asLibrary ? path.join(dir, 'site-packages', 'trainer') : dir;
  mkdirSync(folder, { recursive: true });
  const script = path.join(folder, 'train_step.py');
  copyFileSync(program, script);
  const snapshot = path.join(dir, 'snapshot.pickle');
  const windowsFile = path.join(dir, 'windows.json');
  execFileSync(
    'python3',
    [bootstrap, '--snapshot', snapshot, '--backward-lines', options.backwardLines, '--stacks', options.stacks ?? 'python', '--script', script, '--', windowsFile],
    { env: { PATH: process.env.PATH, PYTHONPATH: fakeTorch }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const windows = JSON.parse(readFileSync(windowsFile, 'utf8')) as [number, number][];
  // As the extension reads a profiled run: the bootstrap's own frames are library code (src/extension/shared/config.ts).
  const analysis = analyzeSnapshot(snapshotFromBytes(readFileSync(snapshot)), { extraLibraryPaths: PROFILER_LIBRARY_PATHS });
  assert.equal(analysis.devices.length, 1);
  const device = analysis.devices[0];
  const times = traceOf(analysis.snapshot, device.device).timeUs;
  const places = new Map<string, number>();
  let namedBytes = 0;
  let total = 0;
  for (const block of device.liveAtPeak) {
    total += block.size;
    const bucket = device.buckets.bucketOf(block.record);
    const self = analysis.lineIndex.selfLine[block.stack];
    const line = bucket === undefined && self !== NO_LINE ? analysis.lineIndex.lines[self] : undefined;
    if (bucket === undefined || (bucket.kind === 'annotation' && MODULES.has(bucket.label.replace(/^backward: /, '')))) namedBytes += block.size;
    if (block.origin !== 'trace') continue;
    const t = times[device.allocations.allocEvent[block.record]];
    if (!windows.some(([start, end]) => start <= t && t <= end)) continue;
    const place = placeOf(bucket, line === undefined ? undefined : `${path.basename(line.file)}:${line.line}`);
    places.set(place, (places.get(place) ?? 0) + block.size);
  }
  assert.equal(total, device.peakBytes, 'the live blocks add up to the peak');
  return { peakBytes: device.peakBytes, places, namedBytes, total };
}

const MiB = 1 << 20;
const sum = (m: Map<string, number>, keep: (place: string) => boolean) => [...m].filter(([p]) => keep(p)).reduce((s, [, b]) => s + b, 0);

describe('backward memory on lines (stand-in training step through the bootstrap)', () => {
  it('on: every backward byte at the peak is on the loss.backward() line; the whole peak is on lines', (t) => {
    const r = trainStep({ backwardLines: 'on' });
    t.diagnostic(`peak ${r.peakBytes} B; backward at the peak: ${JSON.stringify([...r.places])}; on lines or modules: ${((100 * r.namedBytes) / r.peakBytes).toFixed(1)}%`);
    // At the peak (inside the last block's backward): gradients of 512 x 4096 float32 activations, 8 MiB each.
    assert.ok(sum(r.places, () => true) >= 16 * MiB, 'the peak is inside backward');
    assert.deepEqual([...r.places.keys()], [`line train_step.py:${backwardLine}`]);
    assert.equal(r.namedBytes, r.peakBytes);
  });

  it('on, no user frame at all: backward bytes made inside a module are in buckets named by the module', (t) => {
    const r = trainStep({ backwardLines: 'on', asLibrary: true });
    const named = [...r.places.keys()].filter((p) => p.startsWith('annotation: backward: '));
    t.diagnostic(`backward at the peak: ${JSON.stringify([...r.places])}; on lines or modules: ${((100 * r.namedBytes) / r.peakBytes).toFixed(1)}%`);
    assert.ok(named.length > 0, JSON.stringify([...r.places]));
    for (const place of named) assert.ok(MODULES.has(place.replace('annotation: backward: ', '')), place);
    assert.ok(sum(r.places, (p) => named.includes(p)) >= 16 * MiB, 'the last block\'s activation gradients are named');
    // What backward made outside every module (the loss function's gradient) is named by its file.
    for (const place of r.places.keys()) assert.ok(named.includes(place) || place === 'library: train_step.py', place);
    assert.equal(sum(r.places, (p) => p.startsWith('backward: ') || p.startsWith('noFrames')), 0);
  });

  it('off (the control): backward bytes at the peak are on no line, in an anonymous bucket', (t) => {
    const r = trainStep({ backwardLines: 'off' });
    t.diagnostic(`backward at the peak: ${JSON.stringify([...r.places])}; on lines: ${((100 * r.namedBytes) / r.peakBytes).toFixed(1)}%`);
    assert.ok(sum(r.places, (p) => p === 'noFrames: ') >= 16 * MiB, JSON.stringify([...r.places]));
    assert.ok(r.namedBytes < r.peakBytes);
  });

  it('off with stacks="all": the anonymous buckets are autograd nodes', () => {
    const r = trainStep({ backwardLines: 'off', stacks: 'all' });
    const nodes = [...r.places.keys()].filter((p) => p.startsWith('backward: '));
    assert.ok(nodes.includes('backward: ReluBackward0') && nodes.includes('backward: AddmmBackward0'), JSON.stringify([...r.places]));
    assert.ok(sum(r.places, (p) => nodes.includes(p)) >= 16 * MiB);
  });
});
