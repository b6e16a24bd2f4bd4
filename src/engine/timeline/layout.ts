/**
 * The stacked layout of a device's allocations over time, as PyTorch's memory_viz draws it: the
 * blocks alive in a state are stacked from 0 in the order they were allocated (blocks from before
 * the recording at the bottom, those freed last lowest), a new block goes on top, and when a block
 * is freed every block above it moves down by its size. So the blocks alive in a state tile
 * [0, active) exactly, and a block's band offset is the sum of the sizes of the live blocks below it.
 *
 * Storing every block's offset over its lifetime costs O(blocks x live) (what makes memory_viz slow);
 * instead the live blocks are kept as a linked list in stacking order (a birth appends at the top, a
 * death unlinks in O(1)), with a copy of the list at checkpoints spaced so that their total size
 * stays O(events). Any state's layout is then one checkpoint restore plus a short replay, and the
 * offsets are a walk of the list (or, far from the cursor, of a checkpoint's copy and the births
 * since it, with nothing replayed). Building is O(n log n) for the sort by size, the rest O(n).
 */
import type { DeviceReplay } from '../analysis/replay';
import { NEVER_FREED } from '../analysis/replay';
import { IntBuffer } from '../base/growableArrays';
import { lowerBound } from './lowerBound';

/** Fewest states between two checkpoints (more when many blocks are alive, to bound memory). */
const CHECKPOINT_SPACING = 4096;
/** States per block of the precomputed maxima that representatives are picked from. */
export const MAX_BLOCK = 256;

/** The live blocks of one state, bottom first, as a doubly linked list over record ids. */
export class LiveList {
  readonly next: Int32Array;
  readonly prev: Int32Array;
  head = -1;
  tail = -1;
  size = 0;
  constructor(capacity: number) {
    this.next = new Int32Array(capacity);
    this.prev = new Int32Array(capacity);
  }
  clear(): void {
    this.head = -1;
    this.tail = -1;
    this.size = 0;
  }
  append(r: number): void {
    this.prev[r] = this.tail;
    this.next[r] = -1;
    if (this.tail === -1) this.head = r;
    else this.next[this.tail] = r;
    this.tail = r;
    this.size++;
  }
  remove(r: number): void {
    const p = this.prev[r];
    const n = this.next[r];
    if (p === -1) this.head = n;
    else this.next[p] = n;
    if (n === -1) this.tail = p;
    else this.prev[n] = p;
    this.size--;
  }
}

export class BlockLayout {
  /** n + 1 for n events. */
  readonly states: number;
  /** Allocation records (the replay's), indexed like `DeviceReplay.allocations`. */
  readonly count: number;
  readonly size: Float64Array;
  /** First state a record is alive in. */
  readonly bornState: Int32Array;
  /** First state a record is no longer alive in (`states` when it never dies). */
  readonly diedState: Int32Array;
  /** Active and reserved bytes after each event (the replay's arrays: state s >= 1 is index s - 1). */
  readonly active: Float64Array;
  readonly reserved: Float64Array;
  /** Active and reserved bytes in state 0, before the first event. */
  readonly initialActive: number;
  readonly initialReserved: number;
  /** Records that are alive in some state, largest first (ties: earlier born first). */
  readonly bySize: Int32Array;
  /** Each record's index in `bySize` (-1 for a record alive in no state). */
  readonly rank: Int32Array;
  /** `bornState` and `diedState` in `bySize` order: a walk by size reads them in sequence. */
  readonly bornByRank: Int32Array;
  readonly diedByRank: Int32Array;
  /** States where the sum of the live blocks differs from the replay's active bytes (0 for consistent traces). */
  readonly inconsistentStates: number;
  /**
   * Per block of MAX_BLOCK states: the highest active bytes, the first state reaching it, and the
   * highest reserved bytes, so that a pixel column over thousands of states costs a few hundred reads.
   */
  readonly blockMaxActive: Float64Array;
  readonly blockMaxState: Int32Array;
  readonly blockMaxReserved: Float64Array;
  /** Segment releases (segment_free / segment_unmap): the state right after each, and its bytes. */
  readonly releaseState: Int32Array;
  readonly releaseBytes: Float64Array;

  /** The records born in state s are `birthIds[birthStart[s] .. birthStart[s + 1])`. */
  readonly birthStart: Int32Array;
  readonly birthIds: Int32Array;
  private readonly deathStart: Int32Array;
  private readonly deathIds: Int32Array;
  /**
   * Copies of the live list: checkpoint c holds the live blocks of state `checkpointState[c]`, bottom
   * first, as `checkpointIds[checkpointStart[c] .. checkpointStart[c + 1])`.
   */
  readonly checkpointState: Int32Array;
  readonly checkpointStart: Int32Array;
  readonly checkpointIds: Int32Array;

