/**
 * The first sentence of a run's notification: `benchmark.py completed.`, `benchmark.py ran out of GPU
 * memory.`, and for a run that could not start, `benchmark.py could not be profiled: PyTorch is not
 * installed for /usr/bin/python3.` (a headline that is a sentence of its own is not glued to the name,
 * and ends with one full stop). Free of `vscode` so it is unit-tested in plain Node.
 */
import type { RunOutcome } from '../../runtime/profile/outcome';

function withoutFullStop(text: string): string {
  return text.trim().replace(/[.\s]+$/, '');
}

export function outcomeText(name: string, outcome: Pick<RunOutcome, 'kind' | 'headline'>): string {
  const headline = withoutFullStop(outcome.headline);
  if (outcome.kind === 'environment' || outcome.kind === 'failed-to-start') return `${name} could not be profiled: ${headline}.`;
  return `${name} ${headline}.`;
}
