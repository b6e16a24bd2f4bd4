/**
 * The import graph of the sources, read as text with TypeScript's own pre-processor (every import,
 * `import type` and re-export included), and the circles in it seen folder by folder: inside a folder,
 * each entry (a file, or a sub-folder taken whole) is a node, and an import from a file under one entry
 * to a file under another is an arrow between them. A folder whose entries import each other in a loop
 * has an arrow that runs back up; two files that import each other are such a loop in the folder that
 * holds both. test/unit/importOrder.test.ts holds the tree to none.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import * as path from 'node:path';
import ts from 'typescript';

/** Files (relative, with `/`) and the files of the tree each imports. */
export type ImportGraph = ReadonlyMap<string, readonly string[]>;

function tsFiles(root: string, folder: string): string[] {
  return readdirSync(path.join(root, folder)).flatMap((name) => {
    const rel = `${folder}/${name}`;
    if (statSync(path.join(root, rel)).isDirectory()) return tsFiles(root, rel);
    return name.endsWith('.ts') ? [rel] : [];
  });
}

/** The import graph of the `.ts` files under `folders` (relative to `root`); imports of packages are left out. */
export function readImportGraph(root: string, folders: readonly string[]): ImportGraph {
  const files = folders.flatMap((f) => tsFiles(root, f));
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(path.join(root, file), 'utf8'), true, true);
    const targets = importedFiles
      .map((i) => i.fileName)
      .filter((spec) => spec.startsWith('.'))
      .map((spec) => path.posix.normalize(path.posix.join(path.posix.dirname(file), spec)))
      .map((base) => [`${base}.ts`, `${base}/index.ts`, base.replace(/\.js$/, '.ts')].find((c) => known.has(c)))
      .filter((t): t is string => t !== undefined);
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** A loop among the entries of one folder, and one import along each of its arrows. */
export interface FolderCircle {
  readonly folder: string;
  /** The entries in the loop (file or sub-folder names). */
  readonly entries: readonly string[];
  /** `from -> to` for each arrow inside the loop: the first import that makes it. */
  readonly imports: readonly string[];
}

/** The entry of `folder` that `file` lies under, or undefined when it lies outside. */
function entryOf(folder: string, file: string): string | undefined {
  const prefix = folder === '' ? '' : `${folder}/`;
  if (!file.startsWith(prefix)) return undefined;
  return file.slice(prefix.length).split('/')[0];
}

/** Strongly connected components of more than one node (Tarjan). */
function loops(nodes: readonly string[], arrows: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of arrows.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const v of nodes) if (!index.has(v)) visit(v);
  return found;
}

/** Every folder's loops among its entries, over the whole graph. */
export function folderCircles(graph: ImportGraph): FolderCircle[] {
  const folders = new Set<string>();
  for (const file of graph.keys()) {
    const parts = file.split('/');
    for (let i = 0; i < parts.length; i++) folders.add(parts.slice(0, i).join('/'));
  }
  const circles: FolderCircle[] = [];
  for (const folder of [...folders].sort()) {
    const arrows = new Map<string, Set<string>>();
    const first = new Map<string, string>();
    for (const [file, targets] of graph) {
      const from = entryOf(folder, file);
      if (from === undefined) continue;
      for (const target of targets) {
        const to = entryOf(folder, target);
        if (to === undefined || to === from) continue;
        if (!arrows.has(from)) arrows.set(from, new Set());
        arrows.get(from)!.add(to);
        if (!first.has(`${from}\n${to}`)) first.set(`${from}\n${to}`, `${file} -> ${target}`);
      }
    }
    for (const entries of loops([...arrows.keys()].sort(), arrows)) {
      const inside = new Set(entries);
      const imports = [...first].filter(([key]) => key.split('\n').every((e) => inside.has(e))).map(([, via]) => via);
      circles.push({ folder: folder === '' ? '.' : folder, entries, imports });
    }
  }
  return circles;
}
