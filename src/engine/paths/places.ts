/**
 * How a recorded line is named to people: `model.py:39` for a file, `train.ipynb, cell 7, line 3`
 * for the code of a notebook cell (whose recorded name, `/tmp/ipykernel_4242/123.py`, means nothing
 * to anyone). Views get the cells of a snapshot's recorded files from the path resolution and name
 * every line through `lineLabel`.
 */
import type { CellTarget } from '../notebook/cellIndex';
import { cellName } from '../notebook/cellIndex';
import { baseName } from './recordedPath';

/** Where a recorded cell file is: a notebook's cell (plain data, so it crosses to webviews). */
export interface CellPlace {
  /** The notebook, as shown (a local path). */
  readonly notebook: string;
  /** 0-based index among all the notebook's cells. */
  readonly cell: number;
  /** Cell line = recorded line + lineOffset. */
  readonly lineOffset: number;
  /** The cell was edited since it ran. */
  readonly changed: boolean;
}

/** The cells of a snapshot's recorded files: recorded file -> its cell. */
export type CellPlaces = Readonly<Record<string, CellPlace>>;

export function cellPlace(target: CellTarget, notebook: string = target.notebook): CellPlace {
  return { notebook, cell: target.cell, lineOffset: target.lineOffset, changed: target.changed };
}

/** The line of the cell a recorded line is (recorded lines count from the cell's first non-blank line). */
export function cellLine(place: CellPlace, recordedLine: number | bigint | string): number {
  return Number(recordedLine) + place.lineOffset;
}

/** The cell `file` is, if it is one (own keys only: a recorded name may be `constructor`). */
export function placeOf(file: string, places: CellPlaces | undefined): CellPlace | undefined {
  return places !== undefined && Object.hasOwn(places, file) ? places[file] : undefined;
}

/** The file part of a line's name: `model.py` or `train.ipynb, cell 7`. */
export function fileLabel(file: string, places?: CellPlaces): string {
  const place = placeOf(file, places);
  return place ? cellName(baseName(place.notebook), place.cell) : baseName(file);
}

/** `model.py:39`, or `train.ipynb, cell 7, line 3` for a notebook cell's code. */
export function lineLabel(file: string, line: number | bigint | string, places?: CellPlaces): string {
  const place = placeOf(file, places);
  if (!place) return `${baseName(file)}:${String(line)}`;
  return `${cellName(baseName(place.notebook), place.cell)}, line ${cellLine(place, line)}`;
}

/**
 * A recorded line as the JSON reports write it: a file's line as recorded; a cell's line as its
 * notebook, the cell's 0-based index among all its cells, and the line within the cell, with the
 * name it was recorded under (and `cellChanged` when the cell was edited since it ran).
 */
export type PlacedLine<L> =
  | { file: string; line: L }
  | { file: string; cell: number; line: number; recordedFile: string; cellChanged?: true };

export function placeLine<L extends number | bigint>(file: string, line: L, places: CellPlaces | undefined): PlacedLine<L> {
  const place = placeOf(file, places);
  if (!place) return { file, line };
  return { file: place.notebook, cell: place.cell, line: cellLine(place, line), recordedFile: file, ...(place.changed ? { cellChanged: true as const } : {}) };
}
