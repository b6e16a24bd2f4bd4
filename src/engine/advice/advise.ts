/**
 * The advisor: runs every rule over every device (or one) of an analysis and returns the findings,
 * errors, then warnings first, each with its quick fixes when the caller can supply source text.
 */
import type { WhatIfBasis } from '../allocator/whatIf';
import type { Analysis } from '../analysis/analyze';
import type { FileTextProvider, LineTextProvider } from '../paths/sourceText';
import { fileTextFromLines } from '../paths/sourceText';
import type { CellPlaces } from '../paths/places';
import { AdviceContext, SourceCache } from './context';
import type { Finding } from './finding';
import { quickFixesFor } from './quickFix';
import type { AdviceRule } from './rule';
import { activationCheckpointing } from './rules/activationCheckpointing';
import { allocatorSettings } from './rules/allocatorSettings';
import { beforeRecording } from './rules/beforeRecording';
import { emptyCacheInLoop } from './rules/emptyCacheInLoop';
import { fragmentation } from './rules/fragmentation';
import { growingMemory } from './rules/growingMemory';
import { inferenceWithoutNoGrad } from './rules/inferenceWithoutNoGrad';
import { inPlaceArithmetic } from './rules/inPlaceArithmetic';
import { mixedPrecision } from './rules/mixedPrecision';
import { optimizerState } from './rules/optimizerState';
import { outOfMemory } from './rules/outOfMemory';

/** Every rule, in the order their findings are listed when severities tie. */
export const RULES: readonly AdviceRule[] = [
  outOfMemory,
  fragmentation,
  allocatorSettings,
  growingMemory,
  emptyCacheInLoop,
  inPlaceArithmetic,
  inferenceWithoutNoGrad,
  activationCheckpointing,
  optimizerState,
  mixedPrecision,
  beforeRecording,
];

export interface AdviceOptions {
  /** Only this device (default: every device). */
  readonly device?: number;
  /** Source text of user lines, for quick fixes and sharper wording. */
  readonly lineText?: LineTextProvider;
  /** Whole source files (else rebuilt from `lineText`), for the rules that read the code. */
  readonly fileText?: FileTextProvider;
  /** Only these rules (default: all). */
  readonly rules?: readonly AdviceRule[];
  /** The notebook cells of recorded cell files: messages name their lines by cell. */
  readonly places?: CellPlaces;
  /** The allocator replay of a device, when the caller already holds it (else the rules that need it replay the trace). */
  readonly allocator?: (device: number) => WhatIfBasis;
}

export function advise(analysis: Analysis, options: AdviceOptions = {}): Finding[] {
  const rules = options.rules ?? RULES;
  const findings: Finding[] = [];
  const several = analysis.devices.length > 1;
  const fileText = options.fileText ?? (options.lineText ? fileTextFromLines(options.lineText) : undefined);
  const sources = new SourceCache(fileText);
  for (const device of analysis.devices) {
    if (options.device !== undefined && device.device !== options.device) continue;
    const ctx = new AdviceContext(analysis, device, options.lineText, sources, options.places, options.allocator);
    for (const rule of rules) {
      for (const found of rule.run(ctx)) {
        const f = several ? { ...found, title: `${found.title} (device ${found.device})` } : found;
        const fixes = quickFixesFor(f, (file) => sources.get(file));
        findings.push(fixes.length > 0 ? { ...f, quickFixes: fixes } : f);
      }
    }
  }
  const order = (f: Finding) => (f.severity === 'error' ? 0 : f.severity === 'warning' ? 1 : 2);
  // Stable sort: within a severity, rules keep their order and each rule its own ranking.
  return findings.sort((a, b) => order(a) - order(b));
}