  /** The list a query walks, and the state it holds. */
  readonly cursor: LiveList;
  private cursorAt = -1;
  /** Scratch per record for queries: -1, or the record's index among a query's chosen blocks. */
  readonly mark: Int32Array;

  constructor(replay: DeviceReplay, releases: { state: Int32Array; bytes: Float64Array }) {
    const n = replay.events;
    const states = n + 1;
    const records = replay.allocations;
    const count = records.count;
    this.states = states;
    this.count = count;
    this.size = records.size;
    this.releaseState = releases.state;
    this.releaseBytes = releases.bytes;

    this.active = replay.active;
    this.reserved = replay.reserved;
    this.initialActive = replay.initialActiveBytes;
    this.initialReserved = replay.initialReservedBytes;

    const born = new Int32Array(count);
    const died = new Int32Array(count);
    for (let r = 0; r < count; r++) {
      const a = records.allocEvent[r];
      const f = records.freeEvent[r];
      // Allocated before the recording (or the window): live from the first state.
      born[r] = a < 0 ? 0 : a + 1;
      died[r] = f === NEVER_FREED ? states : f + 1;
    }
    this.bornState = born;
    this.diedState = died;

    // Births and deaths per state (CSR), for records that are alive at all.
    const birthCount = new Int32Array(states + 1);
    const deathCount = new Int32Array(states + 1);
    const initial: number[] = [];
    for (let r = 0; r < count; r++) {
      if (born[r] >= died[r]) continue;
      if (born[r] === 0) initial.push(r);
      else birthCount[born[r] + 1]++;
      if (died[r] < states) deathCount[died[r] + 1]++;
    }
    for (let s = 1; s <= states; s++) {
      birthCount[s] += birthCount[s - 1];
      deathCount[s] += deathCount[s - 1];
    }
    this.birthStart = birthCount;
    this.deathStart = deathCount;
    this.birthIds = new Int32Array(birthCount[states]);
    this.deathIds = new Int32Array(deathCount[states]);
    const birthFill = birthCount.slice(0, states);
    const deathFill = deathCount.slice(0, states);
    for (let r = 0; r < count; r++) {
      if (born[r] >= died[r]) continue;
      if (born[r] > 0) this.birthIds[birthFill[born[r]]++] = r;
      if (died[r] < states) this.deathIds[deathFill[died[r]]++] = r;
    }

    // Blocks alive from the start: those never freed at the bottom, then the later-freed lower.
    initial.sort((a, b) => died[b] - died[a] || a - b);

    // One sweep: checkpoints, and a check that the live blocks add up to the active bytes.
    this.cursor = new LiveList(count);
    const list = this.cursor;
    for (const r of initial) list.append(r);
    const cpState = new IntBuffer();
    const cpStart = new IntBuffer();
    const cpIds = new IntBuffer(Math.max(64, initial.length * 2));
    const saveCheckpoint = (s: number) => {
      cpState.push(s);
      cpStart.push(cpIds.length);
      for (let r = list.head; r !== -1; r = list.next[r]) cpIds.push(r);
    };
    saveCheckpoint(0);
    let total = 0;
    for (const r of initial) total += this.size[r];
    let inconsistent = total === this.initialActive ? 0 : 1;
    let since = 0;
    for (let s = 1; s < states; s++) {
      for (let k = this.deathStart[s]; k < this.deathStart[s + 1]; k++) {
        const r = this.deathIds[k];
        list.remove(r);
        total -= this.size[r];
      }
      for (let k = this.birthStart[s]; k < this.birthStart[s + 1]; k++) {
        const r = this.birthIds[k];
        list.append(r);
        total += this.size[r];
      }
      if (total !== this.active[s - 1]) inconsistent++;
      if (++since >= Math.max(CHECKPOINT_SPACING, list.size)) {
        saveCheckpoint(s);
        since = 0;
      }
    }
    cpStart.push(cpIds.length);
    this.checkpointState = cpState.toArray();
    this.checkpointStart = cpStart.toArray();
    this.checkpointIds = cpIds.toArray();
    this.cursorAt = states - 1;
    this.inconsistentStates = inconsistent;

    const blocks = Math.ceil(states / MAX_BLOCK);
    this.blockMaxActive = new Float64Array(blocks);
    this.blockMaxState = new Int32Array(blocks);
    this.blockMaxReserved = new Float64Array(blocks);
    for (let b = 0; b < blocks; b++) {
      const first = b * MAX_BLOCK;
      let best = first;
      let bestBytes = this.activeAt(first);
      let res = this.reservedAt(first);
      for (let st = first + 1; st < Math.min(states, first + MAX_BLOCK); st++) {
        const a = this.active[st - 1];
        if (a > bestBytes) {
          bestBytes = a;
          best = st;
        }
        if (this.reserved[st - 1] > res) res = this.reserved[st - 1];
      }
      this.blockMaxActive[b] = bestBytes;
      this.blockMaxState[b] = best;
      this.blockMaxReserved[b] = res;
    }

    this.bySize = largestFirst(this.size, born, died);
    this.rank = new Int32Array(count).fill(-1);
    this.bornByRank = new Int32Array(this.bySize.length);
    this.diedByRank = new Int32Array(this.bySize.length);
    for (let i = 0; i < this.bySize.length; i++) {
      const r = this.bySize[i];
      this.rank[r] = i;
      this.bornByRank[i] = born[r];
      this.diedByRank[i] = died[r];
    }
    this.mark = new Int32Array(count).fill(-1);
  }

