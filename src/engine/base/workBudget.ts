/**
 * A work budget proportional to the bytes of a file: what keeps a small file that shares one object a
 * million times through its pickle memo (one segment listed 200,000 times, each holding one block 2,000
 * times) from making a reader build 400 million things. The decoder counts every container it builds
 * and every memo reference it reads (never more than one per byte of the file); the model counts every
 * element it visits in segments, blocks, traces, frames lists and annotations, so sharing multiplies
 * only the model's count. A file that spends more than its budget is refused with a
 * {@link WorkLimitError} naming what ran over, before what it describes is built.
 */
import { WorkLimitError } from './errors';
import { formatCount, formatFileSize } from '../text/format';

/**
 * Units a reader spends per thing it builds, near the fewest bytes PyTorch's pickles spend on one
 * (a segment dict has a dozen keys, over 100 bytes; a block or a trace entry 30 to 60 bytes; a memo
 * reference 2 bytes), so a file spends about what it weighs, and one that repeats a shared object
 * pays for every repeat.
 */
export const COST = {
  /** A container the decoder builds, or a memo reference it reads. */
  decoded: 1,
  segment: 64,
  block: 16,
  /** An entry, as it is decoded and again for every reference to its trace. */
  traceEntry: 8,
  /** A trace: its columns and maps, whatever its length. */
  trace: 64,
  annotation: 4,
  /** An item of a frames list (each list object is read once), a sample of measured memory. */
  item: 1,
} as const;

/** Units of work per byte of the file: a file PyTorch writes spends under 2. */
export const WORK_PER_BYTE = 4;
/** Units any file may spend, however small. */
export const WORK_BASE = 100_000;
/** Units no file may spend, however large (a 2 GB file reaches it). */
export const WORK_CAP = 2 ** 33;

export class WorkBudget {
  private spent = 0;
  /** Bytes of the file read so far: the budget grows with them (a gzip'd file's size is known only at its end). */
  bytes = 0;

  /**
   * @param bounded false: no limit (a snapshot built in memory, not read from a file)
   * @param total the whole file's bytes when known beforehand (0: not known), for messages only: what the
   * file's first bytes describe is refused before the rest is read, and the message says so
   */
  constructor(
    private readonly bounded = true,
    private readonly total = 0,
  ) {}

  /** No limit: for what is not read from a file (a trace built by a program, a test). */
  static unlimited(): WorkBudget {
    return new WorkBudget(false);
  }

  /** The units this file may spend now. */
  get limit(): number {
    return this.bounded ? Math.min(WORK_CAP, WORK_BASE + WORK_PER_BYTE * this.bytes) : Infinity;
  }

  /** Units spent so far. */
  get used(): number {
    return this.spent;
  }

  /**
   * Counts `units` more, spent on `what` (words for a message: "segments: 200,000 segments holding
   * 400,000,000 blocks"); throws WorkLimitError when the total passes the limit.
   */
  spend(units: number, what: () => string): void {
    this.spent += units;
    if (this.spent > this.limit) throw this.exceeded(what());
  }

  private exceeded(what: string): WorkLimitError {
    const read = this.total > this.bytes ? `the first ${formatFileSize(this.bytes)} of a file of ${formatFileSize(this.total)}` : `a file of ${formatFileSize(this.bytes)}`;
    return new WorkLimitError(
      `${what}: more than ${read} can describe. VRAM Lens reads at most ${formatCount(this.limit)} ` +
        `containers, memo references, segments, blocks and trace entries from it (${WORK_PER_BYTE} per byte, plus ${formatCount(WORK_BASE)}); ` +
        'this pickle repeats objects through its memo to describe more, which PyTorch never does',
    );
  }
}

