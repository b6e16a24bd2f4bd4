/**
 * Interning of frames and stacks while a snapshot is read. Pickle shares frame dicts and frame
 * lists by reference (memo), so a decoded object that was interned before is recognised by a
 * symbol-keyed mark on the object itself (no map keeps it alive: frame lists die young once the
 * decoder has used them). Content is the fallback for files that do not share (PyTorch 2.0 writes
 * one dict per frame occurrence).
 */
import type { Frame, LineNumber } from './model';
import { NO_STACK } from './model';
import { describe, isDict, lineNumber, text } from './pyFields';
import { COST, WorkBudget } from '../base/workBudget';
import { STACK_HASH_START, stackHashStep } from '../pickle/entryCodes';
import { PY_NON_STRING_KEYS } from '../pickle/values';
import { formatCount } from '../text/format';

type Marked = Record<symbol, number | undefined>;

export class FrameTable {
  /** What reading frames lists counts against: every item of every list read (once per list object). */
  constructor(readonly budget: WorkBudget = WorkBudget.unlimited()) {}

  /** Marks are per table, so one decoded tree can be read by several tables without mix-ups. */
  private readonly frameMark = Symbol('frameId');
  private readonly stackMark = Symbol('stackId');
  readonly frames: Frame[] = [];
  readonly stacks: number[][] = [];
  /**
   * filename -> line -> name -> frame id. Nested maps instead of one concatenated key: a string
   * the pickle shares through its memo is one JS string, whose hash V8 caches and whose equality
   * check is by identity first, so a long file name shared by many frames is never copied or
   * re-read per frame (a concatenated key would copy it every time).
   */
  private readonly frameByContent = new Map<string, Map<LineNumber, Map<string, number>>>();
  private readonly stacksByHash = new Map<number, number[]>();
  /**
   * Per frame id and order of its keys: the first dict interned for it whose keys were exactly
   * `filename`, `line` and `name`, in that order (see {@link internedLike}), at `id * 6 + order`.
   */
  private readonly plainDicts: (object | undefined)[] = [];

  /** Interns one frame given its raw fields; `source` is the decoded dict, used for identity. */
  frame(source: object, filename: string, line: LineNumber, name: string): number {
    const marked = source as Marked;
    const known = marked[this.frameMark];
    if (known !== undefined) return known;
    let byLine = this.frameByContent.get(filename);
    if (byLine === undefined) this.frameByContent.set(filename, (byLine = new Map<LineNumber, Map<string, number>>()));
    let byName = byLine.get(line);
    if (byName === undefined) byLine.set(line, (byName = new Map<string, number>()));
    let id = byName.get(name);
    if (id === undefined) {
      id = this.frames.length;
      this.frames.push({ filename, line, name });
      byName.set(name, id);
    }
    const order = plainFrameOrder(source);
    if (order >= 0) this.plainDicts[6 * id + order] ??= source;
    marked[this.frameMark] = id;
    return id;
  }

  /** Reads a decoded frames list (dicts of filename, line, name) into an interned stack id. */
  stackOf(frames: unknown): number {
    if (!Array.isArray(frames)) return NO_STACK;
    const marked = frames as unknown as Marked;
    const known = marked[this.stackMark];
    if (known !== undefined) return known;
    this.budget.spend(frames.length * COST.item, () => `a frames list of ${formatCount(frames.length)} frames`);
    const ids: number[] = [];
    for (const f of frames) {
      if (isDict(f)) ids.push(this.frameOf(f));
    }
    const id = this.stack(ids);
    marked[this.stackMark] = id;
    return id;
  }

  /**
   * An interned frame dict of exactly the keys `filename`, `line` and `name`, in the order `keyCodes`
   * says (their indices 0, 1, 2 as base-3 digits, first key first), and of these values; undefined when
   * there is none.
   */
  internedLike(keyCodes: number, filename: unknown, line: unknown, name: unknown): object | undefined {
    const order = ORDER_INDEX[keyCodes];
    if (order === undefined) return undefined;
    if (typeof filename !== 'string' || typeof name !== 'string') return undefined;
    if (!(typeof line === 'number' ? line >= 0 && Number.isSafeInteger(line) : typeof line === 'bigint' && line >= 0n)) return undefined;
    const id = this.frameByContent.get(filename)?.get(line as LineNumber)?.get(name);
    return id === undefined ? undefined : this.plainDicts[6 * id + order];
  }

