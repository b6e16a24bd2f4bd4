/**
 * Which source file of one run is which file of the other. Two runs of one program often record
 * different absolute paths (another machine, another checkout, Windows vs Linux), so files are
 * matched by their path with `\` read as `/` and case ignored, else by the longest common tail of
 * path components (at least the file name), when that pairing is the best for both files.
 */
import { commonSuffixLength, pathSegments } from '../paths/recordedPath';

/**
 * Pairs baseline files with current files. Returns a map baseline file -> current file; files
 * without a counterpart (or with two equally good ones) are absent.
 */
export function matchFiles(baseline: Iterable<string>, current: Iterable<string>): Map<string, string> {
  const a = [...new Set(baseline)].map((file) => ({ file, parts: pathSegments(file) }));
  const b = [...new Set(current)].map((file) => ({ file, parts: pathSegments(file) }));
  const score = a.map((fa) => b.map((fb) => commonSuffixLength(fa.parts, fb.parts, true)));
  const bestOf = (values: readonly number[]): number => {
    let best = -1;
    let count = 0;
    values.forEach((v, i) => {
      if (v <= 0) return;
      if (best < 0 || v > values[best]) {
        best = i;
        count = 1;
      } else if (v === values[best]) {
        count++;
      }
    });
    return count === 1 ? best : -1;
  };
  const result = new Map<string, string>();
  a.forEach((fa, i) => {
    const j = bestOf(score[i]);
    if (j < 0) return;
    // Mutual best: the current file must not match another baseline file as well or better.
    if (bestOf(a.map((_, k) => score[k][j])) !== i) return;
    result.set(fa.file, b[j].file);
  });
  return result;
}
