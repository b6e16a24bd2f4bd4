/**
 * "Open a line": the one message every page (timeline, summary, comparison, what-if) sends to open a
 * line that a snapshot recorded (pages build it with `openLine` of webview/shared/openLine.ts; the
 * host checks it with src/guards/openLine.ts). Each page's `<Page>ToHost` union includes it; every host
 * hands it to the one handler, `openLineOfPage` (src/extension/shared/openRecordedLine.ts), which finds
 * the local file of the recorded path (asking where its folder is when it is not found) and clamps the
 * line to the file as it is now.
 */

/** A recorded line: the path as the snapshot names it, and the 1-based line. */
export interface LineAt {
  readonly file: string;
  /** A recorded number beyond 2^53 arrives rounded: the host clamps it to the file anyway. */
  readonly line: number;
}

export interface OpenLine extends LineAt {
  readonly type: 'openLine';
}
