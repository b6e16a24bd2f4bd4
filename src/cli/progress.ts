/**
 * A progress bar on stderr while a big snapshot is read, only when stderr is a terminal (never in a
 * pipe, a file or CI logs): `reading big.pickle [#######-------] 48%  2.0 of 4.2 GB  (Ctrl-C cancels)`,
 * redrawn in place at most ten times a second and erased when the file is read.
 */
import { plainText } from '../engine/text/plainText';
import { formatFileSize } from '../engine/text/format';

/** Files smaller than this are read too fast for a bar. */
export const PROGRESS_MIN_BYTES = 64 * 1024 * 1024;
const WIDTH = 24;
const INTERVAL_MS = 100;

export interface ProgressStream {
  readonly isTTY?: boolean;
  readonly columns?: number;
  write(text: string): unknown;
}

/** `onProgress` for the file loader, drawing on `stream` when it is a terminal; undefined otherwise. */
export function terminalProgress(stream: ProgressStream, label: string, now: () => number = () => performance.now()): { onProgress: (done: number, total: number) => void; done: () => void } | undefined {
  if (stream.isTTY !== true) return undefined;
  const name = plainText(label);
  let last = -Infinity;
  let drawn = false;
  return {
    onProgress: (done, total) => {
      if (total < PROGRESS_MIN_BYTES) return;
      const t = now();
      if (t - last < INTERVAL_MS && done < total) return;
      last = t;
      const fraction = Math.min(1, done / total);
      const filled = Math.round(fraction * WIDTH);
      const line = `reading ${name} [${'#'.repeat(filled)}${'-'.repeat(WIDTH - filled)}] ${Math.floor(100 * fraction)}%  ${formatFileSize(done)} of ${formatFileSize(total)}  (Ctrl-C cancels)`;
      const width = Math.max(20, (stream.columns ?? 80) - 1);
      stream.write(`\r${line.length > width ? line.slice(0, width) : line}\x1b[K`);
      drawn = true;
    },
    done: () => {
      if (drawn) stream.write('\r\x1b[K');
    },
  };
}
