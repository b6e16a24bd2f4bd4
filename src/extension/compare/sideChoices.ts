/**
 * What Compare Snapshots offers for each side, beside the loaded snapshots: snapshot files not loaded
 * yet (recent Profile VRAM runs, then the workspace's `.pickle`/`.pkl` files) and a path the user typed.
 * No `vscode` here: the picker (`pickSide.ts`) shows these, and tests read them in Node.
 */
import * as path from 'node:path';
import type { RunFile } from '../shared/recentRuns';

/** A snapshot file the picker offers: where it came from, and what to show. */
export interface FileChoice {
  readonly path: string;
  readonly kind: 'run' | 'workspace' | 'typed';
  readonly label: string;
  readonly description: string;
}


/** The most files of each kind the picker lists (the others are a search or Browse... away). */
export const MAX_FILES_PER_KIND = 30;

/** Snapshot file names: what `torch.cuda.memory._dump_snapshot()` is usually given, and gzip'd copies. */
export const SNAPSHOT_FILE = /\.(pickle|pkl)(\.gz)?$/i;

/**
 * The snapshot files to offer: recent runs' (newest first), then the workspace's (by path), none that
 * is loaded (`loaded`: their paths) or offered twice, at most `MAX_FILES_PER_KIND` of each kind.
 * `relative` names a workspace file as the user knows it.
 */
export function fileChoices(runs: readonly RunFile[], workspaceFiles: readonly string[], loaded: ReadonlySet<string>, relative: (file: string) => string = (f) => f): FileChoice[] {
  const seen = new Set(loaded);
  const out: FileChoice[] = [];
  const recent = [...runs].sort((a, b) => b.startedAt - a.startedAt);
  for (const r of recent) {
    if (seen.has(r.path) || out.length >= MAX_FILES_PER_KIND) continue;
    seen.add(r.path);
    const when = localMinute(r.startedAt);
    out.push({ path: r.path, kind: 'run', label: `${r.run}${r.rank === undefined ? '' : ` (rank ${r.rank})`}`, description: `profiled ${when}` });
  }
  let inWorkspace = 0;
  for (const file of [...workspaceFiles].sort()) {
    if (seen.has(file) || !SNAPSHOT_FILE.test(file) || inWorkspace >= MAX_FILES_PER_KIND) continue;
    seen.add(file);
    inWorkspace++;
    out.push({ path: file, kind: 'workspace', label: path.basename(file), description: relative(file) });
  }
  return out;
}

/**
 * The file a typed text names, when it reads as a path (absolute, `~/`, or relative to `base`, the
 * workspace folder, with a folder in it): the path to try loading. Undefined for text that is only a
 * search of the list.
 */
export function typedPath(text: string, base: string | undefined, home: string | undefined): string | undefined {
  const t = text.trim().replace(/^["']|["']$/g, '');
  if (t === '') return undefined;
  if (t.startsWith('~/') && home !== undefined) return path.join(home, t.slice(2));
  if (path.isAbsolute(t) || /^[a-zA-Z]:[\\/]/.test(t)) return path.normalize(t);
  // A relative path: only with a folder in it (a bare name filters the list, which holds the workspace's files).
  if (base !== undefined && (t.includes('/') || t.includes('\\'))) return path.join(base, t);
  return undefined;
}

/** "2026-01-02 10:00", in this machine's time zone. */
function localMinute(ms: number): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}