  /** The stack id of a decoded frames list read (and so checked) before by `stackOf`; undefined for anything else. */
  stackIdOf(value: unknown): number | undefined {
    return Array.isArray(value) ? (value as unknown as Marked)[this.stackMark] : undefined;
  }

  /** The id of a decoded frame dict interned (and so checked) before; -1 for anything else. */
  internedFrameId(value: unknown): number {
    if (typeof value !== 'object' || value === null) return -1;
    return (value as Marked)[this.frameMark] ?? -1;
  }

  /** Interns a decoded frame dict (filename, line, name). */
  frameOf(f: Record<string, unknown>): number {
    const frameId = markOf(f, this.frameMark);
    if (frameId !== undefined) return frameId;
    const filename = text(f.filename);
    const line = lineNumber(f.line, () => `a frame in ${describe(filename)}`);
    return this.frame(f, filename, line, text(f.name));
  }

  /** Interns a stack of frame ids (innermost first). */
  stack(frameIds: number[]): number {
    return this.stackOfIds(frameIds, frameIds.length, undefined, frameIds);
  }

  /**
   * Interns the stack of the first `count` ids of `ids` (innermost first), which may be a buffer the
   * caller reuses: a new stack keeps a copy (or `own`, an array the table may keep). `hash`: their
   * `stackHash`, when the caller computed it as it read them.
   */
  stackOfIds(ids: ArrayLike<number>, count: number, hash?: number, own?: number[]): number {
    if (count === 0) return NO_STACK;
    if (hash === undefined) hash = stackHash(ids, count);
    let bucket = this.stacksByHash.get(hash);
    if (bucket === undefined) {
      bucket = [];
      this.stacksByHash.set(hash, bucket);
    }
    for (const candidate of bucket) {
      if (sameIds(this.stacks[candidate], ids, count)) return candidate;
    }
    const id = this.stacks.length;
    this.stacks.push(own ?? copyOf(ids, count));
    bucket.push(id);
    return id;
  }
}

/** FNV-1a over frame ids: what the trace fast path computes as it reads them (`stackHashStep`). */
export function stackHash(ids: ArrayLike<number>, count: number): number {
  let hash = STACK_HASH_START;
  for (let i = 0; i < count; i++) hash = stackHashStep(hash, ids[i]);
  return hash;
}

/**
 * For a dict whose keys are exactly `filename`, `line` and `name`, in some order (PyTorch 2.0 writes
 * filename, name, line; later versions name, filename, line), and no non-string key: which order, 0 to
 * 5; -1 for any other dict.
 */
function plainFrameOrder(source: object): number {
  if (PY_NON_STRING_KEYS in source) return -1;
  const names: string[] = [];
  for (const key in source) {
    if (names.length === 3) return -1;
    names.push(key);
  }
  return keyOrder(names);
}

/** Which order of `filename`, `line` and `name` `names` holds, 0 to 5; -1 for any other keys. */
function keyOrder(names: readonly string[]): number {
  if (names.length !== 3) return -1;
  let order = 0;
  let seen = 0;
  for (const key of names) {
    const k = key === 'filename' ? 0 : key === 'line' ? 1 : key === 'name' ? 2 : -1;
    if (k < 0 || (seen & (1 << k)) !== 0) return -1;
    seen |= 1 << k;
    order = order * 3 + k;
  }
  // Six orders of three keys: their codes in base 3 are 5, 7, 11, 15, 19 and 21.
  return ORDER_INDEX[order];
}

const ORDER_INDEX: Readonly<Record<number, number>> = { 5: 0, 7: 1, 11: 2, 15: 3, 19: 4, 21: 5 };

function markOf(source: object, mark: symbol): number | undefined {
  return (source as Marked)[mark];
}

/** Whether stack `a` holds the first `count` ids of `b`. */
function sameIds(a: readonly number[], b: ArrayLike<number>, count: number): boolean {
  if (a.length !== count) return false;
  for (let i = 0; i < count; i++) if (a[i] !== b[i]) return false;
  return true;
}

function copyOf(ids: ArrayLike<number>, count: number): number[] {
  const out = new Array<number>(count);
  for (let i = 0; i < count; i++) out[i] = ids[i];
  return out;
}
