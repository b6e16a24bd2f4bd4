/**
 * `--notebook PATH` (repeatable): the notebooks whose cells a snapshot's cell frames are put on. Each
 * recorded cell name is matched once (`NotebookCellIndex`); commands then name cell lines
 * ("train.ipynb, cell 7, line 3"), write them in JSON as notebook, cell and line, and read the
 * advisor's source text from the code that ran.
 */
import type { NotebookCellIndex } from '../engine/notebook/cellIndex';
import { NotebookCellIndex as CellIndex } from '../engine/notebook/cellIndex';
import { cellLines } from '../engine/notebook/cellLines';
import type { Finding } from '../engine/advice/finding';
import type { CellPlaces } from '../engine/paths/places';
import { cellPlace, placeLine } from '../engine/paths/places';
import type { LineTextProvider } from '../engine/paths/sourceText';
import { NotebookFileError, readCellTexts, readNotebooks } from '../runtime/input/notebookFiles';
import type { ParsedArgs } from './args';
import type { CliIO } from './io';
import { InputError } from './io';

export const NOTEBOOK_OPTION = 'notebook';
export const notebookUsage = '[--notebook PATH]...';

/** The cells a snapshot's recorded files are, and the code that ran in them. */
export class CellSources {
  private readonly ran = new Map<string, string[]>();
  readonly places: CellPlaces;

  constructor(
    readonly index: NotebookCellIndex,
    recordedFiles: Iterable<string>,
  ) {
    const places: Record<string, ReturnType<typeof cellPlace>> = Object.create(null) as Record<string, ReturnType<typeof cellPlace>>;
    for (const file of new Set(recordedFiles)) {
      const target = index.resolve(file);
      if (!target) continue;
      places[file] = cellPlace(target);
      // Recorded line k is line k + lineOffset of the text that ran.
      this.ran.set(file, cellLines(target.ranSource).slice(target.lineOffset));
    }
    this.places = places;
  }

  /** `base` for files, the text that ran for cells. */
  lineText(base: LineTextProvider): LineTextProvider {
    return (file, line) => {
      const lines = this.ran.get(file);
      return lines ? lines[line - 1] : base(file, line);
    };
  }

  get cellCount(): number {
    return this.ran.size;
  }
}

/**
 * The notebooks `--notebook` names, with the cell texts written beside `snapshotFile`, matched to
 * `recordedFiles`; undefined without `--notebook`. Folders that hold unreadable notebooks are said on stderr.
 */
export function cellSourcesOf(args: ParsedArgs, snapshotFile: string, recordedFiles: Iterable<string>, io: CliIO): CellSources | undefined {
  const given = args.repeated.get(NOTEBOOK_OPTION) ?? [];
  if (given.length === 0) return undefined;
  let search;
  try {
    search = readNotebooks(given);
  } catch (e) {
    if (e instanceof NotebookFileError) throw new InputError(e.message);
    throw e;
  }
  for (const why of search.skipped) io.err(`vram-lens: skipped ${why}\n`);
  if (search.notebooks.length === 0) io.err(`vram-lens: no notebook found in ${given.join(', ')}\n`);
  const ran = readCellTexts(snapshotFile).map((c) => c.source);
  return new CellSources(new CellIndex(search.notebooks, ran), recordedFiles);
}

/** A finding as `advise --json` writes it: its lines, related lines and quick-fix edits placed on their cells. */
export function placedFinding(f: Finding, places: CellPlaces | undefined): unknown {
  if (!places) return f;
  const at = f.file !== undefined && f.line !== undefined ? placeLine(f.file, f.line, places) : {};
  return {
    ...f,
    ...at,
    ...(f.related ? { related: f.related.map((r) => ({ ...r, ...placeLine(r.file, r.line, places) })) } : {}),
    ...(f.quickFixes
      ? {
          quickFixes: f.quickFixes.map((q) => {
            const start = placeLine(q.file, q.line, places);
            return { ...q, ...start, endLine: q.endLine + (start.line - q.line) };
          }),
        }
      : {}),
  };
}
