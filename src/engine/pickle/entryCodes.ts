/**
 * What the trace readers (the steps of `traceEntries.ts` and the quick loop of `quickEntries.ts`) remember
 * about a pickle's memo while they read trace entries: the code of the key string, action name or frame
 * key stored under each memo key, the frame id of each frame dict read back, one memo token per stack; and
 * the stack hash both compute as they read a frames list. What is remembered holds while the memo
 * overwrites nothing (never, in CPython's pickles).
 */
import type { Memo } from './memo';
import { MemoToken } from './memo';
import type { PyDict } from './values';

/** The stack hash of frame ids (FNV-1a over the ids): the first step, then one step per id. */
export const STACK_HASH_START = 0x811c9dc5;
export function stackHashStep(hash: number, id: number): number {
  return Math.imul(hash ^ id, 0x01000193);
}

/** The numeric fields of an entry, by their index in `EntryFields.numbers`. */
export const enum EntryNumber {
  Addr = 0,
  Size = 1,
  TimeUs = 2,
  Stream = 3,
  DeviceFree = 4,
}

/** The keys of a trace entry, by code (the numeric ones first, at their `EntryNumber`). */
export const enum Key {
  Addr = EntryNumber.Addr,
  Size = EntryNumber.Size,
  TimeUs = EntryNumber.TimeUs,
  Stream = EntryNumber.Stream,
  DeviceFree = EntryNumber.DeviceFree,
  Action,
  UserMetadata,
  CompileContext,
  Frames,
  Other,
}

export const ENTRY_KEYS: ReadonlyMap<string, Key> = new Map([
  ['action', Key.Action],
  ['addr', Key.Addr],
  ['size', Key.Size],
  ['time_us', Key.TimeUs],
  ['stream', Key.Stream],
  ['device_free', Key.DeviceFree],
  ['user_metadata', Key.UserMetadata],
  ['compile_context', Key.CompileContext],
  ['frames', Key.Frames],
]);

/** A `user_metadata` the model keeps nothing of: PyTorch writes '' when an entry has none. */
export function isBlankMetadata(value: unknown): boolean {
  return value === '';
}

/** A `compile_context` the model keeps nothing of: PyTorch writes 'N/A' (or '') when an entry has none. */
export function isBlankContext(value: unknown): boolean {
  return value === '' || value === 'N/A';
}

/** Memo keys below this have their key strings' codes cached (keys are memoized early in a file). */
export const KEY_CACHE = 1 << 16;
/** Memo keys per page of the frame id cache (`MemoCodes.framePages`). */
export const FRAME_PAGE_BITS = 12;
export const FRAME_PAGE = 1 << FRAME_PAGE_BITS;
/** A code not known yet. */
export const UNKNOWN = -2;

/** Per memo key: the codes of what is stored there, as the readers have met it. */
export class MemoCodes {
  /** The code of the key string (a `Key`; -1: not a string) or action name (-1: not one PyTorch writes). */
  readonly keyCodes = new Int8Array(KEY_CACHE).fill(UNKNOWN);
  readonly actionCodes = new Int8Array(KEY_CACHE).fill(UNKNOWN);
  /** The code of a frame dict's key: 'filename' 0, 'line' 1, 'name' 2, anything else -1. */
  readonly frameKeyCodes = new Int8Array(KEY_CACHE).fill(UNKNOWN);
  /** The id of the interned frame dict stored there (-1: not known), in pages of FRAME_PAGE keys made where frame dicts are read back. */
  framePages: (Int32Array | undefined)[] = [];
  /** The interned frame dict that new frame dicts of these memo keys stand for (see `FrameDictCache`). */
  frameDicts = new FrameDictCache();
  private overwrites = 0;

  /** True while what is remembered holds for `memo` (it has overwritten no key since). */
  holds(memo: Memo): boolean {
    return memo.overwrites === this.overwrites;
  }

  /** Forgets everything when `memo` has overwritten a key since. */
  sync(memo: Memo): void {
    if (this.holds(memo)) return;
    this.keyCodes.fill(UNKNOWN);
    this.actionCodes.fill(UNKNOWN);
    this.frameKeyCodes.fill(UNKNOWN);
    this.framePages = [];
    this.frameDicts = new FrameDictCache();
    this.overwrites = memo.overwrites;
  }

  /** Remembers that memo key `k` holds the interned frame `id`. */
  cacheFrameId(k: number, id: number): void {
    const index = k >>> FRAME_PAGE_BITS;
    let page = this.framePages[index];
    if (page === undefined) {
      while (this.framePages.length <= index) this.framePages.push(undefined);
      page = new Int32Array(FRAME_PAGE).fill(-1);
      this.framePages[index] = page;
    }
    page[k & (FRAME_PAGE - 1)] = id;
  }
}

