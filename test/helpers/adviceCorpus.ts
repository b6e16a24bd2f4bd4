/** Corpus snapshots analysed once per test run, and raw facts about them read by Python. */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { Analysis } from '../../src/core/analysis/analyze';
import { analyzeSnapshot } from '../../src/core/analysis/analyze';
import { snapshotFromBytes } from '../../src/core/load';
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
