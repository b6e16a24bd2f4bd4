/**
 * Memory that grows iteration after iteration from one line and is never freed: blocks from the
 * line still live at the end, made in separate iterations of the surrounding loop while the rest
 * of each iteration's memory was freed. The classic cause is accumulating a tensor that holds its
 * autograd graph (`total += loss`, `losses.append(loss)`).
 *
 * Iterations: in a training run, the stretches between backward passes (a forward's activations
 * are only freed by the next backward, so blocks from one forward never count as growth). In a
 * forward-only run, a new iteration begins when the program leaves the loop-body line the block
 * was made under (the outermost line of its stack that not every event runs under).
 */
import { NO_LINE } from '../../analysis/lineIndex';
import { NEVER_FREED } from '../../analysis/replay';
import { formatBytes } from '../../text/format';
import { NO_STACK } from '../../snapshot/model';
import type { AdviceContext } from '../context';
import type { Finding, RelatedLocation } from '../finding';
import type { Accumulation } from '../quickFix';
import { findAccumulation } from '../quickFix';
import { isBackwardFrame, isOptimizerFrame, isSetupFrame } from '../frames';
import type { AdviceRule } from '../rule';
import { where } from '../rule';
import { FIGURE } from '../../analysis/lineFigures';

/** Fewer iterations than this is not a trend. */
export const MIN_ITERATIONS = 3;
const MAX_FINDINGS = 3;

/** Lines present in every stack of the trace that has user lines: the program's entry (e.g. `main()`). */
function spineOf(ctx: AdviceContext): Set<number> {
  const inclusive = ctx.analysis.lineIndex.inclusiveLines;
  let spine: Set<number> | undefined;
  const seen = new Set<number>();
  for (let i = 0; i < ctx.trace.length; i++) {
    const s = ctx.trace.stack[i];
    if (s === NO_STACK || seen.has(s)) continue;
    seen.add(s);
    const lines = inclusive[s];
    if (lines.length === 0) continue;
    spine = spine ? new Set(lines.filter((l) => spine!.has(l))) : new Set(lines);
    if (spine.size === 0) break;
  }
  return spine ?? new Set();
}

/**
 * Why the accumulation is not rewritten for the user: `.item()` makes the accumulator a Python number
 * (its type, device and dtype change, and code that reads it as a tensor breaks), and `.detach()` stops
 * gradients through it (a later `backward()` on it computes something else or fails).
 */
export const NO_ACCUMULATION_FIX =
  'No quick fix is offered: `.item()` turns the tensor into a Python number and `.detach()` stops gradients through it, and either changes what the program computes if it still needs the tensor.';

function related(loop: { file: string; line: number } | undefined, iterations: number, kept: Accumulation | undefined): { related?: RelatedLocation[] } {
  const out: RelatedLocation[] = [];
  if (loop) out.push({ ...loop, message: `the loop body line these blocks were made under (${iterations} iterations)` });
  if (kept) out.push({ file: kept.file, line: kept.line, message: `\`${kept.statement}\` keeps \`${kept.expression}\` from every iteration`, role: 'accumulation' });
  return out.length > 0 ? { related: out } : {};
}

