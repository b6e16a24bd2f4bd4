/**
 * One truth per figure (issue 29, item 8): a snapshot whose trace allocates more than its segments
 * reserve does not record the device's reserved memory, so every view says "unknown", never "0 B":
 * the analysis (`reservedShortfall`), the summary's words, the CLI, the advisor's OOM post-mortem (no
 * "0 B reserved", no negative cache), the allocator's self-check (not replayable: it would otherwise
 * explain the OOM with a reserved figure of its own), compare's totals and a window of such a file.
 *
 * The file is the shape the issue met: a "markup" snapshot (markdown and HTML in its file name) whose
 * segments are on another device than its trace, with a 1 GiB allocation and a 1 TiB OOM. Expected
 * values are worked out by hand from the events. Every corpus snapshot (real PyTorch recordings) is
 * checked to keep its reserved figures: PyTorch's caching allocator never holds more allocated than
 * reserved memory.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { main } from '../../../../src/cli/main';
import { advise } from '../../../../src/engine/advice/advise';
import { outOfMemory } from '../../../../src/engine/advice/rules/outOfMemory';
import { fragmentation } from '../../../../src/engine/advice/rules/fragmentation';
import { selfCheck } from '../../../../src/engine/allocator/selfCheck';
import { allocatorOutOfWindow } from '../../../../src/engine/allocator/window';
import { analyzeSnapshot } from '../../../../src/engine/analysis/analyze';
import { summarizeDevice } from '../../../../src/engine/analysis/summary';
import { compareRuns } from '../../../../src/engine/compare/diff';
import { sideFromAnalysis } from '../../../../src/engine/compare/side';
import { SnapshotReader, snapshotFromBytes } from '../../../../src/engine/decode/load';
import type { PlainValue } from '../../../../src/engine/pickle/encoder';
import { encodePickle } from '../../../../src/engine/pickle/encoder';
import { AllocatorStudy } from '../../../../src/engine/session/allocatorStudy';
import { SnapshotSession } from '../../../../src/engine/session/session';
import { corpusFiles, corpusMissing } from '../../../helpers/corpus';
import { GiB, MiB } from '../../../helpers/traceBuilder';

const TiB = 1024 * GiB;
const FILE = '/home/u/`code` **bold** <i>x</i>/train.py';
const frames = [{ filename: FILE, line: 3, name: 'train' }];

/** Device 0 allocates 1 GiB, then a 1 TiB request fails; the only segment is device 1's 2 MiB. */
function markupPickle(events: PlainValue[] = []): Uint8Array {
  return encodePickle({
    segments: [{ device: 1, address: 0x7f0000000000, total_size: 2 * MiB, stream: 0, segment_type: 'small', allocated_size: 0, active_size: 0, blocks: [{ size: 2 * MiB, requested_size: 0, state: 'inactive', address: 0x7f0000000000, frames: [] }] }],
    device_traces: [
      [
        ...events,
        { action: 'alloc', addr: 0x7e0000000000, size: GiB, stream: 0, time_us: 10, frames },
        { action: 'oom', addr: 0, size: TiB, stream: 0, time_us: 20, frames, device_free: 512 * MiB },
      ],
      [],
    ],
  });
}

async function cli(args: string[]): Promise<string> {
  let out = '';
  const code = await main(args, { out: (t) => (out += t), err: (t) => (out += t) });
  assert.equal(code, 0, out);
  return out;
}

