/**
 * Which recorded paths name files on this machine (a snapshot recorded here), found by listing
 * folders from the top down rather than asking about every file: a recorded tree whose top folder is
 * not here costs one listing, whatever its size. Pure: the caller lists folders.
 */
import { isWindowsPath, pathSegments } from './recordedPath';

/** A folder's entries by name: 'file', 'folder', or anything else; undefined when it cannot be listed. */
export type ListFolder = (folder: string) => Promise<ReadonlyMap<string, 'file' | 'folder' | 'other'> | undefined>;

interface Node {
  readonly children: Map<string, Node>;
  /** Recorded paths ending here. */
  readonly files: string[];
}

/**
 * The subset of `recorded` that are files here. Only absolute paths in this machine's style count
 * (`windows`: drive-letter paths, else POSIX); names compare case-insensitively on Windows.
 * `concurrency` folders are listed at a time.
 */
export async function existingFiles(recorded: Iterable<string>, listFolder: ListFolder, windows: boolean, concurrency = 16): Promise<Set<string>> {
  const fold = (name: string) => (windows ? name.toLowerCase() : name);
  const root: Node = { children: new Map(), files: [] };
  for (const path of new Set(recorded)) {
    const native = windows ? isWindowsPath(path) && !path.startsWith('\\\\') : path.startsWith('/');
    if (!native) continue;
    const segments = pathSegments(path);
    if (segments.length === 0 || segments.includes('..')) continue;
    let node = root;
    for (const segment of segments) {
      const key = fold(segment);
      let next = node.children.get(key);
      if (!next) node.children.set(key, (next = { children: new Map(), files: [] }));
      node = next;
    }
    node.files.push(path);
  }
  const found = new Set<string>();
  // Level by level: each folder that exists here is listed once; its children that exist are the next level.
  let level: { readonly path: string; readonly node: Node }[] = windows
    ? [...root.children].map(([drive, node]) => ({ path: `${drive}\\`, node }))
    : [{ path: '/', node: root }];
  const join = (folder: string, name: string) => (folder.endsWith('/') || folder.endsWith('\\') ? `${folder}${name}` : `${folder}${windows ? '\\' : '/'}${name}`);
  while (level.length > 0) {
    const next: { path: string; node: Node }[] = [];
    for (let i = 0; i < level.length; i += concurrency) {
      await Promise.all(
        level.slice(i, i + concurrency).map(async ({ path, node }) => {
          const entries = await listFolder(path);
          if (!entries) return;
          const byKey = new Map<string, { name: string; kind: 'file' | 'folder' | 'other' }>();
          for (const [name, kind] of entries) byKey.set(fold(name), { name, kind });
          for (const [key, child] of node.children) {
            const entry = byKey.get(key);
            if (entry?.kind === 'file') for (const f of child.files) found.add(f);
            if (entry?.kind === 'folder' && child.children.size > 0) next.push({ path: join(path, entry.name), node: child });
          }
        }),
      );
    }
    level = next;
  }
  return found;
}
