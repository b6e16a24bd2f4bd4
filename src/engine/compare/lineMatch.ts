/**
 * Pairs the lines of two runs inside one pair of matched files: by line number where the source
 * text agrees (or is unknown), then the rest by identical trimmed source text, nearest line first,
 * so a statement that moved when the file was edited keeps its history.
 */
import type { LineNumber } from '../snapshot/model';
import type { LineTextProvider } from '../paths/sourceText';

export type { LineTextProvider } from '../paths/sourceText';

export interface LineRef {
  readonly file: string;
  readonly line: LineNumber;
}

export type MatchKind = 'line' | 'text';

export interface LinePair<T extends LineRef> {
  readonly baseline: T;
  readonly current: T;
  readonly match: MatchKind;
}

export interface LineMatching<T extends LineRef> {
  readonly pairs: LinePair<T>[];
  readonly baselineOnly: T[];
  readonly currentOnly: T[];
}

function textOf(provider: LineTextProvider | undefined, ref: LineRef): string | undefined {
  if (!provider || typeof ref.line !== 'number') return undefined;
  const text = provider(ref.file, ref.line)?.trim();
  return text === undefined || text === '' ? undefined : text;
}

/**
 * Matches `baseline` lines (all of one baseline file) with `current` lines (all of the matched
 * current file). Each line is used at most once.
 */
export function matchLines<T extends LineRef>(
  baseline: readonly T[],
  current: readonly T[],
  baselineText?: LineTextProvider,
  currentText?: LineTextProvider,
): LineMatching<T> {
  const pairs: LinePair<T>[] = [];
  const currentByLine = new Map<string, T>();
  for (const c of current) currentByLine.set(String(c.line), c);
  const usedCurrent = new Set<T>();
  const restBaseline: T[] = [];
  for (const b of baseline) {
    const c = currentByLine.get(String(b.line));
    const tb = c && textOf(baselineText, b);
    const tc = c && textOf(currentText, c);
    if (c && (tb === undefined || tc === undefined || tb === tc)) {
      pairs.push({ baseline: b, current: c, match: 'line' });
      usedCurrent.add(c);
    } else {
      restBaseline.push(b);
    }
  }
  const restCurrent = current.filter((c) => !usedCurrent.has(c));

  // Moved lines: identical text, closest line numbers first.
  const candidates: { b: T; c: T; distance: number }[] = [];
  const restCurrentTexts = restCurrent.map((c) => textOf(currentText, c));
  for (const b of restBaseline) {
    const tb = textOf(baselineText, b);
    if (tb === undefined) continue;
    restCurrent.forEach((c, i) => {
      if (restCurrentTexts[i] === tb) candidates.push({ b, c, distance: Math.abs(Number(b.line) - Number(c.line)) });
    });
  }
  candidates.sort((x, y) => x.distance - y.distance || Number(x.b.line) - Number(y.b.line));
  const movedBaseline = new Set<T>();
  for (const { b, c } of candidates) {
    if (movedBaseline.has(b) || usedCurrent.has(c)) continue;
    movedBaseline.add(b);
    usedCurrent.add(c);
    pairs.push({ baseline: b, current: c, match: 'text' });
  }
  return {
    pairs,
    baselineOnly: restBaseline.filter((b) => !movedBaseline.has(b)),
    currentOnly: current.filter((c) => !usedCurrent.has(c)),
  };
}
