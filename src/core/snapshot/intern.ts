/**
 * Interning of frames and stacks while a snapshot is read. Pickle shares frame dicts and frame
 * lists by reference (memo), so identity is checked first; content is the fallback for files that
 * do not share (PyTorch 2.0 writes one dict per frame occurrence).
 */
import type { Frame, LineNumber } from './model';
import { NO_STACK } from './model';

export class FrameTable {
  readonly frames: Frame[] = [];
  readonly stacks: number[][] = [];
  private readonly frameByObject = new Map<object, number>();
  private readonly frameByContent = new Map<string, number>();
  private readonly stackByObject = new Map<object, number>();
  private readonly stacksByHash = new Map<number, number[]>();

  /** Interns one frame given its raw fields; `source` is the decoded dict, used for identity. */
  frame(source: object, filename: string, line: LineNumber, name: string): number {
    const known = this.frameByObject.get(source);
    if (known !== undefined) return known;
    const key = `${filename}\u0000${String(line)}\u0000${name}`;
    let id = this.frameByContent.get(key);
    if (id === undefined) {
      id = this.frames.length;
      this.frames.push({ filename, line, name });
      this.frameByContent.set(key, id);
    }
    this.frameByObject.set(source, id);
    return id;
  }

  /** Returns the stack id already known for this decoded list, if any. */
  knownStack(source: object): number | undefined {
    return this.stackByObject.get(source);
  }

  /** Interns a stack of frame ids (innermost first) read from the decoded list `source`. */
  stack(source: object, frameIds: number[]): number {
    if (frameIds.length === 0) {
      this.stackByObject.set(source, NO_STACK);
      return NO_STACK;
    }
    let hash = 0x811c9dc5;
    for (const id of frameIds) hash = Math.imul(hash ^ id, 0x01000193);
    let bucket = this.stacksByHash.get(hash);
    if (bucket === undefined) {
      bucket = [];
      this.stacksByHash.set(hash, bucket);
    }
    for (const candidate of bucket) {
      if (sameIds(this.stacks[candidate], frameIds)) {
        this.stackByObject.set(source, candidate);
        return candidate;
      }
    }
    const id = this.stacks.length;
    this.stacks.push(frameIds);
    bucket.push(id);
    this.stackByObject.set(source, id);
    return id;
  }
}

function sameIds(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
