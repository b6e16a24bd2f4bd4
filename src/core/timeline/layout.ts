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
 * offsets are a walk of the list. Building is O(n log n) for the sort by size, the rest O(n).
 */
import type { DeviceReplay } from '../analysis/replay';
import { BEFORE_TRACE, NEVER_FREED } from '../analysis/replay';
import { IntBuffer, lowerBound } from './buffers';

/** Fewest states between two checkpoints (more when many blocks are alive, to bound memory). */
const CHECKPOINT_SPACING = 4096;

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
  /** Active and reserved bytes per state. */
  readonly activeAt: Float64Array;
  readonly reservedAt: Float64Array;
  /** Records that are alive in some state, largest first (ties: earlier born first). */
  readonly bySize: Int32Array;
  /** States where the sum of the live blocks differs from the replay's active bytes (0 for consistent traces). */
  readonly inconsistentStates: number;
  /** Segment releases (segment_free / segment_unmap): the state right after each, and its bytes. */
  readonly releaseState: Int32Array;
  readonly releaseBytes: Float64Array;

  private readonly birthStart: Int32Array;
  private readonly birthIds: Int32Array;
  private readonly deathStart: Int32Array;
  private readonly deathIds: Int32Array;
  private readonly checkpointState: Int32Array;
  private readonly checkpointStart: Int32Array;
  private readonly checkpointIds: Int32Array;

  /** The list a query walks, and the state it holds. */
  readonly cursor: LiveList;
  private cursorState = -1;
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

    this.activeAt = new Float64Array(states);
    this.reservedAt = new Float64Array(states);
    this.activeAt[0] = replay.initialActiveBytes;
    this.reservedAt[0] = replay.initialReservedBytes;
    this.activeAt.set(replay.active, 1);
    this.reservedAt.set(replay.reserved, 1);

    const born = new Int32Array(count);
    const died = new Int32Array(count);
    for (let r = 0; r < count; r++) {
      const a = records.allocEvent[r];
      const f = records.freeEvent[r];
      born[r] = a === BEFORE_TRACE ? 0 : a + 1;
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
    let inconsistent = total === this.activeAt[0] ? 0 : 1;
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
      if (total !== this.activeAt[s]) inconsistent++;
      if (++since >= Math.max(CHECKPOINT_SPACING, list.size)) {
        saveCheckpoint(s);
        since = 0;
      }
    }
    cpStart.push(cpIds.length);
    this.checkpointState = cpState.toArray();
    this.checkpointStart = cpStart.toArray();
    this.checkpointIds = cpIds.toArray();
    this.cursorState = states - 1;
    this.inconsistentStates = inconsistent;

    const alive: number[] = [];
    for (let r = 0; r < count; r++) if (born[r] < died[r]) alive.push(r);
    const size = this.size;
    alive.sort((a, b) => size[b] - size[a] || born[a] - born[b] || a - b);
    this.bySize = Int32Array.from(alive);
    this.mark = new Int32Array(count).fill(-1);
  }

  /**
   * Moves `cursor` to hold the live blocks of `state`. Returns true when the list changed.
   * Forward moves replay births and deaths; other moves restore the nearest checkpoint first.
   */
  seek(state: number): boolean {
    if (state === this.cursorState) return false;
    const cp = lowerBound(this.checkpointState, state + 1) - 1;
    const cpState = this.checkpointState[cp];
    if (state < this.cursorState || cpState > this.cursorState) {
      const list = this.cursor;
      list.clear();
      for (let k = this.checkpointStart[cp]; k < this.checkpointStart[cp + 1]; k++) list.append(this.checkpointIds[k]);
      this.cursorState = cpState;
    }
    this.advance(state);
    return true;
  }

  /** Replays states (cursorState, state] onto the cursor; true when a block was born or died. */
  private advance(state: number): boolean {
    const list = this.cursor;
    const from = this.cursorState + 1;
    const changed =
      this.deathStart[state + 1] - this.deathStart[from] + this.birthStart[state + 1] - this.birthStart[from] > 0;
    for (let s = from; s <= state; s++) {
      for (let k = this.deathStart[s]; k < this.deathStart[s + 1]; k++) list.remove(this.deathIds[k]);
      for (let k = this.birthStart[s]; k < this.birthStart[s + 1]; k++) list.append(this.birthIds[k]);
    }
    this.cursorState = state;
    return changed;
  }

  /** Moves the cursor forward to `state` (>= its state); true when the live blocks changed. */
  advanceTo(state: number): boolean {
    if (state <= this.cursorState) return false;
    return this.advance(state);
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
