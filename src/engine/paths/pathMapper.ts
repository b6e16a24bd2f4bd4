/**
 * Maps the paths a snapshot recorded (on the machine that ran the program) to files on this
 * machine: a remembered root mapping first, else the local file that shares the longest path
 * suffix with the recorded one. The temporary file a notebook cell ran as maps to that cell of a
 * notebook (`../notebook/cellIndex.ts`), never to a file. Pure: the caller lists the local candidates.
 */
import { isCellName } from '../notebook/cellNames';
import type { CellTarget, NotebookCellIndex } from '../notebook/cellIndex';
import { baseName, commonPrefixLength, commonSuffixLength, isWindowsPath, joinLocal, pathSegments } from './recordedPath';

/** "Files recorded under `from` are under `to` here", remembered per workspace. */
export interface RootMapping {
  /** A recorded folder, e.g. `/home/alice/proj` or `D:\proj`. */
  readonly from: string;
  /** The local folder, as the local file system writes it. */
  readonly to: string;
}

export type PathResolution =
  | {
      readonly kind: 'mapped';
      readonly local: string;
      /** `root`: through a RootMapping; `exact`: the same path exists here; `suffix`: the longest shared suffix. */
      readonly via: 'root' | 'exact' | 'suffix';
      /** Trailing segments shared with the recorded path (all of them for `exact`). */
      readonly matchedSegments: number;
    }
  /** A notebook cell's code (`/tmp/ipykernel_4242/123.py`): its cell in a notebook here. */
  | { readonly kind: 'cell'; readonly cell: CellTarget }
  | { readonly kind: 'ambiguous'; readonly candidates: readonly string[] }
  | { readonly kind: 'unmapped' };

const UNMAPPED: PathResolution = { kind: 'unmapped' };

/** Local files indexed by file name, for suffix matching. */
export class LocalFiles {
  private readonly byName = new Map<string, { path: string; segments: string[] }[]>();

  constructor(paths: Iterable<string>) {
    const seen = new Set<string>();
    for (const path of paths) {
      if (seen.has(path)) continue;
      seen.add(path);
      const segments = pathSegments(path);
      const name = (segments[segments.length - 1] ?? '').toLowerCase();
      let bucket = this.byName.get(name);
      if (!bucket) this.byName.set(name, (bucket = []));
      bucket.push({ path, segments });
    }
  }

  /** Local files whose name equals `name` (case-insensitively; callers refine). */
  named(name: string): readonly { path: string; segments: string[] }[] {
    return this.byName.get(name.toLowerCase()) ?? [];
  }
}

/** The mapping whose `from` is the longest folder prefix of `recorded`, and what it maps the path to. */
export function applyRootMappings(recorded: string, mappings: readonly RootMapping[]): string | undefined {
  const segments = pathSegments(recorded);
  const caseInsensitive = isWindowsPath(recorded);
  let best: { mapping: RootMapping; length: number } | undefined;
  for (const mapping of mappings) {
    const from = pathSegments(mapping.from);
    if (from.length === 0 || from.length >= segments.length) continue;
    if (isWindowsPath(mapping.from) !== caseInsensitive) continue;
    if (commonPrefixLength(from, segments, caseInsensitive) !== from.length) continue;
    if (!best || from.length > best.length) best = { mapping, length: from.length };
  }
  return best ? joinLocal(best.mapping.to, segments.slice(best.length)) : undefined;
}

/** Where `recorded` is on this machine, if anywhere; `cells`: the notebooks' cells a cell name may be. */
export function resolveRecordedPath(recorded: string, local: LocalFiles, mappings: readonly RootMapping[] = [], cells?: NotebookCellIndex): PathResolution {
  if (isCellName(recorded)) {
    const cell = cells?.resolve(recorded);
    return cell ? { kind: 'cell', cell } : UNMAPPED;
  }
  const viaRoot = applyRootMappings(recorded, mappings);
  if (viaRoot !== undefined) return { kind: 'mapped', local: viaRoot, via: 'root', matchedSegments: pathSegments(recorded).length };

  const segments = pathSegments(recorded);
  const name = baseName(recorded);
  if (name === '') return UNMAPPED;
  const recordedWindows = isWindowsPath(recorded);
  let bestScore = 0;
  let best: { path: string; segments: string[] }[] = [];
  for (const candidate of local.named(name)) {
    const caseInsensitive = recordedWindows || isWindowsPath(candidate.path);
    const score = commonSuffixLength(segments, candidate.segments, caseInsensitive);
    if (score === 0 || score < bestScore) continue;
    if (score > bestScore) {
      bestScore = score;
      best = [];
    }
    best.push(candidate);
  }
  if (best.length === 0) return UNMAPPED;
  if (best.length > 1) return { kind: 'ambiguous', candidates: best.map((c) => c.path) };
  const only = best[0];
  const exact = bestScore === segments.length && bestScore === only.segments.length;
  return { kind: 'mapped', local: only.path, via: exact ? 'exact' : 'suffix', matchedSegments: bestScore };
}

/** Resolves every recorded path once. */
export function resolveRecordedPaths(
  recorded: Iterable<string>,
  local: LocalFiles,
  mappings: readonly RootMapping[] = [],
  cells?: NotebookCellIndex,
): Map<string, PathResolution> {
  const out = new Map<string, PathResolution>();
  for (const path of recorded) if (!out.has(path)) out.set(path, resolveRecordedPath(path, local, mappings, cells));
  return out;
}

/** A recorded folder to ask the user about, with the recorded files under it. */
export interface UnmappedRoot {
  /** The folder as recorded, e.g. `/home/alice/proj` or `D:\proj`. */
  readonly root: string;
  readonly files: readonly string[];
}

/** Folders two recorded paths must share (drive or first folder, then one more) to be asked about together. */
const MIN_SHARED_SEGMENTS = 2;

/**
 * Groups unmapped recorded files by the deepest folder they share (at least two segments deep),
 * so the user is asked "where is /home/alice/proj?" once rather than once per file.
 */
export function unmappedRoots(paths: Iterable<string>): UnmappedRoot[] {
  const groups: { windows: boolean; segments: string[]; files: string[] }[] = [];
  // A notebook cell's code has no file anywhere: there is no folder to ask about.
  const sorted = [...new Set(paths)].filter((p) => !isCellName(p)).sort();
  for (const path of sorted) {
    const windows = isWindowsPath(path);
    const folder = pathSegments(path).slice(0, -1);
    if (folder.length === 0) continue;
    const group = groups.find(
      (g) => g.windows === windows && commonPrefixLength(g.segments, folder, windows) >= Math.min(MIN_SHARED_SEGMENTS, folder.length, g.segments.length),
    );
    if (group) {
      group.segments = group.segments.slice(0, commonPrefixLength(group.segments, folder, windows));
      group.files.push(path);
    } else {
      groups.push({ windows, segments: folder, files: [path] });
    }
  }
  return groups.map((g) => ({
    root: g.windows ? (g.segments.length === 1 ? `${g.segments[0]}\\` : g.segments.join('\\')) : `/${g.segments.join('/')}`,
    files: g.files,
  }));
}
