/**
 * Source text for the CLI, read from disk: the file a snapshot frame names, or (with a source
 * root) the file under that root sharing the longest path tail with it, e.g. an old checkout.
 * Only `.py` files are read, each once, and never more than a few megabytes.
 */
import { readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import type { LineTextProvider } from '../engine/paths/sourceText';

const MAX_SOURCE_BYTES = 4 * 1024 * 1024;

function readLines(file: string): string[] | undefined {
  try {
    const st = statSync(file);
    if (!st.isFile() || st.size > MAX_SOURCE_BYTES) return undefined;
    return readFileSync(file, 'utf8').split(/\r?\n/);
  } catch {
    return undefined;
  }
}

/** The file under `root` with the longest tail of `recorded`'s path components, if any exists. */
export function resolveUnderRoot(root: string, recorded: string): string | undefined {
  const parts = recorded.replace(/\\/g, '/').split('/').filter((p) => p !== '' && p !== '.' && p !== '..' && !/^[A-Za-z]:$/.test(p));
  for (let k = 0; k < parts.length; k++) {
    const candidate = path.join(root, ...parts.slice(k));
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not here; try a shorter tail
    }
  }
  return undefined;
}

/** Line text from disk; `root` maps recorded paths into another tree. */
export function diskLineText(root?: string): LineTextProvider {
  const cache = new Map<string, string[] | undefined>();
  return (file, line) => {
    if (!file.endsWith('.py')) return undefined;
    let lines = cache.get(file);
    if (!cache.has(file)) {
      const resolved = root === undefined ? file : resolveUnderRoot(root, file);
      lines = resolved === undefined ? undefined : readLines(resolved);
      cache.set(file, lines);
    }
    return lines?.[line - 1];
  };
}