describe('reserved memory a snapshot does not record is unknown everywhere (issue 29, item 8)', () => {
  const bytes = markupPickle();
  const analysis = analyzeSnapshot(snapshotFromBytes(bytes));
  const d0 = analysis.devices.find((d) => d.device === 0)!;

  it('the analysis finds the first moment allocated memory exceeds the recorded segments: after event 0, 1 GiB against 0 B', () => {
    assert.deepEqual(d0.reservedShortfall, { event: 0, activeBytes: GiB, reservedBytes: 0 });
    // Device 1 allocates nothing: its 2 MiB segment is all it reserves, and that is known.
    assert.equal(analysis.devices.find((d) => d.device === 1)!.reservedShortfall, undefined);
  });

  it('the summary says unknown, with why', () => {
    const s = summarizeDevice(analysis, d0);
    assert.equal(s.reservedUnknown, 'unknown: the snapshot does not record this device\'s reserved memory (1.0 GiB allocated after event 0, and no segment holds it)');
  });

  it('the CLI prints it instead of "peak 0 B", and says the allocator replay does not apply', async () => {
    const file = path.join(tmpdir(), `vl-reserved-unknown-${process.pid}.pickle`);
    writeFileSync(file, bytes);
    const out = await cli(['analyze', file]);
    assert.match(out, /reserved {8}unknown: the snapshot does not record this device's reserved memory \(1\.0 GiB allocated after event 0, and no segment holds it\)/);
    assert.doesNotMatch(out, /reserved {8}peak 0 B/);
    assert.match(out, /replayed {8}no: The trace allocates more than this device's recorded segments reserve/);
    const whatif = await cli(['whatif', file, '--device', '0']);
    assert.match(whatif, /The trace allocates more than this device's recorded segments reserve \(1\.0 GiB allocated after event 0, and no segment holds it\)/);
    assert.doesNotMatch(whatif, /asked with .* reserved/);
  });

  it('the OOM post-mortem states no reserved figure and no cache: neither "0 B reserved" nor a negative unused cache', () => {
    const [f] = advise(analysis, { rules: [outOfMemory], device: 0 });
    assert.ok(f);
    assert.match(f.message, /asked for 1\.0 TiB while 1\.0 GiB was allocated and an unknown amount reserved by PyTorch/);
    assert.doesNotMatch(f.message, /0 B reserved|cache held/);
    assert.equal(f.evidence.reservedBytes, undefined);
    assert.equal(f.evidence.cachedUnusedBytes, undefined);
    assert.equal(advise(analysis, { rules: [fragmentation], device: 0 }).length, 0, 'no fragmentation finding on an unknown cache');
  });

  it('the allocator\'s self-check says it does not apply, so no OOM is explained with a reserved figure of the replay\'s', () => {
    const c = selfCheck(analysis.snapshot, 0);
    assert.match(c.notReplayable ?? '', /^The trace allocates more than this device's recorded segments reserve \(1\.0 GiB allocated after event 0, and no segment holds it\)/);
    // ...and explains no recorded OOM with the replay's own state (it said "1.0 TiB asked with 1.0 GiB reserved").
    assert.deepEqual(new AllocatorStudy(analysis.snapshot, 0).ooms(analysis.lineIndex), []);
    // The summary page's allocator section shows only this sentence where `notReplayable` is set (webview/summary/main.ts).
    const session = new SnapshotSession(analysis.snapshot, bytes.byteLength, {});
    assert.equal(session.info().devices.find((d) => d.device === 0)?.reservedUnknown, summarizeDevice(analysis, d0).reservedUnknown);
  });

  it('compare\'s totals: unknown, and so is the change', () => {
    // The same program where the 1 GiB block sits in a recorded 1 GiB segment: reserved is known, 1 GiB.
    const segment = { device: 0, address: 0x7e0000000000, total_size: GiB, stream: 0, segment_type: 'large', allocated_size: GiB, active_size: GiB, blocks: [{ size: GiB, requested_size: GiB, state: 'active_allocated', address: 0x7e0000000000, frames }] };
    const alloc = { action: 'alloc', addr: 0x7e0000000000, size: GiB, stream: 0, time_us: 10, frames };
    const known = analyzeSnapshot(snapshotFromBytes(encodePickle({ segments: [segment], device_traces: [[alloc]] })));
    const c = compareRuns(sideFromAnalysis('a', analysis, 0), sideFromAnalysis('b', known, 0));
    assert.equal(c.baseline.totals.peakReservedBytes, null);
    assert.equal(c.current.totals.peakReservedBytes, GiB);
    assert.equal(c.totalsDelta.peakReservedBytes, null);
  });

  it('a window of such a file says so before sending the user to load all of it', () => {
    const padding: PlainValue[] = Array.from({ length: 4 }, (_, i) => ({ action: 'snapshot', addr: 0, size: 0, stream: 0, time_us: i, frames: [] }));
    const pickle = markupPickle(padding);
    const reader = new SnapshotReader({ expectedBytes: pickle.length, window: { axis: 'event', from: 2 } });
    reader.feed(pickle);
    const windowed = reader.finish();
    const why = allocatorOutOfWindow(windowed, 0) ?? '';
    assert.match(why, /^the snapshot does not record this device's reserved memory \(1\.0 GiB allocated after event 4, and no segment holds it\): the caching allocator cannot be replayed on it, from a window of the recording or from all of it/);
    const w = analyzeSnapshot(windowed);
    assert.match(summarizeDevice(w, w.devices.find((d) => d.device === 0)!).reservedUnknown ?? '', /after event 4,/, 'named by its index in the recording');
  });

  it('no corpus snapshot (real PyTorch recordings) allocates more than it reserves: their reserved figures stay', { skip: corpusMissing }, () => {
    for (const file of corpusFiles()) {
      const a = analyzeSnapshot(snapshotFromBytes(new Uint8Array(readFileSync(file))));
      for (const d of a.devices) assert.equal(d.reservedShortfall, undefined, `${file} device ${d.device}`);
    }
  });
});
