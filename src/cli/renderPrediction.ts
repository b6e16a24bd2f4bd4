/** The lines that say a snapshot is a prediction: for which GPU, whether the run fits, what was assumed. */
import type { Prediction } from '../engine/snapshot/model';
import { formatBytes, formatCount } from '../engine/text/format';
import { plainText } from '../engine/text/plainText';
import { baseName } from '../engine/paths/recordedPath';


/** What kind of tensors the run used, in words. */
function dataWords(data: string): string {
  return data === 'cpu' ? 'real data on the CPU' : 'fake tensors (shapes, no data)';
}

/** The header lines of a predicted snapshot (after the layout line of `renderAnalysis`). */
export function predictionHeader(p: Prediction): string[] {
  const gpu = p.gpu;
  const out = [
    `  PREDICTED       for ${plainText(gpu.name)} (${formatBytes(gpu.memoryBytes)} = ${formatCount(gpu.memoryBytes)} bytes, compute capability ${plainText(gpu.capability)}); ` +
      `PyTorch ${plainText(p.torch)}, Python ${plainText(p.python)}, ${dataWords(p.data)}`,
  ];
  const placement = p.placement;
  if (placement === undefined) {
    out.push('  fits            unknown: the snapshot was not placed by the caching allocator (reserved memory is not predicted in it)');
  } else if (placement.fits) {
    out.push(`  fits            yes: peak reserved ${formatBytes(placement.peakReservedBytes)} of ${formatBytes(gpu.memoryBytes)}`);
  } else {
    const oom = placement.oom;
    const asked = oom ? `asking ${formatBytes(oom.requestedBytes)} with ${formatBytes(oom.reservedBytes)} reserved${oom.event < 0 ? ', before the recording began' : ''}` : '';
    out.push(`  fits            NO: the program runs out of memory ${asked}; it needs ${formatBytes(placement.neededReservedBytes)} reserved`);
  }
  if (p.assumptions.length > 0) out.push(`  assumed         ${p.assumptions.length} thing${p.assumptions.length === 1 ? '' : 's'} the prediction could not know (listed below)`);
  return out;
}

/** The assumptions, one line each, by file and line. */
export function predictionAssumptions(p: Prediction): string[] {
  if (p.assumptions.length === 0) return [];
  const out = ['', '  assumptions of the prediction'];
  for (const a of p.assumptions) {
    const where = a.filename === '' ? '(no line)' : `${baseName(a.filename)}:${a.line}`;
    const times = a.count > 1 ? ` (${a.count} times)` : '';
    out.push(`    ${plainText(where)}  ${plainText(a.message)}${times}`);
  }
  return out;
}
