/**
 * One truth between the advisor and the line tables: what a finding states, compared numerically
 * with the analysis it came from. Every line figure a finding claims (`Finding.lineFigures`) against
 * that line's table (`DeviceAnalysis.lines`, what the hover and `vram-lens analyze` show); the
 * device's peak and its event against the replay; and every byte figure in its words against the
 * structured figures it carries (so no number in the prose escapes the comparison).
 */
import type { Finding } from '../../src/engine/advice/finding';
import type { Analysis } from '../../src/engine/analysis/analyze';
import { formatBytes } from '../../src/engine/text/format';

/** Byte figures as the advisor writes them ("2.0 GiB", "512 B"). */
const BYTES = /(?<![\w.])-?\d+(?:\.\d+)? (?:B|KiB|MiB|GiB|TiB|PiB)\b/g;

export interface FigureCheck {
  /** What disagrees, in words (empty when all agree). */
  readonly problems: string[];
  /** How many line claims and prose figures were compared (a check that compared nothing proves nothing). */
  readonly claims: number;
  readonly proseFigures: number;
}

function numbers(value: number | readonly number[]): number[] {
  return typeof value === 'number' ? [value] : [...value];
}

export function checkFindingFigures(analysis: Analysis, finding: Finding): FigureCheck {
  const problems: string[] = [];
  const name = `[${finding.rule}] ${finding.title}`;
  const device = analysis.devices.find((d) => d.device === finding.device);
  if (!device) return { problems: [`${name}: no device ${finding.device}`], claims: 0, proseFigures: 0 };

  let claims = 0;
  for (const claim of finding.lineFigures ?? []) {
    claims++;
    const row = device.lines.find((l) => l.file === claim.file && l.line === claim.line);
    const table = row ? row[claim.figure] : 0;
    const ok = claim.relation === 'equals' ? claim.value === table : claim.value <= table;
    if (!ok) problems.push(`${name}: claims ${claim.figure} ${claim.relation === 'equals' ? '=' : '<='} ${claim.value} at ${claim.file}:${claim.line}, whose table says ${table}`);
  }
  const e = finding.evidence;
  if (e.peakBytes !== undefined && e.peakBytes !== device.peakBytes) problems.push(`${name}: peakBytes ${String(e.peakBytes)}, the replay's ${device.peakBytes}`);
  if (e.peakEvent !== undefined && e.peakEvent !== device.peakEventIndex) problems.push(`${name}: peakEvent ${String(e.peakEvent)}, the replay's ${device.peakEventIndex}`);
  if (finding.rule === 'in-place-arithmetic' && finding.line !== undefined) {
    const own = (finding.lineFigures ?? []).some((c) => c.file === finding.file && c.line === finding.line && c.figure === 'liveAtPeakBytes' && c.relation === 'equals');
    if (!own) problems.push(`${name}: does not state its line's live-at-peak bytes as the table gives them`);
  }

  // Every byte figure in the words is one of the structured figures, as formatted.
  const allowed = new Set<string>();
  for (const v of Object.values(e)) for (const n of numbers(v)) allowed.add(formatBytes(n));
  for (const c of finding.lineFigures ?? []) allowed.add(formatBytes(c.value));
  let proseFigures = 0;
  const texts = [finding.title, finding.message, ...(finding.related ?? []).map((r) => r.message)];
  for (const text of texts) {
    for (const m of text.matchAll(BYTES)) {
      proseFigures++;
      if (!allowed.has(m[0])) problems.push(`${name}: says ${m[0]}, which none of its structured figures is`);
    }
  }
  return { problems, claims, proseFigures };
}
