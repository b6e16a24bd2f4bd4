/**
 * What the trace readers (the steps of `traceEntries.ts` and the quick loop of `quickEntries.ts`) remember
 * about a pickle's memo while they read trace entries: the code of the key string, action name or frame
 * key stored under each memo key, the frame id of each frame dict read back, one memo token per stack; and
 * the stack hash both compute as they read a frames list. What is remembered holds while the memo
 * overwrites nothing (never, in CPython's pickles).
 */
import type { Memo } from './memo';
import { MemoToken } from './memo';

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
