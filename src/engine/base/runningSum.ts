/** A running sum kept out of the heap: see {@link RunningSum}. */

/**
 * A sum of byte counts taken at every event of a long walk. A double kept in a local variable of such a
 * loop can be boxed (a new heap number) at every step in the code V8 compiles for a loop that is already
 * running (on-stack replacement: these walks run once), as it was in the walks for the peaks and the line
 * figures (22 MB of heap numbers each for 1.3 M events, by the sampling heap profiler): garbage scavenged
 * again and again, and a young generation grown for it. Kept in a one-slot typed array, it is not boxed.
 */
export class RunningSum {
  private readonly slot = new Float64Array(1);
  constructor(initial: number) {
    this.slot[0] = initial;
  }
  get value(): number {
    return this.slot[0];
  }
  /** Adds `delta`; returns the new sum. */
  add(delta: number): number {
    return (this.slot[0] += delta);
  }
}
