/** Where the shared corpus of real PyTorch snapshots lives, and the Python oracle that reads it. */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { LINE_FIGURES } from '../../src/engine/analysis/lineFigures';

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

/**
 * A device of a report (`toReport`, `analyze --json`) under the spec's names, as the oracle writes it:
 * each renamed figure (`formerKey` in the registry) is in every line object under its new key and, for
 * one release, under its former key, the spec's name; the two must be equal, and the new key is left out
 * so that the line compares with the oracle's.
 */
export function withSpecNames<D extends { readonly lines?: unknown; readonly segmentOnlyLines?: unknown }>(device: D): D {
  const renamed = LINE_FIGURES.filter((f) => f.formerKey !== undefined);
  const line = (l: Record<string, unknown>): Record<string, unknown> => {
    const out = { ...l };
    for (const f of renamed) {
      if (out[f.formerKey!] !== out[f.key]) throw new Error(`${String(l.file)}:${String(l.line)}: ${f.formerKey} is ${String(out[f.formerKey!])}, ${f.key} ${String(out[f.key])}`);
      delete out[f.key];
    }
    return out;
  };
  const lines = (xs: unknown) => (Array.isArray(xs) ? (xs as Record<string, unknown>[]).map(line) : xs);
  return { ...device, ...('lines' in device ? { lines: lines(device.lines) } : {}), ...('segmentOnlyLines' in device ? { segmentOnlyLines: lines(device.segmentOnlyLines) } : {}) };
}
