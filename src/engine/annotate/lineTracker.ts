/**
 * Keeps annotations on their lines while the user edits: each annotated line of the file as it was
 * first annotated ("original line") is followed through inserted and deleted lines to where it is
 * now, or marked gone when its text was deleted. Whether a line that survived still reads the same
 * is a separate, text-based question (`isLineStale`).
 */

/** The line no longer exists. */
export const GONE = -1;

/** One text change, as VS Code reports it (0-based lines and characters, before the change). */
export interface LineEdit {
  readonly startLine: number;
  readonly startCharacter: number;
  readonly endLine: number;
  readonly endCharacter: number;
  /** The text that replaced the range. */
  readonly text: string;
  /** Whether everything before the start on the start line is blank (the line's indentation at most). */
  readonly headBlank: boolean;
}

function newlines(text: string): number {
  let n = 0;
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) n++;
  return n;
}

/** Whether the text has a line break and only blanks after the last one (what an Enter with auto-indent leaves). */
function endsOnBlankLine(text: string): boolean {
  const last = text.lastIndexOf('\n');
  return last >= 0 && text.slice(last + 1).trim() === '';
}

export class LineTracker {
  private readonly originals: number[];
  private readonly positions: Int32Array;
  private readonly index = new Map<number, number>();
  private edits = 0;

  /** `originalLines`: the 0-based lines to follow. */
  constructor(originalLines: Iterable<number>) {
    this.originals = [...new Set(originalLines)];
    this.positions = Int32Array.from(this.originals);
    this.originals.forEach((line, i) => this.index.set(line, i));
  }

  /** Where the original line is now, or GONE; an untracked line keeps its number. */
  lineOf(original: number): number {
    const i = this.index.get(original);
    return i === undefined ? original : this.positions[i];
  }

  /** True once any edit moved or removed a tracked line. */
  get moved(): boolean {
    return this.edits > 0;
  }

  /** Applies one change; changes of one event are applied in the order VS Code lists them. */
  apply(edit: LineEdit): void {
    const a = edit.startLine;
    const b = edit.endLine;
    const k = newlines(edit.text);
    const shift = k - (b - a);
    const insertion = a === b && edit.startCharacter === edit.endCharacter;
    // Where the content of line `b` (its part after the range) lands, when it keeps its identity.
    let bLandsAt: number | undefined;
    if (insertion) {
      // Text inserted in front of a line's content (Enter before a statement, lines pasted above) pushes it down.
      if (edit.headBlank && endsOnBlankLine(edit.text)) bLandsAt = a + k;
    } else if (edit.startCharacter === 0 && edit.endCharacter === 0 && (edit.text === '' || edit.text.endsWith('\n'))) {
      // Whole lines a..b-1 replaced: line b itself is untouched.
      bLandsAt = a + k;
    }
    let changed = false;
    for (let i = 0; i < this.positions.length; i++) {
      const p = this.positions[i];
      if (p === GONE || p < a) continue;
      let next: number;
      if (p > b) next = p + shift;
      else if (bLandsAt !== undefined) next = p === b ? bLandsAt : GONE;
      else next = p === a ? a : GONE;
      if (next !== p) {
        this.positions[i] = next;
        changed = true;
      }
    }
    if (changed) this.edits++;
  }
}

/** A surviving line is stale when its text changed other than in indentation or trailing space. */
export function isLineStale(originalText: string, currentText: string): boolean {
  return originalText.trim() !== currentText.trim();
}
