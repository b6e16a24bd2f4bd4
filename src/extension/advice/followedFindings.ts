/**
 * The advisor's findings about one document, followed while the user edits it (free of `vscode`, so
 * unit tests drive it with plain text). Each finding's line, and its related lines in the same file,
 * move with inserted and deleted lines (`LineTracker`); after each edit every finding is placed:
 * - `resolved`: the pattern it rests on is gone from the source (`stillHolds`: the quick fix was
 *   applied, or the user wrote the same by hand): it is taken off the line;
 * - `stale`: a line it is about now reads differently from the code the advisor read: its figures
 *   describe other code, so it is shown as stale, without a quick fix, until the run is recorded again;
 * - `current`: nothing it rests on changed (it may have moved);
 * - `gone`: its line was deleted.
 */
import type { Finding } from '../../engine/advice/finding';
import { stillHolds } from '../../engine/advice/recheck';
import type { LineEdit } from '../../engine/annotate/lineTracker';
import { GONE, LineTracker, isLineStale } from '../../engine/annotate/lineTracker';
import { PythonSource } from '../../engine/python/pythonSource';

export type Placement =
  | { readonly state: 'current' | 'stale'; readonly finding: Finding; /** 0-based line now. */ readonly line: number }
  | { readonly state: 'resolved' | 'gone'; readonly finding: Finding };

/** The document as it is now. */
export interface CurrentText {
  readonly lineCount: number;
  lineAt(line: number): string;
  getText(): string;
}

export class FollowedDocument {
  private readonly tracker: LineTracker;
  private edited = false;

  /**
   * `findings`: those about this document (their `file` is its recorded path). `expected(line)`: the
   * text of a 1-based line as the advisor read it (the sources captured at load), when known.
   */
  constructor(
    readonly findings: readonly Finding[],
    private readonly expected: (line: number) => string | undefined,
  ) {
    const lines: number[] = [];
    for (const f of findings) {
      if (f.line !== undefined) lines.push(f.line - 1);
      for (const r of f.related ?? []) if (r.file === f.file) lines.push(r.line - 1);
    }
    this.tracker = new LineTracker(lines);
  }

  apply(edit: LineEdit): void {
    this.edited = true;
    this.tracker.apply(edit);
  }

  /**
   * Where each finding is now, and whether it still holds. `otherFile` reads the files its related
   * lines are in as they are now; `othersEdited`: one of them was edited (its fix may be there, as a
   * growing-memory finding's accumulation is).
   */
  place(current: CurrentText, others: { readonly otherFile?: (file: string) => PythonSource | undefined; readonly othersEdited?: boolean } = {}): Placement[] {
    let parsed: PythonSource | undefined;
    const source = () => (parsed ??= PythonSource.parse(current.getText().replace(/\r\n/g, '\n')));
    const changed = (original: number, now: number) => {
      const before = this.expected(original + 1);
      return before !== undefined && now < current.lineCount && isLineStale(before, current.lineAt(now));
    };
    return this.findings.map((finding): Placement => {
      if (finding.line === undefined || finding.file === undefined) return { state: 'gone', finding };
      const line = this.tracker.lineOf(finding.line - 1);
      if (line === GONE || line >= current.lineCount) return { state: 'gone', finding };
      const related = (finding.related ?? []).map((r) => (r.file === finding.file ? { ...r, line: this.tracker.lineOf(r.line - 1) + 1 } : r)).filter((r) => r.line > 0);
      const moved: Finding = { ...finding, line: line + 1, related };
      const file = finding.file;
      // Any edit may have removed the pattern (a growing-memory fix edits a line below the loop line).
      if (this.edited || others.othersEdited === true || changed(finding.line - 1, line)) {
        if (!stillHolds(moved, (f) => (f === file ? source() : others.otherFile?.(f)))) return { state: 'resolved', finding: moved };
      }
      const stale = changed(finding.line - 1, line) || (finding.related ?? []).some((r) => r.file === file && changed(r.line - 1, this.tracker.lineOf(r.line - 1)));
      return { state: stale ? 'stale' : 'current', finding: moved, line };
    });
  }
}
