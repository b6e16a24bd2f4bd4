/** Where the shared corpus of real PyTorch snapshots lives, and the Python oracle that reads it. */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import * as path from 'node:path';

/** The repository root (tests run from out/test/...). */
export const repoRoot = path.resolve(__dirname, '..', '..', '..');

export const corpusDir = process.env.VRAM_LENS_CORPUS ?? path.resolve(repoRoot, '..', 'shared', 'snapshots');

export function corpusFiles(): string[] {
  if (!existsSync(corpusDir)) return [];
  return readdirSync(corpusDir)
    .filter((f) => f.endsWith('.pickle') || f.endsWith('.pkl'))
    .sort()
    .map((f) => path.join(corpusDir, f));
}

export const corpusMissing = corpusFiles().length === 0 ? `corpus not found at ${corpusDir} (set VRAM_LENS_CORPUS)` : false;

/** Runs test/reference/spec_reference.py (an independent reading of the spec) over the files. */
export function referenceAnalysis(files: readonly string[]): Record<string, unknown> {
  const script = path.join(repoRoot, 'test', 'reference', 'spec_reference.py');
  const out = execFileSync('python3', [script, ...files], { maxBuffer: 1 << 30, encoding: 'utf8' });
  return parseExactJson(out) as Record<string, unknown>;
}

/** JSON.parse that keeps integers beyond 2^53 exact, as bigint. */
export function parseExactJson(text: string): unknown {
  const marked = text.replace(/([:[,]\s*)(-?\d{16,})(?=\s*[,}\]])/g, (m: string, pre: string, digits: string) => {
    const n = Number(digits);
    return Number.isSafeInteger(n) ? m : `${pre}"\u0000big:${digits}"`;
  });
  return JSON.parse(marked, (_k, v: unknown) => (typeof v === 'string' && v.startsWith('\u0000big:') ? BigInt(v.slice(5)) : v));
}
