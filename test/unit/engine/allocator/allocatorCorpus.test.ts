/**
 * The allocator replay against PyTorch itself: on every snapshot of the shared corpus, the
 * self-check must put every allocation at the address PyTorch recorded, reproduce every recorded
 * segment event and end in the recorded `segments`; a trace that falls short must be listed below
 * with its reason. The counts of each trace come from ../shared/snapshots/SOURCES.md ("trace
 * actions"), not from our decoder.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { selfCheck, settingsOf } from '../../../../src/engine/allocator/selfCheck';
import type { SegmentEventKind } from '../../../../src/engine/allocator/traceReplay';
import { AllocatorReplay } from '../../../../src/engine/allocator/traceReplay';
import { GiB } from '../../../../src/engine/allocator/sizes';
import { snapshotFromBytes } from '../../../../src/engine/decode/load';
import type { Snapshot } from '../../../../src/engine/snapshot/model';
import { Action, devicesOf } from '../../../../src/engine/snapshot/model';
import { whatIfBasis, whatIfTable } from '../../../../src/engine/allocator/whatIf';
import { analyzeSnapshot } from '../../../../src/engine/analysis/analyze';
import { corpusDir, corpusFiles, corpusMissing } from '../../../helpers/corpus';

interface Expected {
  readonly allocations: number;
  readonly segmentEvents: number;
  /** Allocations the replay places elsewhere, and why (0 for every trace today). */
  readonly departures?: { readonly atRecordedAddress: number; readonly reason: string };
}

/** file -> device -> what the trace holds. Devices with no allocation in their trace are checked by their final state only. */
const TABLE: Readonly<Record<string, Readonly<Record<number, Expected>>>> = {
  'angelolmn-hitsbe-empty.pickle': {},
  'bcrafton-cs336.pickle': { 0: { allocations: 2162, segmentEvents: 0 } },
  // SOURCES.md lists device totals over devices 0-2: alloc 3025 = 2434 + 199 + 392; segment_map 293 = 175 + 40 + 78; segment_unmap 6 (device 1).
  'constructor-sun-expandable-oom-4dev.pickle': { 0: { allocations: 2434, segmentEvents: 175 }, 1: { allocations: 199, segmentEvents: 46 }, 2: { allocations: 392, segmentEvents: 78 } },
  'cranberrii-ftcourse.pickle': { 0: { allocations: 3505, segmentEvents: 152 } },
  'hugepandacoder-octree-nca-snapshot-action.pickle': { 0: { allocations: 294, segmentEvents: 21 } },
  'hugepandacoder-octree-nca-torch23.pickle': { 0: { allocations: 1491, segmentEvents: 48 } },
  'jaspersolt-eor-nn.pickle': { 0: { allocations: 1935, segmentEvents: 7 } },
  'jogregoire-diffusion-tiny.pickle': { 0: { allocations: 0, segmentEvents: 0 } },
  'kkaitlyn111-cs336-2.7b-forward.pickle': { 0: { allocations: 3020, segmentEvents: 178 + 742 } },
  'kkaitlyn111-cs336-segments-only.pickle': {},
  'kkaitlyn111-cs336-small-forward-uint64-line.pickle': { 0: { allocations: 2998, segmentEvents: 3 } },
  'lfielike-sketchkv2.pickle': { 0: { allocations: 0, segmentEvents: 0 } },
  'magma27-cs336-user-metadata.pickle': { 0: { allocations: 1721, segmentEvents: 0 } },
  'maphsge4-select-n-4dev-traces.pickle': { 0: { allocations: 3058, segmentEvents: 584 + 579 } },
  'maphsge4-select-n-segments-only.pickle': {},
  'muduard-layoutediting-2dev.pickle': { 0: { allocations: 0, segmentEvents: 0 }, 1: { allocations: 0, segmentEvents: 0 } },
  'muduard-layoutediting-bare-segment-list.pickle': {},
  'nothanmin-cs336.pickle': { 0: { allocations: 6488, segmentEvents: 0 } },
  'silmont2000-cs336-small.pickle': { 0: { allocations: 36, segmentEvents: 9 } },
  'wedsonlin-cs336-medium-512-training.pickle': { 0: { allocations: 7591, segmentEvents: 1 } },
  'yiyi-llm-inference-1.3b-torch20.pickle': { 0: { allocations: 0, segmentEvents: 0 } },
  'yiyi-llm-inference-oom-torch20.pickle': { 0: { allocations: 0, segmentEvents: 0 } },
  'zidongliu-decomfl.pickle': { 0: { allocations: 7946, segmentEvents: 61 } },
  'zijiandu-attention-segments-only.pickle': {},
};

const loaded = new Map<string, Snapshot>();
function load(file: string): Snapshot {
  let s = loaded.get(file);
  if (!s) {
    s = snapshotFromBytes(new Uint8Array(readFileSync(path.join(corpusDir, file))));
    loaded.set(file, s);
  }
  return s;
}