export const growingMemory: AdviceRule = {
  id: 'growing-memory',
  label: 'growing memory',
  run(ctx) {
    const d = ctx.device;
    const r = d.allocations;
    const t = ctx.trace;
    const inclusive = ctx.analysis.lineIndex.inclusiveLines;

    const byLine = new Map<number, number[]>();
    for (let k = 0; k < r.count; k++) {
      if (r.allocEvent[k] < 0 || r.freeEvent[k] !== NEVER_FREED) continue;
      const stack = r.stackOf(k);
      const line = ctx.lineIdOf(stack);
      if (line === NO_LINE || ctx.stackHas(stack, isSetupFrame) || ctx.stackHas(stack, isOptimizerFrame)) continue;
      const list = byLine.get(line);
      if (list) list.push(k);
      else byLine.set(line, [k]);
    }
    const candidates = [...byLine].filter(([, ks]) => ks.length >= MIN_ITERATIONS);
    if (candidates.length === 0) return [];
    const spine = spineOf(ctx);

    /**
     * The outermost line of the stack that not every event runs under: the loop body it belongs to.
     * When that is the allocating line itself inside a module's forward (the trace never leaves the
     * forward), no iteration can be told apart: NO_LINE.
     */
    const anchorOf = (stack: number): number => {
      const lines = inclusive[stack];
      for (let j = lines.length - 1; j >= 0; j--) {
        if (spine.has(lines[j])) continue;
        if (j === 0 && lines.length > 1 && ctx.frames(stack).find((f) => ctx.isUserFrame(f))?.name === 'forward') return NO_LINE;
        return lines[j];
      }
      return NO_LINE;
    };
    /** Whether, between two events, the program left the anchor's line (a new iteration began). */
    const leftBetween = (from: number, to: number, anchor: number): boolean => {
      for (let e = from + 1; e < to; e++) {
        const s = t.stack[e];
        if (s === NO_STACK || inclusive[s].length === 0) continue;
        if (!inclusive[s].includes(anchor)) return true;
      }
      return false;
    };

    // Training: iteration k is the stretch after the k-th backward pass.
    const training = ctx.isTraining;
    const pass = new Int32Array(t.length);
    if (training) {
      let passes = 0;
      let inBackward = false;
      for (let e = 0; e < t.length; e++) {
        const backward = ctx.stackHas(t.stack[e], isBackwardFrame);
        if (backward && !inBackward) passes++;
        if (t.stack[e] !== NO_STACK) inBackward = backward;
        pass[e] = passes;
      }
    }
    const newIteration = (from: number, to: number, stack: number): boolean => {
      if (training) return pass[to] !== pass[from];
      const anchor = anchorOf(stack);
      return anchor !== NO_LINE && leftBetween(from, to, anchor);
    };

    const findings: Finding[] = [];
    for (const [lineId, records] of candidates) {
      records.sort((a, b) => r.allocEvent[a] - r.allocEvent[b]);
      let iterations = 1;
      for (let j = 1; j < records.length; j++) {
        if (newIteration(r.allocEvent[records[j - 1]], r.allocEvent[records[j]], r.stackOf(records[j]))) iterations++;
      }
      if (iterations < MIN_ITERATIONS) continue;
      const source = ctx.analysis.lineIndex.lines[lineId];
      if (typeof source.line !== 'number') continue;
      const at = { file: source.file, line: source.line };
      const bytes = records.reduce((sum, k) => sum + r.sizeOf(k), 0);
      // The loop-body line the blocks were made under, where an accumulation would be.
      const loopLine = anchorOf(r.stackOf(records[records.length - 1]));
      const loop = loopLine === NO_LINE || loopLine === lineId ? undefined : ctx.analysis.lineIndex.lines[loopLine];
      // The statement that keeps them, when the source shows one (`total += loss` below the loop line).
      const kept = findAccumulation(at, loop && typeof loop.line === 'number' ? [{ file: loop.file, line: loop.line }] : [], (file) => ctx.source(file));
      const first = r.allocEvent[records[0]];
      const last = r.allocEvent[records[records.length - 1]];
      findings.push({
        rule: 'growing-memory',
        severity: 'warning',
        device: d.device,
        ...at,
        title: `Memory from ${where(at, ctx.places)} grows every iteration and is never freed`,
        message:
          `${where(at, ctx.places)} allocated ${records.length} blocks (${formatBytes(bytes)}) in ${iterations} separate iterations, from event ${ctx.eventName(first)} to event ${ctx.eventName(last)}, ` +
          `and none was freed by the end of the trace, while the rest of each iteration's memory was. This looks like a leak: ` +
          (kept
            ? `${where(kept, ctx.places)} (\`${kept.statement}\`) keeps \`${kept.expression}\` from every iteration; if it is still attached to the autograd graph, ` +
              `accumulating its \`.item()\` (a Python number) or \`.detach()\` instead would let each iteration's graph go; if it is a cache meant to grow, this is expected. `
            : 'if the line keeps a tensor that is still attached to the autograd graph (e.g. `total += loss`, `losses.append(out)`), ' +
              'accumulate `loss.item()` (a Python number) or `loss.detach()` instead; if it is a cache meant to grow, this is expected. ') +
          NO_ACCUMULATION_FIX,
        evidence: {
          neverFreedCount: records.length,
          neverFreedBytes: bytes,
          iterationCount: iterations,
          bytesPerIteration: Math.round(bytes / iterations),
          firstEvent: first,
          lastEvent: last,
        },
        lineFigures: [
          { ...at, figure: FIGURE.allocated, relation: 'atMost', value: bytes },
          { ...at, figure: FIGURE.allocations, relation: 'atMost', value: records.length },
        ],
        ...(related(loop && typeof loop.line === 'number' ? { file: loop.file, line: loop.line } : undefined, iterations, kept)),
      });
    }
    return findings.sort((a, b) => Number(b.evidence.neverFreedBytes) - Number(a.evidence.neverFreedBytes)).slice(0, MAX_FINDINGS);
  },
};
