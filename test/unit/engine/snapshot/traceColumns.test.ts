/**
 * Trace columns: entries stream into one storage block shared by every trace of a file; a trace
 * whose range stops being contiguous, or that outgrows the block, moves to its own chunks without
 * losing or mixing entries.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FrameTable } from '../../../../src/engine/snapshot/intern';
import { Action } from '../../../../src/engine/snapshot/model';
import { TraceArena, TraceColumns } from '../../../../src/engine/snapshot/traceColumns';

const entry = (addr: number, action = 'alloc') => ({ action, addr, size: addr * 10, stream: 0, time_us: addr * 100, frames: [] });

describe('trace columns', () => {
  it('two traces written one after the other share the block as contiguous views', () => {
    const arena = new TraceArena(10);
    const table = new FrameTable();
    const a = new TraceColumns(table, arena);
    [1, 2, 3].forEach((k) => a.push(entry(k)));
    const b = new TraceColumns(table, arena);
    [7, 8].forEach((k) => b.push(entry(k, 'free_completed')));
    const ta = a.build(0);
    const tb = b.build(1);
    assert.deepEqual([...ta.addr], [1, 2, 3]);
    assert.deepEqual([...ta.size], [10, 20, 30]);
    assert.deepEqual([...tb.addr], [7, 8]);
    assert.deepEqual([...tb.action], [Action.FreeCompleted, Action.FreeCompleted]);
    assert.equal(ta.addr.buffer, tb.addr.buffer, 'no copy');
  });

  it('interleaved traces move to their own storage and keep every entry in order', () => {
    const arena = new TraceArena(100);
    const table = new FrameTable();
    const a = new TraceColumns(table, arena);
    const b = new TraceColumns(table, arena);
    a.push(entry(1));
    a.push(entry(2));
    b.push(entry(50));
    a.push(entry(3));
    b.push(entry(51));
    a.push(entry(4));
    assert.deepEqual([...a.build(0).addr], [1, 2, 3, 4]);
    assert.deepEqual([...b.build(1).timeUs], [5000, 5100]);
  });

  it('a trace larger than the block and than one chunk is kept whole', () => {
    const arena = new TraceArena(5);
    const a = new TraceColumns(new FrameTable(), arena);
    const count = (1 << 16) + 10;
    for (let k = 0; k < count; k++) a.push(entry(k));
    const t = a.build(0);
    assert.equal(t.length, count);
    assert.equal(t.addr[4], 4);
    assert.equal(t.addr[5], 5);
    assert.equal(t.addr[count - 1], count - 1);
    assert.equal(t.size[1 << 16], (1 << 16) * 10);
  });

  it('without a block, columns are chunked', () => {
    const a = new TraceColumns(new FrameTable());
    a.push(entry(9));
    assert.deepEqual([...a.build(0).addr], [9]);
  });
});