/** Slots of the first `FrameDictCache` table, and the most it grows to (2^20 slots: 20 MiB). */
const FRAME_DICT_SLOTS = 1 << 10;
const FRAME_DICT_MAX_SLOTS = 1 << 20;

/**
 * For new frame dicts written one per occurrence (PyTorch 2.0): which interned frame dict one stands for,
 * by the memo keys of its `filename` and `name` strings, its line and the order of its keys (a `Key`-like
 * base-3 code), so that a dict met again costs one probe of typed arrays instead of two memo reads and
 * three map lookups by string. Only what the sink matched is stored (a frame not interned yet may be
 * later); it holds while the memo overwrites nothing, as everything in `MemoCodes` does. An open-addressing
 * table (linear probing, at most half full) that stops taking entries at FRAME_DICT_MAX_SLOTS.
 */
export class FrameDictCache {
  private mask = FRAME_DICT_SLOTS - 1;
  private count = 0;
  /** Per slot: the filename's memo key (-1: empty), the name's, the line, the key order, and the dict. */
  private filenames = new Int32Array(FRAME_DICT_SLOTS).fill(-1);
  private names = new Int32Array(FRAME_DICT_SLOTS);
  private lines = new Int32Array(FRAME_DICT_SLOTS);
  private orders = new Uint8Array(FRAME_DICT_SLOTS);
  private dicts: (PyDict | undefined)[] = new Array<PyDict | undefined>(FRAME_DICT_SLOTS).fill(undefined);

  /** The dict stored for these keys, or undefined. Memo keys are those of LONG_BINGET (below 2^32), lines below 2^31. */
  get(filenameKey: number, line: number, nameKey: number, order: number): PyDict | undefined {
    if (filenameKey > 0x7fff_ffff || nameKey > 0x7fff_ffff) return undefined;
    const filenames = this.filenames;
    for (let i = slotOf(filenameKey, line, nameKey, order) & this.mask; ; i = (i + 1) & this.mask) {
      const f = filenames[i];
      if (f === -1) return undefined;
      if (f === filenameKey && this.names[i] === nameKey && this.lines[i] === line && this.orders[i] === order) return this.dicts[i];
    }
  }

  /** Stores `dict` for these keys (not already stored); nothing once the table is full. */
  set(filenameKey: number, line: number, nameKey: number, order: number, dict: PyDict): void {
    if (filenameKey > 0x7fff_ffff || nameKey > 0x7fff_ffff || line > 0x7fff_ffff) return;
    if (2 * (this.count + 1) > this.mask + 1) {
      if (this.mask + 1 >= FRAME_DICT_MAX_SLOTS) return;
      this.grow();
    }
    this.place(filenameKey, line, nameKey, order, dict);
    this.count++;
  }

  private place(filenameKey: number, line: number, nameKey: number, order: number, dict: PyDict): void {
    let i = slotOf(filenameKey, line, nameKey, order) & this.mask;
    while (this.filenames[i] !== -1) i = (i + 1) & this.mask;
    this.filenames[i] = filenameKey;
    this.names[i] = nameKey;
    this.lines[i] = line;
    this.orders[i] = order;
    this.dicts[i] = dict;
  }

  private grow(): void {
    const { filenames, names, lines, orders, dicts } = this;
    const slots = 2 * filenames.length;
    this.mask = slots - 1;
    this.filenames = new Int32Array(slots).fill(-1);
    this.names = new Int32Array(slots);
    this.lines = new Int32Array(slots);
    this.orders = new Uint8Array(slots);
    this.dicts = new Array<PyDict | undefined>(slots).fill(undefined);
    for (let i = 0; i < filenames.length; i++) if (filenames[i] !== -1) this.place(filenames[i], lines[i], names[i], orders[i], dicts[i]!);
  }
}

/** A slot hash of a frame dict's memo keys, line and key order (multiplicative mixing). */
function slotOf(filenameKey: number, line: number, nameKey: number, order: number): number {
  let h = Math.imul(filenameKey, 0x9e3779b1) ^ Math.imul(nameKey + 0x7f4a7c15, 0x85ebca6b);
  h = Math.imul(h ^ line, 0xc2b2ae35) ^ order;
  return h ^ (h >>> 15);
}

/** The memo token of each stack id: what the memo holds for a frames list read as a stack. */
export class StackTokens {
  private readonly tokens: MemoToken[] = [];

  token(id: number): MemoToken {
    // Stack ids are small non-negative integers (or -1 for none, -2 for not read); one token each.
    const index = id + 2;
    let token = this.tokens[index];
    if (token === undefined) {
      while (this.tokens.length < index) this.tokens.push(undefined as unknown as MemoToken);
      token = new MemoToken('stack', id);
      this.tokens[index] = token;
    }
    return token;
  }
}