describe('allocator self-check on the corpus', { skip: corpusMissing }, () => {
  it('lists every corpus file', () => {
    assert.deepEqual(
      corpusFiles().map((f) => path.basename(f)),
      Object.keys(TABLE).sort(),
    );
  });

  for (const [file, devices] of Object.entries(TABLE)) {
    it(`${file}: every allocation at the recorded address, every segment event, the final segments`, () => {
      const snap = load(file);
      for (const device of devicesOf(snap)) {
        const d = selfCheck(snap, device);
        const expected = devices[device] ?? { allocations: 0, segmentEvents: 0 };
        const at = expected.departures?.atRecordedAddress ?? expected.allocations;
        assert.deepEqual(
          [d.check.allocations, d.check.atRecordedAddress, d.check.segmentEvents, d.check.segmentEventsReproduced],
          [expected.allocations, at, expected.segmentEvents, expected.segmentEvents],
          `device ${device}`,
        );
        if (expected.departures) assert.match(d.check.firstDeparture?.reason ?? '', new RegExp(expected.departures.reason));
        else assert.equal(d.check.firstDeparture, null, `device ${device}: ${d.check.firstDeparture?.reason}`);
        const blocks = snap.segments.filter((s) => s.device === device).reduce((n, s) => n + s.blocks.length, 0);
        assert.deepEqual([d.finalBlocks, d.finalBlocksMatching], [blocks, blocks], `device ${device}: the final state`);
      }
    });
  }

  it('the expandable-segments snapshot: under its recorded capacity, the prediction maps and unmaps what PyTorch did and runs out where it did', () => {
    const snap = load('constructor-sun-expandable-oom-4dev.pickle');
    const trace = snap.traces[1];
    // The capacity from the recording itself: reserved right before the OOM plus the device_free it reports.
    const oomAt = [...trace.action].indexOf(Action.Oom);
    let reserved = snap.segments.filter((s) => s.device === 1).reduce((t, s) => t + s.totalSize, 0);
    for (let i = trace.length - 1; i >= oomAt; i--) {
      if (trace.action[i] === Action.SegmentMap) reserved -= trace.size[i];
      if (trace.action[i] === Action.SegmentUnmap) reserved += trace.size[i];
    }
    const capacity = reserved + trace.deviceFree.get(oomAt)!;
    const recorded: string[] = [];
    for (let i = 0; i < trace.length; i++) {
      if (trace.action[i] === Action.SegmentMap) recorded.push(`map ${trace.addr[i]} ${trace.size[i]}`);
      if (trace.action[i] === Action.SegmentUnmap) recorded.push(`unmap ${trace.addr[i]} ${trace.size[i]}`);
    }
    const seen: string[] = [];
    const replay = new AllocatorReplay(snap, 1, {
      settings: settingsOf(snap),
      totalMemory: 80 * GiB,
      capacity,
      observer: { segment: (_e: number, kind: SegmentEventKind, ptr: number, size: number) => seen.push(`${kind} ${ptr} ${size}`) },
    }).runTo();
    assert.equal(recorded.filter((r) => r.startsWith('unmap')).length, 6);
    assert.deepEqual(seen, recorded);
    assert.deepEqual(
      replay.ooms.map((o) => [o.event, o.requestedBytes, o.recorded]),
      [[oomAt, trace.size[oomAt], true]],
    );
    assert.equal(replay.atRecordedAddress, replay.allocations);
  });

  it('the GPU-size table never fits what the recording began with when it cannot: a replay stays under its capacity', () => {
    // The bytes live when recording began, as the analysis counts them from the trace and `segments` (the
    // contract's initial state, checked against the Python oracle): a GPU that cannot hold them cannot run
    // the program; and a replay that ran never reserves more than the GPU it ran on.
    for (const file of Object.keys(TABLE)) {
      const snap = load(file);
      const analysis = analyzeSnapshot(snap, {});
      for (const d of analysis.devices) {
        const table = whatIfTable(whatIfBasis(snap, d.device));
        for (const row of table.rows) {
          for (const cell of row.cells) {
            const at = `${file} device ${d.device} ${row.label} ${cell.capacityBytes / GiB} GiB`;
            if (cell.peakReservedBytes !== null) assert.ok(cell.peakReservedBytes <= cell.capacityBytes, `${at}: peak ${cell.peakReservedBytes}`);
            if (cell.capacityBytes < d.initialActiveBytes) {
              assert.equal(cell.fits, false, at);
              assert.equal(cell.start?.outcome, 'allocated', at);
              assert.ok(cell.start.neededBytes >= d.initialActiveBytes, at);
            }
            if (cell.start !== null) assert.equal(cell.start.reservedBytes, d.initialReservedBytes, at);
            else assert.ok(d.initialReservedBytes <= cell.capacityBytes, at);
          }
        }
      }
    }
  });

  it('a prediction with the recorded settings, at the capacity the recording implies, makes the recording again', () => {
    for (const file of Object.keys(TABLE)) {
      const snap = load(file);
      for (const device of devicesOf(snap)) {
        const trace = snap.traces[device];
        if (!trace || trace.length === 0) continue;
        const basis = whatIfBasis(snap, device);
        const seen: string[] = [];
        const replay = new AllocatorReplay(snap, device, {
          settings: settingsOf(snap),
          totalMemory: 80 * GiB,
          capacity: basis.check.capacityBytes ?? Infinity,
          emptyCacheAt: basis.emptyCacheAt,
          observer: { segment: (_e: number, kind: SegmentEventKind, ptr: number, size: number) => seen.push(`${kind} ${ptr} ${size}`) },
        }).runTo();
        const names: Partial<Record<number, string>> = { [Action.SegmentAlloc]: 'alloc', [Action.SegmentFree]: 'free', [Action.SegmentMap]: 'map', [Action.SegmentUnmap]: 'unmap' };
        const recorded: string[] = [];
        for (let i = 0; i < trace.length; i++) {
          const name = names[trace.action[i]];
          if (name) recorded.push(`${name} ${trace.addr[i]} ${trace.size[i]}`);
        }
        assert.deepEqual(seen, recorded, `${file} device ${device}`);
        assert.equal(replay.atRecordedAddress, replay.allocations, `${file} device ${device}`);
      }
    }
  });
});
