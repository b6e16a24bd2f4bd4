/** Plain-text rendering of the advisor's findings: one block per finding, wrapped for a terminal. */
import type { Finding } from '../engine/advice/finding';
import type { CellPlaces } from '../engine/paths/places';
import { placeText } from './render';

const WIDTH = 100;

function wrap(text: string, indent: string): string[] {
  const lines: string[] = [];
  let current = '';
  for (const word of text.split(/\s+/)) {
    if (current !== '' && indent.length + current.length + 1 + word.length > WIDTH) {
      lines.push(indent + current);
      current = word;
    } else {
      current = current === '' ? word : `${current} ${word}`;
    }
  }
  if (current !== '') lines.push(indent + current);
  return lines;
}

export function renderFindings(name: string, findings: readonly Finding[], places?: CellPlaces): string {
  const out: string[] = [name];
  if (findings.length === 0) {
    out.push('  No findings: none of the advisor\'s patterns shows in this snapshot.');
    return out.join('\n') + '\n';
  }
  const errors = findings.filter((f) => f.severity === 'error').length;
  const warnings = findings.filter((f) => f.severity === 'warning').length;
  const n = (k: number, one: string) => `${k} ${one}${k === 1 ? '' : 's'}`;
  out.push(`  ${n(findings.length, 'finding')}, ${errors > 0 ? `${n(errors, 'error')}, ` : ''}${n(warnings, 'warning')}`);
  for (const f of findings) {
    out.push('');
    const at = f.file !== undefined && f.line !== undefined ? `  ${placeText(f.file, f.line, places)}` : '';
    out.push(`${f.severity === 'error' ? 'error  ' : f.severity === 'warning' ? 'warning' : 'info   '}  [${f.rule}] ${f.title}${at}`);
    out.push(...wrap(f.message, '    '));
    const evidence = Object.entries(f.evidence).map(([k, v]) => `${k}=${Array.isArray(v) ? v.join('/') : String(v)}`);
    out.push(...wrap(`evidence: ${evidence.join(', ')}`, '    '));
    for (const r of f.related ?? []) out.push(`    see ${placeText(r.file, r.line, places)}: ${r.message}`);
    for (const q of f.quickFixes ?? []) out.push(`    quick fix at ${placeText(q.file, q.line, places)}: ${q.title}`);
  }
  return out.join('\n') + '\n';
}
