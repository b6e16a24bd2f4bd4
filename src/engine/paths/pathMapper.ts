/**
 * Maps the paths a snapshot recorded (on the machine that ran the program) to files on this
 * machine: a remembered root mapping first, else the local file that shares the longest path
 * suffix with the recorded one. The temporary file a notebook cell ran as maps to that cell of a
 * notebook (`../notebook/cellIndex.ts`), never to a file. Pure: the caller lists the local candidates.
 */
import { isCellName } from '../notebook/cellNames';
import type { CellTarget, NotebookCellIndex } from '../notebook/cellIndex';
import { commonPrefixLength, commonSuffixLength, isWindowsPath, joinLocal, pathSegments } from './recordedPath';

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
  if (mappings.length === 0) return undefined;
  const segments = pathSegments(recorded);
  const caseInsensitive = isWindowsPath(recorded);
  let best: { mapping: RootMapping; length: number } | undefined;
  for (const mapping of mappings) {
    const from = pathSegments(mapping.from);
    // A mapping of the whole recorded path maps that one file (`to` is the file).
    if (from.length === 0 || from.length > segments.length) continue;
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
  const name = segments.length > 0 ? segments[segments.length - 1] : '';
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
 * so the user is asked "where is /home/alice/proj?" once rather than once per file. Each file joins
 * the oldest group it shares enough leading folders with (a file directly under a first-level folder,
 * `/w/x.py`, joins any group under `/w`); groups are indexed by their leading segments, so 100,000
 * recorded folders group in one pass.
 */
export function unmappedRoots(paths: Iterable<string>): UnmappedRoot[] {
  interface Group {
    readonly order: number;
    readonly windows: boolean;
    segments: string[];
    readonly files: string[];
  }
  const groups: Group[] = [];
  /** Groups by their first segment, by their first two, and those one segment deep, in creation order. */
  const byFirst = new Map<string, Group[]>();
  const byTwo = new Map<string, Group>();
  const shallow = new Map<string, Group[]>();
  const keyOf = (windows: boolean, segments: readonly string[], n: number) => {
    let key = windows ? 'w' : 'p';
    for (let i = 0; i < n; i++) key += `\u0000${windows ? segments[i].toLowerCase() : segments[i]}`;
    return key;
  };
  const push = (map: Map<string, Group[]>, key: string, g: Group) => {
    const list = map.get(key);
    if (list) list.push(g);
    else map.set(key, [g]);
  };
  const earliest = (...candidates: (Group | undefined)[]) =>
    candidates.reduce<Group | undefined>((best, g) => (g && (!best || g.order < best.order) ? g : best), undefined);
  // A notebook cell's code has no file anywhere: there is no folder to ask about.
  const sorted = [...new Set(paths)].filter((p) => !isCellName(p)).sort();
  for (const path of sorted) {
    const windows = isWindowsPath(path);
    const folder = pathSegments(path).slice(0, -1);
    if (folder.length === 0) continue;
    const first = keyOf(windows, folder, 1);
    // Two-deep folders meet the groups sharing both segments, and the one-deep groups of their first;
    // a one-deep folder meets every group under its first segment.
    const group =
      folder.length >= MIN_SHARED_SEGMENTS ? earliest(byTwo.get(keyOf(windows, folder, MIN_SHARED_SEGMENTS)), shallow.get(first)?.[0]) : byFirst.get(first)?.[0];
    if (group) {
      const shared = commonPrefixLength(group.segments, folder, windows);
      if (shared < group.segments.length) {
        if (group.segments.length >= MIN_SHARED_SEGMENTS && shared < MIN_SHARED_SEGMENTS) push(shallow, first, group);
        group.segments = group.segments.slice(0, shared);
      }
      group.files.push(path);
      continue;
    }
    const created: Group = { order: groups.length, windows, segments: folder, files: [path] };
    groups.push(created);
    push(byFirst, first, created);
    if (folder.length >= MIN_SHARED_SEGMENTS) byTwo.set(keyOf(windows, folder, MIN_SHARED_SEGMENTS), created);
    else push(shallow, first, created);
  }
  return groups.map((g) => ({
    root: g.windows ? (g.segments.length === 1 ? `${g.segments[0]}\\` : g.segments.join('\\')) : `/${g.segments.join('/')}`,
    files: g.files,
  }));
}

/**
 * The recorded folders whose place on this machine a resolved file shows: for `/w/pkg/model.py` found
 * at `/home/me/proj/pkg/model.py`, `/w` (the folder above the segments the two paths share). A
 * question about one of them, or a folder inside one, has its answer already.
 */
export function mappedFolders(local: ReadonlyMap<string, string>): string[] {
  const out = new Set<string>();
  for (const [recorded, here] of local) {
    const segments = pathSegments(recorded);
    const shared = commonSuffixLength(segments, pathSegments(here), isWindowsPath(recorded) || isWindowsPath(here));
    const folder = segments.slice(0, segments.length - Math.max(1, shared));
    if (folder.length > 0) out.add(isWindowsPath(recorded) ? (folder.length === 1 ? `${folder[0]}\\` : folder.join('\\')) : `/${folder.join('/')}`);
  }
  return [...out];
}

/** Whether recorded folder `root` is one of `folders` or inside one. */
export function isInsideAny(root: string, folders: readonly string[]): boolean {
  const segments = pathSegments(root);
  const windows = isWindowsPath(root);
  return folders.some((f) => {
    if (isWindowsPath(f) !== windows) return false;
    const prefix = pathSegments(f);
    return prefix.length <= segments.length && commonPrefixLength(prefix, segments, windows) === prefix.length;
  });
}

/** What was said about recorded folders, for choosing the next one to ask about. */
export interface FolderAnswers {
  /** Folders the user said are not on this machine: nothing under them is asked about again. */
  readonly declined: readonly string[];
  /** Folders asked about already (this session): not asked again. */
  readonly asked: readonly string[];
  /** Folders a found file or a remembered mapping places: the files under them not found are not here. */
  readonly placed: readonly string[];
}

/**
 * The unmapped recorded folder to ask about next (the one with the most files), or undefined: none
 * inside a folder declined or placed, none asked about before.
 */
export function nextFolderToAsk(unmapped: Iterable<string>, answers: FolderAnswers): UnmappedRoot | undefined {
  const asked = new Set(answers.asked);
  return unmappedRoots(unmapped)
    .filter((r) => !asked.has(r.root) && !isInsideAny(r.root, answers.declined) && !isInsideAny(r.root, answers.placed))
    .sort((a, b) => b.files.length - a.files.length)[0];
}
