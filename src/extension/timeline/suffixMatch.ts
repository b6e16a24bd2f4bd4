/**
 * Matching a path recorded in a snapshot (often from another machine) with a local one by their
 * common trailing path segments. Free of `vscode` so it is unit-tested directly.
 */

function segments(path: string): string[] {
  return path.replace(/\\/g, '/').split('/').filter((s) => s !== '' && s !== '.');
}

/** How many trailing path segments two paths share (`/a/b/c.py` and `x/b/c.py`: 2). */
export function commonSuffixSegments(a: string, b: string): number {
  const sa = segments(a);
  const sb = segments(b);
  let n = 0;
  while (n < sa.length && n < sb.length && sa[sa.length - 1 - n] === sb[sb.length - 1 - n]) n++;
  return n;
}

/**
 * The candidate sharing the longest trailing segments with `target` (at least the file name),
 * the shortest candidate on ties; undefined when none shares the file name.
 */
export function bestSuffixMatch(target: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestScore = 0;
  for (const c of candidates) {
    const score = commonSuffixSegments(target, c);
    if (score > bestScore || (score === bestScore && score > 0 && best !== undefined && c.length < best.length)) {
      best = c;
      bestScore = score;
    }
  }
  return best;
}
