/**
 * Checkpoints of the self-check replay, so that the state at any event (the segment map the timeline
 * shows as the user scrubs) is replayed from the nearest checkpoint before it rather than from the
 * start. A checkpoint is a fork of the replay (`AllocatorReplay.fork`): the allocator's segments and
 * blocks at that event, O(live and cached blocks). They are laid every `spacing` events as replays
 * pass there, at most `maxCheckpoints` of them (plus the start), so memory stays bounded whatever the
 * trace's length, and a query replays at most `spacing` events once the checkpoints before it exist.
 */
import type { AllocatorReplay } from './traceReplay';

export interface CheckpointOptions {
  /** Most checkpoints kept besides the start (default 64). */
  readonly maxCheckpoints?: number;
  /** Fewest events between two checkpoints (default 4096: forking costs about as much as replaying a few thousand events). */
  readonly minSpacing?: number;
}

export class ReplayCheckpoints {
  /** Events between checkpoints. */
  readonly spacing: number;
  /** Checkpoints by position (the next event to replay): index k holds position k * spacing. */
  private readonly points: (AllocatorReplay | undefined)[] = [];
  /** Events replayed to answer queries (for tests and benchmarks). */
  eventsReplayed = 0;

  /** `start` builds the replay in the state recording began in (called once). */
  constructor(
    private readonly start: () => AllocatorReplay,
    traceLength: number,
    options: CheckpointOptions = {},
  ) {
    const max = Math.max(1, options.maxCheckpoints ?? 64);
    this.spacing = Math.max(1, options.minSpacing ?? 4096, Math.ceil(traceLength / max));
  }

  /** Positions that have a checkpoint, ascending. */
  get positions(): number[] {
    const out: number[] = [];
    this.points.forEach((p, k) => {
      if (p) out.push(k * this.spacing);
    });
    return out;
  }

  /** A replay of its own (the caller may run it on) that has replayed the events before `position`. */
  at(position: number): AllocatorReplay {
    let k = Math.min(Math.floor(Math.max(0, position) / this.spacing), this.points.length - 1);
    while (k >= 0 && !this.points[k]) k--;
    let base = k >= 0 ? this.points[k] : undefined;
    if (!base) {
      base = this.start();
      this.points[0] = base;
      k = 0;
    }
    const replay = base.fork();
    for (let next = (k + 1) * this.spacing; next <= position && !replay.done; next += this.spacing) {
      this.run(replay, next);
      const j = next / this.spacing;
      if (replay.position === next && !this.points[j]) this.points[j] = replay.fork();
    }
    this.run(replay, position);
    return replay;
  }

  private run(replay: AllocatorReplay, to: number): void {
    const from = replay.position;
    replay.runTo(to);
    this.eventsReplayed += replay.position - from;
  }
}
