/** `vram-lens whatif` as a user runs it: the JSON contract, the text, and refusals. */
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { main } from '../../../src/cli/main';
import { corpusDir, corpusMissing, parseExactJson } from '../../helpers/corpus';

const small = path.join(corpusDir, 'silmont2000-cs336-small.pickle');
const expandable = path.join(corpusDir, 'constructor-sun-expandable-oom-4dev.pickle');
const midRun = path.join(corpusDir, 'nothanmin-cs336.pickle');
const GiB = 2 ** 30;

async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(args, { out: (t) => (out += t), err: (t) => (err += t) });
  return { code, out, err };
}

type Json = Record<string, unknown>;

describe('vram-lens whatif', { skip: corpusMissing }, () => {
  it('--json: per device the self-check and the prediction, with exactly the contract keys', async () => {
    const r = await run(['whatif', small, '--json']);
    assert.equal(r.code, 0, r.err);
    const device = (parseExactJson(r.out) as { devices: Json[] }).devices[0];
    assert.deepEqual(device.selfCheck, { allocations: 36, atRecordedAddress: 36, segmentEvents: 9, segmentEventsReproduced: 9, firstDeparture: null });
    // The recorded peak reserved, as `analyze` reads it from the trace's segment events (3.52 GiB), and its 9 segment_alloc.
    const analyzed = await run(['analyze', small, '--json']);
    const peak = (parseExactJson(analyzed.out) as { devices: Json[] }).devices[0].peakReservedBytes;
    assert.equal(device.peakReservedBytes, peak);
    assert.equal(device.cudaMallocs, 9);
    assert.equal(device.oom, null);
    assert.equal(device.capacityBytes, null);
    assert.equal('table' in device, false);
  });

  it('--json oom: the recorded OOM of the expandable-segments snapshot, under the capacity the OOM implies', async () => {
    const r = await run(['whatif', expandable, '--device', '1', '--json']);
    assert.equal(r.code, 0, r.err);
    const device = (parseExactJson(r.out) as { devices: Json[] }).devices[0];
    const oom = device.oom as Json;
    assert.deepEqual(Object.keys(oom), ['event', 'file', 'line', 'requestedBytes', 'reservedBytes', 'largestFreeBytes']);
    assert.equal(oom.event, 421);
    assert.equal(oom.requestedBytes, 5308694528, 'the size the oom entry records');
    assert.match(String(oom.file), /models\.py$/);
    assert.equal(device.oomRecorded, true);
    assert.equal(device.settings, 'expandable_segments:True');
  });

  it('--capacity 12GB reads a GPU\'s memory as GPUs are sold (12 GiB, issue 29) and prints the bytes used', async () => {
    const gb = await run(['whatif', small, '--capacity', '12GB']);
    assert.equal(gb.code, 0, gb.err);
    assert.match(gb.out, /capacity 12\.00 GiB \(12,884,901,888 bytes\)/);
    const json = (parseExactJson((await run(['whatif', small, '--capacity', '12GB', '--json'])).out) as { devices: Json[] }).devices[0];
    assert.equal(json.capacityBytes, 12 * GiB);
  });

  it('--capacity and --alloc-conf: a prediction for another GPU and other settings', async () => {
    const r = await run(['whatif', expandable, '--device', '0', '--capacity', '4GiB', '--alloc-conf', 'expandable_segments:False', '--json']);
    assert.equal(r.code, 0, r.err);
    const device = (parseExactJson(r.out) as { devices: Json[] }).devices[0];
    assert.equal(device.capacityBytes, 4 * 2 ** 30);
    assert.equal(device.settings, '');
    assert.equal(device.recordedSettings, 'expandable_segments:True');
    assert.notEqual(device.oom, null, 'device 0 peaked near 8 GiB');
    assert.ok((device.peakReservedBytes as number) <= 4 * 2 ** 30);
  });

  it('a recording that began mid-run (14.5 GiB live, 22.2 GiB reserved): the GPUs that cannot hold what was live then do not fit', async () => {
    // What analyze counts as live and reserved when recording began (the contract's initial state).
    const analyzed = (parseExactJson((await run(['analyze', midRun, '--json'])).out) as { devices: Json[] }).devices[0];
    const live = analyzed.initialActiveBytes as number;
    const reserved = analyzed.initialReservedBytes as number;
    assert.ok(live > 12 * GiB && live < 16 * GiB && reserved > 16 * GiB);
    const r = await run(['whatif', midRun, '--table', '--json']);
    assert.equal(r.code, 0, r.err);
    const device = (parseExactJson(r.out) as { devices: Json[] }).devices[0];
    const rows = (device.table as { rows: { cells: Json[] }[] }).rows;
    for (const row of rows) {
      for (const cell of row.cells) {
        const capacity = cell.capacityBytes as number;
        const start = cell.start as Json | null;
        if (capacity < live) assert.deepEqual([cell.fits, start?.outcome, cell.peakReservedBytes, cell.oom], [false, 'allocated', null, null]);
        else if (capacity < reserved) assert.notEqual(start, null, `${capacity}: recording began above it`);
        else assert.equal(start, null);
        if (cell.peakReservedBytes !== null) assert.ok((cell.peakReservedBytes as number) <= capacity);
      }
    }
    // One prediction says the same, and the text says why.
    const one = (parseExactJson((await run(['whatif', midRun, '--capacity', '8GiB', '--json'])).out) as { devices: Json[] }).devices[0];
    assert.deepEqual([one.fits, (one.start as Json).outcome, one.peakReservedBytes], [false, 'allocated', null]);
    assert.equal((one.start as Json).reservedBytes, reserved);
    const text = await run(['whatif', midRun, '--capacity', '8GiB', '--table']);
    assert.match(text.out, /Does not fit: 14\.92 GiB was already allocated before recording began \(tensors that need at least 14\.50 GiB\), more than the 8\.00 GiB/);
    assert.match(text.out, /as recorded +22\.21 GiB +OOM +OOM +OOM +fits/);
  });

  it('prints the self-check, the prediction and the GPU-size table', async () => {
    const r = await run(['whatif', small, '--table']);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /36 of 36 allocations at the address PyTorch recorded \(100%\), 9 of 9 segment events reproduced/);
    assert.match(r.out, /peak reserved 3\.52 GiB/);
    assert.match(r.out, /as recorded +3\.52 GiB +fits/);
    assert.match(r.out, /expandable_segments:True/);
    assert.match(r.out, /max_split_size_mb:\d+/);
  });

  it('analyze prints the self-check too, so a reader knows whether to trust a prediction', async () => {
    const r = await run(['analyze', small]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /replayed {8}36\/36 allocations at PyTorch's addresses, 9\/9 segment events \(allocator self-check/);
  });

  it('refuses bad options with usage errors (exit 2) and an absent device with exit 1', async () => {
    const bad = async (args: string[], message: RegExp, code = 2) => {
      const r = await run(['whatif', small, ...args]);
      assert.equal(r.code, code, args.join(' '));
      assert.match(r.err, message);
    };
    await bad(['--alloc-conf', 'expandable_segments:maybe'], /--alloc-conf: expandable_segments takes True or False/);
    await bad(['--capacity', 'lots'], /--capacity takes a size/);
    await bad(['--memory-fraction', '0.5'], /--memory-fraction needs --capacity/);
    await bad(['--memory-fraction', '2', '--capacity', '8GiB'], /--memory-fraction takes a number/);
    await bad(['--device', '3'], /no device 3/, 1);
  });
});