  /** The state `cursor` holds. */
  get cursorState(): number {
    return this.cursorAt;
  }

  /** Births and deaths in the states (a, b], for a <= b: what moving the cursor from a to b would replay. */
  changesBetween(a: number, b: number): number {
    return this.deathStart[b + 1] - this.deathStart[a + 1] + this.birthStart[b + 1] - this.birthStart[a + 1];
  }

  /** The last checkpoint at or before `state`. */
  checkpointAtOrBefore(state: number): number {
    return lowerBound(this.checkpointState, state + 1) - 1;
  }

  /** Moves `cursor` to hold the live blocks of `state`, from the nearest checkpoint when going back. */
  seek(state: number): void {
    if (state === this.cursorAt) return;
    if (state < this.cursorAt) this.restore(this.checkpointAtOrBefore(state));
    this.advanceTo(state);
  }

  /** Moves the cursor forward to `state` (>= its state); true when a block was born or died on the way. */
  advanceTo(state: number): boolean {
    const from = this.cursorAt + 1;
    if (state < from) return false;
    if (this.changesBetween(this.cursorAt, state) === 0) {
      this.cursorAt = state;
      return false;
    }
    // A checkpoint on the way is cheaper to restore than the states before it are to replay.
    const cp = this.checkpointAtOrBefore(state);
    const cpState = this.checkpointState[cp];
    if (cpState > this.cursorAt && this.checkpointStart[cp + 1] - this.checkpointStart[cp] < cpState - this.cursorAt) this.restore(cp);
    this.replay(state);
    return true;
  }

  private restore(cp: number): void {
    const list = this.cursor;
    list.clear();
    for (let k = this.checkpointStart[cp]; k < this.checkpointStart[cp + 1]; k++) list.append(this.checkpointIds[k]);
    this.cursorAt = this.checkpointState[cp];
  }

  /** Applies the deaths and births of states (cursorState, state], in state order, deaths first. */
  private replay(state: number): void {
    const list = this.cursor;
    const from = this.cursorAt + 1;
    const { deathIds, birthIds, diedState, bornState } = this;
    let kd = this.deathStart[from];
    const endD = this.deathStart[state + 1];
    let kb = this.birthStart[from];
    const endB = this.birthStart[state + 1];
    while (kd < endD || kb < endB) {
      if (kb >= endB || (kd < endD && diedState[deathIds[kd]] <= bornState[birthIds[kb]])) list.remove(deathIds[kd++]);
      else list.append(birthIds[kb++]);
    }
    this.cursorAt = state;
  }

  /** Active bytes in state s. */
  activeAt(s: number): number {
    return s === 0 ? this.initialActive : this.active[s - 1];
  }

  /** Reserved bytes in state s. */
  reservedAt(s: number): number {
    return s === 0 ? this.initialReserved : this.reserved[s - 1];
  }

  /** Whether record r is alive in state s. */
  alive(r: number, s: number): boolean {
    return this.bornState[r] <= s && s < this.diedState[r];
  }

  /** Number of checkpoints and the ids they hold (for tests and benchmarks of the memory bound). */
  checkpointStats(): { checkpoints: number; ids: number } {
    return { checkpoints: this.checkpointState.length, ids: this.checkpointIds.length };
  }
}

/**
 * Records alive in some state, largest first, then earlier born, then by id. Tensors repeat their
 * sizes, so records are bucketed by size (few distinct values) rather than sorted one by one.
 */
function largestFirst(size: Float64Array, born: Int32Array, died: Int32Array): Int32Array {
  const buckets = new Map<number, number[]>();
  let alive = 0;
  for (let r = 0; r < size.length; r++) {
    if (born[r] >= died[r]) continue;
    alive++;
    const bucket = buckets.get(size[r]);
    if (bucket) bucket.push(r);
    else buckets.set(size[r], [r]);
  }
  const out = new Int32Array(alive);
  let n = 0;
  for (const key of [...buckets.keys()].sort((a, b) => b - a)) {
    const bucket = buckets.get(key)!;
    let ordered = true;
    for (let i = 1; i < bucket.length && ordered; i++) ordered = born[bucket[i - 1]] <= born[bucket[i]];
    if (!ordered) bucket.sort((a, b) => born[a] - born[b] || a - b);
    for (const r of bucket) out[n++] = r;
  }
  return out;
}
