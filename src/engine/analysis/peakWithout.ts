/**
 * The device's peak if some memory had not been held for a while: the replay's active bytes after
 * every event, less the bytes of the given spans (`size` bytes not held from event `start` up to,
 * not including, event `end`), and the highest of what remains (the initial state counts as before).
 * This is how an advice rule says what a change would save at the peak: by replaying the trace with
 * the lifetimes the change would shorten, not by counting blocks.
 *
 * Spans are added one by one (in any order); memory grows with the spans, never with the events.
 */
import { FloatBuffer, IntBuffer } from '../base/growableArrays';
import type { DeviceReplay } from './replay';

export class HeldSpans {
  private readonly starts = new IntBuffer();
  private readonly ends = new IntBuffer();
  private readonly sizes = new FloatBuffer();

  /** `size` bytes would not be held after events `start` .. `end - 1` (`end` may be the trace's length). */
  add(start: number, end: number, size: number): void {
    if (end <= start || size <= 0) return;
    this.starts.push(start);
    this.ends.push(end);
    this.sizes.push(size);
  }

  get count(): number {
    return this.starts.length;
  }

  /** The highest active bytes of `replay` with these spans taken out. */
  peakWithout(replay: Pick<DeviceReplay, 'active' | 'events' | 'initialActiveBytes'>): number {
    const n = this.starts.length;
    const starts = this.starts.toArray();
    const ends = this.ends.toArray();
    const sizes = this.sizes.toArray();
    const byStart = Int32Array.from({ length: n }, (_, i) => i).sort((a, b) => starts[a] - starts[b]);
    const byEnd = Int32Array.from({ length: n }, (_, i) => i).sort((a, b) => ends[a] - ends[b]);
    let peak = replay.initialActiveBytes;
    let taken = 0;
    let s = 0;
    let e = 0;
    for (let event = 0; event < replay.events; event++) {
      while (s < n && starts[byStart[s]] <= event) taken += sizes[byStart[s++]];
      while (e < n && ends[byEnd[e]] <= event) taken -= sizes[byEnd[e++]];
      const left = replay.active[event] - taken;
      if (left > peak) peak = left;
    }
    return peak;
  }
}
