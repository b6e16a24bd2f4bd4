/**
 * Which notebook cell a recorded cell name is: the code cells of the notebooks given (in the order
 * given: open notebooks first) hashed the way ipykernel names them, the texts each cell ran with
 * when something watched it run, and texts known to have run under a name (written beside a snapshot
 * by our kernel extension) matched to the cell that still looks most like them. `<ipython-input-N-…>`
 * names are matched by execution count. Pure.
 */
import { parseCellName } from './cellNames';
import { cellLines, ipythonLineOffset } from './cellLines';
import type { NotebookCellSource } from './ipynb';
import { ipykernelCellHash } from './murmur2';

export interface NotebookSource {
  /** The notebook as the caller names it (a local path, or a URI's string). */
  readonly path: string;
  readonly cells: readonly NotebookCellSource[];
}

/** How a recorded cell name was matched to a cell. */
export type CellMatchKind =
  /** The cell's text now hashes to the name. */
  | 'text'
  /** A text the cell ran with earlier (its execution was watched) hashes to the name. */
  | 'ran'
  /** A text known to have run under the name (no cell has it now) looks most like this cell. */
  | 'similar'
  /** `<ipython-input-N-…>`: the cell whose saved execution count is N. */
  | 'execution-count';

/** A notebook cell that a recorded file name stands for. */
export interface CellTarget {
  readonly notebook: string;
  /** 0-based index among all the notebook's cells. */
  readonly cell: number;
  /** Cell line = recorded line + lineOffset (the blank lines IPython dropped from the top of the text that ran). */
  readonly lineOffset: number;
  /** The text that ran under the name, when known (else the cell's text now). */
  readonly ranSource: string;
  /** The cell's text now differs from the text that ran: its lines may have moved. */
  readonly changed: boolean;
  readonly match: CellMatchKind;
}

interface Candidate {
  readonly notebook: string;
  readonly cell: NotebookCellSource;
  readonly ran: string;
  readonly match: CellMatchKind;
}

/** The texts a frontend may have sent for one cell text: as it is, with `\n` line ends, with `\r\n`. */
function sentVariants(source: string): string[] {
  const lf = source.replace(/\r\n/g, '\n');
  return [...new Set([source, lf, lf.replace(/\n/g, '\r\n')])];
}

/** Non-blank lines, trimmed, with their counts. */
function lineBag(source: string): Map<string, number> {
  const bag = new Map<string, number>();
  for (const line of cellLines(source)) {
    const t = line.trim();
    if (t !== '') bag.set(t, (bag.get(t) ?? 0) + 1);
  }
  return bag;
}

/** How many of `ran`'s non-blank lines `cell` still has (as a multiset), out of how many. */
function overlap(ran: Map<string, number>, cell: Map<string, number>): { shared: number; total: number } {
  let shared = 0;
  let total = 0;
  for (const [line, n] of ran) {
    total += n;
    shared += Math.min(n, cell.get(line) ?? 0);
  }
  return { shared, total };
}

export class NotebookCellIndex {
  private readonly byHash = new Map<number, Candidate[]>();
  private readonly byCount = new Map<number, Candidate[]>();
  private readonly knownTexts = new Map<number, string>();
  private readonly codeCells: { notebook: string; cell: NotebookCellSource; bag?: Map<string, number> }[] = [];

  /**
   * `ranTexts`: texts known to have run in a kernel (whatever cell they were in), such as the cell
   * texts our kernel extension writes beside a snapshot.
   */
  constructor(notebooks: readonly NotebookSource[], ranTexts: Iterable<string> = []) {
    for (const notebook of notebooks) {
      for (const cell of notebook.cells) {
        if (cell.kind !== 'code') continue;
        this.codeCells.push({ notebook: notebook.path, cell });
        for (const text of sentVariants(cell.source)) this.add(this.byHash, ipykernelCellHash(text), { notebook: notebook.path, cell, ran: text, match: 'text' });
        for (const ran of cell.ranSources ?? []) {
          for (const text of sentVariants(ran)) this.add(this.byHash, ipykernelCellHash(text), { notebook: notebook.path, cell, ran: text, match: 'ran' });
        }
        if (cell.executionCount !== undefined) this.add(this.byCount, cell.executionCount, { notebook: notebook.path, cell, ran: cell.source, match: 'execution-count' });
      }
    }
    for (const text of ranTexts) this.knownTexts.set(ipykernelCellHash(text), text);
  }

  /** Whether any notebook cell was given (with none, nothing can match). */
  get isEmpty(): boolean {
    return this.codeCells.length === 0;
  }

  /**
   * The cell `filename` stands for; undefined when it is no cell name, or no cell matches. A name
   * several cells match (cells with the same text) goes to the first given.
   */
  resolve(filename: string): CellTarget | undefined {
    const name = parseCellName(filename);
    if (!name) return undefined;
    if (name.kind === 'ipykernel') {
      const exact = this.byHash.get(name.hash);
      if (exact) return this.target(this.best(exact));
      const known = this.knownTexts.get(name.hash);
      return known === undefined ? undefined : this.similar(known);
    }
    if (name.kind === 'ipython-input') {
      const found = this.byCount.get(name.executionCount);
      return found ? this.target(found[0]) : undefined;
    }
    return undefined;
  }

  /** The text known to have run under `filename` when no cell has it (for "the cell changed since it ran"). */
  knownText(filename: string): string | undefined {
    const name = parseCellName(filename);
    return name?.kind === 'ipykernel' ? this.knownTexts.get(name.hash) : undefined;
  }

  /** A cell whose text is the name's first, then one that ran it. */
  private best(candidates: readonly Candidate[]): Candidate {
    return candidates.find((c) => c.match === 'text') ?? candidates[0];
  }

  private target(c: Candidate): CellTarget {
    return {
      notebook: c.notebook,
      cell: c.cell.index,
      lineOffset: ipythonLineOffset(c.ran),
      ranSource: c.ran,
      changed: c.match === 'execution-count' ? false : c.ran.replace(/\r\n/g, '\n') !== c.cell.source.replace(/\r\n/g, '\n'),
      match: c.match,
    };
  }

  /** The code cell that kept most of `ran`'s lines (at least half of them), first given on a tie. */
  private similar(ran: string): CellTarget | undefined {
    const ranBag = lineBag(ran);
    let best: { notebook: string; cell: NotebookCellSource; shared: number } | undefined;
    for (const entry of this.codeCells) {
      entry.bag ??= lineBag(entry.cell.source);
      const { shared, total } = overlap(ranBag, entry.bag);
      if (total === 0 || shared * 2 < total) continue;
      if (!best || shared > best.shared) best = { notebook: entry.notebook, cell: entry.cell, shared };
    }
    if (!best) return undefined;
    return { notebook: best.notebook, cell: best.cell.index, lineOffset: ipythonLineOffset(ran), ranSource: ran, changed: true, match: 'similar' };
  }

  private add(map: Map<number, Candidate[]>, key: number, candidate: Candidate): void {
    const list = map.get(key);
    if (!list) map.set(key, [candidate]);
    else if (!list.some((c) => c.notebook === candidate.notebook && c.cell === candidate.cell && c.match === candidate.match)) list.push(candidate);
  }
}

/** "train.ipynb, cell 7" (cells counted from 1, as people count them). */
export function cellName(notebookBaseName: string, cell: number): string {
  return `${notebookBaseName}, cell ${cell + 1}`;
}
