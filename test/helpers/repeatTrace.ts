/**
 * A large snapshot built in memory from a real one: device 0's trace repeated, each copy with its
 * addresses and times shifted. Each copy is balanced (frees of blocks from before the recording are
 * dropped, blocks still alive at its end are freed there), so memory stays as in one iteration of
 * the real program while the number of events grows: what a long training run looks like.
 */
import type { DeviceTrace, Snapshot } from '../../src/engine/snapshot/model';
import { Action } from '../../src/engine/snapshot/model';

const ADDRESS_SPAN = 1e12;

export function repeatTrace(source: Snapshot, targetEvents: number): Snapshot {
  const src = source.traces[0];
  const keep: number[] = [];
  const live = new Map<number, number>();
  for (let i = 0; i < src.length; i++) {
    const a = src.action[i];
    if (a === Action.Alloc) {
      live.set(src.addr[i], i);
      keep.push(i);
    } else if (a === Action.FreeRequested || a === Action.FreeCompleted) {
      if (!live.has(src.addr[i])) continue;
      keep.push(i);
      if (a === Action.FreeCompleted) live.delete(src.addr[i]);
    } else if (a !== Action.SegmentAlloc && a !== Action.SegmentMap && a !== Action.SegmentFree && a !== Action.SegmentUnmap) {
      keep.push(i);
    }
  }
  const leftovers = [...live.values()];
  const perCopy = keep.length + leftovers.length;
  const copies = Math.max(1, Math.round(targetEvents / Math.max(1, perCopy)));
  const n = copies * perCopy;
  const action = new Uint8Array(n);
  const addr = new Float64Array(n);
  const size = new Float64Array(n);
  const timeUs = new Float64Array(n);
  const stack = new Int32Array(n);
  const stream = new Float64Array(n);
  const t0 = src.length > 0 ? src.timeUs[0] : 0;
  const duration = src.length > 0 ? src.timeUs[src.length - 1] - t0 + 1000 : 1000;
  let k = 0;
  for (let c = 0; c < copies; c++) {
    for (const i of keep) {
      action[k] = src.action[i];
      addr[k] = src.addr[i] + c * ADDRESS_SPAN;
      size[k] = src.size[i];
      timeUs[k] = src.timeUs[i] + c * duration;
      stack[k] = src.stack[i];
      k++;
    }
    for (const i of leftovers) {
      action[k] = Action.FreeCompleted;
      addr[k] = src.addr[i] + c * ADDRESS_SPAN;
      size[k] = src.size[i];
      timeUs[k] = t0 + (c + 1) * duration - 1;
      stack[k] = src.stack[i];
      k++;
    }
  }
  const trace: DeviceTrace = {
    device: 0,
    length: n,
    action,
    addr,
    size,
    timeUs,
    stack,
    stream,
    deviceFree: new Map(),
    otherActions: new Map(),
    userMetadata: new Map(),
    compileContext: new Map(),
  };
  return { ...source, traces: [trace], segments: [], externalAnnotations: [] };
}
