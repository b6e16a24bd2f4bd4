/**
 * The details of the blocks the page has asked about (hovered or pinned): asked for once per
 * record, again with the whole stack for "N more frames", and forgotten when the target changes.
 */
import type { BlockDetail, Target } from '../../../src/protocol/timeline';
import type { Requests } from './requests';

export class BlockDetails {
  private readonly known = new Map<number, BlockDetail>();

  constructor(
    private readonly requests: Requests,
    /** Whether the page still shows that target. */
    private readonly showing: (target: Target) => () => boolean,
    private readonly arrived: () => void,
  ) {}

  get(record: number): BlockDetail | undefined {
    return this.known.get(record);
  }

  clear(): void {
    this.known.clear();
  }

  /** Asks for a block's detail unless it is known or asked for already. */
  request(target: Target, record: number): void {
    if (this.known.has(record) || this.requests.isWaiting('block', String(record))) return;
    this.ask(target, record, false);
  }

  /** The "N more frames" control: the block's detail again, with its whole stack. */
  expand(target: Target, record: number): void {
    if (!Number.isInteger(record) || this.requests.isWaiting('block', `${record}:all`)) return;
    this.ask(target, record, true);
  }

  private ask(target: Target, record: number, allFrames: boolean): void {
    this.requests.ask(
      { type: 'block', target, record, ...(allFrames ? { allFrames: true } : {}) },
      {
        current: this.showing(target),
        tag: allFrames ? `${record}:all` : String(record),
        answered: (m) => {
          this.known.set(m.detail.record, m.detail);
          this.arrived();
        },
      },
    );
  }
}
