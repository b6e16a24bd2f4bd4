/**
 * A replay's allocation records read their address, size and stack from the trace event they were made
 * from (an alloc, or the free of a block allocated before the trace), and keep their own only for blocks
 * no event names (carried in from before a window, live all along). Each expected record below is written
 * out by hand from the trace, not from the code.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BEFORE_TRACE, BEFORE_WINDOW, NEVER_FREED, RecordBuilder } from '../../../../src/engine/analysis/allocationRecords';
import { replayDevice } from '../../../../src/engine/analysis/replay';
import { RunningSum } from '../../../../src/engine/base/runningSum';
import { snapshotFromPickle } from '../../../../src/engine/snapshot/fromPickle';
import type { DeviceTrace } from '../../../../src/engine/snapshot/model';
import { Action } from '../../../../src/engine/snapshot/model';
import { ev, frame, rawSnapshot, segment } from '../../../helpers/traces';

/** A trace of four events: alloc at 0x100 (64 B, stack 7), free of 0x900 (32 B, stack 8), alloc at 0x200 (16 B, stack 9), free of 0x100. */
function fourEvents(): DeviceTrace {
  return {
    device: 0,
    length: 4,
    action: Uint8Array.from([Action.Alloc, Action.FreeCompleted, Action.Alloc, Action.FreeCompleted]),
    addr: Float64Array.from([0x100, 0x900, 0x200, 0x100]),
    size: Float64Array.from([64, 32, 16, 64]),
    timeUs: Float64Array.from([1, 2, 3, 4]),
    stack: Int32Array.from([7, 8, 9, 7]),
    stream: new Float64Array(4),
    deviceFree: new Map(),
    otherActions: new Map(),
    userMetadata: new Map(),
    compileContext: new Map(),
  };
}

const fields = (records: { count: number; addrOf(r: number): number; sizeOf(r: number): number; stackOf(r: number): number }) =>
  Array.from({ length: records.count }, (_, r) => [records.addrOf(r), records.sizeOf(r), records.stackOf(r)]);

describe('allocation records', () => {
  it('read each field from the event they were made from, or keep their own, in the order they were made', () => {
    const builder = new RecordBuilder(fourEvents(), 4);
    // Carried in first (a window), then the trace's, then the blocks live all along.
    assert.equal(builder.addCarried(0x5000, 4096, BEFORE_WINDOW, 3), 0);
    assert.equal(builder.addAlloc(0), 1);
    assert.equal(builder.addFreedBeforeTrace(1), 2);
    assert.equal(builder.addAlloc(2), 3);
    builder.setFreeEvent(1, 3);
    assert.equal(builder.addLiveAllAlong(0x7000, 512, 11), 4);
    assert.equal(builder.addLiveAllAlong(0x7200, 1024, 12), 5);
    // Six records past a capacity of four: the builder grew.
    assert.equal(builder.addrOf(4), 0x7000);
    const records = builder.build();
    assert.equal(records.count, 6);
    assert.deepEqual(fields(records), [
      [0x5000, 4096, 3],
      [0x100, 64, 7],
      [0x900, 32, 8],
      [0x200, 16, 9],
      [0x7000, 512, 11],
      [0x7200, 1024, 12],
    ]);
    assert.deepEqual([...records.allocEvent], [BEFORE_WINDOW, 0, BEFORE_TRACE, 2, BEFORE_TRACE, BEFORE_TRACE]);
    assert.deepEqual([...records.freeEvent], [NEVER_FREED, 3, 1, NEVER_FREED, NEVER_FREED, NEVER_FREED]);
    // The columns, made when first read, hold the same; made once.
    assert.deepEqual([...records.addr], [0x5000, 0x100, 0x900, 0x200, 0x7000, 0x7200]);
    assert.deepEqual([...records.size], [4096, 64, 32, 16, 512, 1024]);
    assert.deepEqual([...records.stack], [3, 7, 8, 9, 11, 12]);
    assert.equal(records.size, records.size);
  });

  it('takes blocks carried in only before any other record', () => {
    const builder = new RecordBuilder(fourEvents(), 8);
    builder.addAlloc(0);
    assert.throws(() => builder.addCarried(0x5000, 4096, BEFORE_TRACE, 3), /carried records come first/);
  });

  it('in a replay: a block freed but never allocated takes its free event\'s fields, a block live all along the bytes asked for', () => {
    const user = (line: number) => frame('/home/alice/proj/train.py', line, 'f');
    const snapshot = snapshotFromPickle(
      rawSnapshot(
        [[ev('free_completed', 0x900, 32, [user(5)]), ev('alloc', 0x100, 64, [user(6)]), ev('alloc', 0x300, 16, [user(7)]), ev('free_completed', 0x100, 64)]],
        [segment(0, 0x5000, 2048, [{ address: 0x5000, size: 1024, requested_size: 1000, state: 'active_allocated' }, { address: 0x300, size: 16, state: 'active_allocated' }])],
      ),
    );
    const records = replayDevice(snapshot, 0).allocations;
    const stackOfLine = (line: number) => snapshot.stacks.findIndex((s) => s.some((f) => snapshot.frames[f].line === line));
    assert.deepEqual(fields(records), [
      [0x900, 32, stackOfLine(5)],
      [0x100, 64, stackOf(snapshot, 0x100)],
      [0x300, 16, stackOfLine(7)],
      [0x5000, 1000, snapshot.segments[0].blocks[0].stack],
    ]);
    assert.deepEqual([...records.allocEvent], [BEFORE_TRACE, 1, 2, BEFORE_TRACE]);
    assert.deepEqual([...records.freeEvent], [0, 3, NEVER_FREED, NEVER_FREED]);
  });
});

/** The stack of the alloc at `addr` in device 0's trace. */
function stackOf(snapshot: ReturnType<typeof snapshotFromPickle>, addr: number): number {
  const t = snapshot.traces[0];
  for (let i = 0; i < t.length; i++) if (t.action[i] === Action.Alloc && t.addr[i] === addr) return t.stack[i];
  return -99;
}

describe('RunningSum', () => {
  it('adds byte counts exactly past 2^32 and returns each new sum', () => {
    const sum = new RunningSum(2 ** 40);
    assert.equal(sum.add(512), 2 ** 40 + 512);
    assert.equal(sum.add(-(2 ** 40)), 512);
    assert.equal(sum.value, 512);
  });
});
