/** Corpus snapshots analysed once per test run, and raw facts about them read by Python. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { advise } from '../../src/engine/advice/advise';
import type { Finding } from '../../src/engine/advice/finding';
import type { Analysis } from '../../src/engine/analysis/analyze';
import { resolveUnderRoot } from '../../src/cli/sourceFiles';
import { analyzeSnapshot } from '../../src/engine/analysis/analyze';
import { snapshotFromBytes } from '../../src/engine/decode/load';
import { corpusDir, repoRoot } from './corpus';

const analyses = new Map<string, Analysis>();

export function corpusPath(name: string): string {
  return path.join(corpusDir, `${name}.pickle`);
}

/** The default analysis of a corpus snapshot, by file name without `.pickle`. */
export function corpusAnalysis(name: string): Analysis {
  let a = analyses.get(name);
  if (!a) {
    a = analyzeSnapshot(snapshotFromBytes(readFileSync(corpusPath(name))));
    analyses.set(name, a);
  }
  return a;
}

export interface RawDeviceFacts {
  device: number;
  ooms: { index: number; size: number; device_free: number | null }[];
  segmentReleases: number;
  releaseBursts: number[];
  reReservedSameSize: number;
  emptyCacheReleases: number;
}

/** test/reference/snapshot_facts.py over corpus snapshots: counts read from the raw pickles. */
export function rawFacts(name: string): RawDeviceFacts[] {
  const script = path.join(repoRoot, 'test', 'reference', 'snapshot_facts.py');
  const file = corpusPath(name);
  const out = JSON.parse(execFileSync('python3', [script, file], { encoding: 'utf8', maxBuffer: 1 << 28 })) as Record<string, { devices: RawDeviceFacts[] }>;
  return out[file].devices;
}

/** The test workspace's sources (test/fixtures/workspace), found by the longest tail of a recorded path. */
export function workspaceFileText(): (file: string) => string | undefined {
  const root = path.join(repoRoot, 'test', 'fixtures', 'workspace');
  const cache = new Map<string, string | undefined>();
  return (file) => {
    if (!cache.has(file)) {
      const local = file.endsWith('.py') ? resolveUnderRoot(root, file) : undefined;
      cache.set(file, local === undefined ? undefined : readFileSync(local, 'utf8'));
    }
    return cache.get(file);
  };
}

/** The advisor's findings on a corpus snapshot, with the test workspace's sources. */
export function corpusFindings(name: string): Finding[] {
  return advise(corpusAnalysis(name), { fileText: workspaceFileText() });
}
