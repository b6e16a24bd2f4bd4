/**
 * Arithmetic that allocates a new tensor where an in-place form exists. Evidence from both sides,
 * silent when either is missing:
 * - the snapshot: the line allocated blocks of the size of a tensor already live (its operand)
 *   that were freed within the line or the next (temporaries), or while the line ran a block of
 *   that size made earlier was freed (the old value of `x` in `x = x / s`);
 * - the source: the statement is + - * / arithmetic with an in-place form (`x = x op y`,
 *   `x = a * x + b`, `x op= a * b / c`), read from its syntax tree; never a matrix product.
 * One pass over the trace; memory is bounded by the live blocks and the lines, not the events.
 */
import { NO_LINE } from '../../analysis/lineIndex';
import { BEFORE_TRACE, NEVER_FREED } from '../../analysis/replay';
import { isSourceFrame } from '../../analysis/frameFilter';
import { formatBytes } from '../../text/format';
import { inPlaceFormAt } from '../../python/inPlaceForm';
import type { InPlaceForm } from '../../python/inPlaceForm';
import { Action } from '../../snapshot/model';
import type { AdviceContext } from '../context';
import type { Finding } from '../finding';
import { isBackwardFrame } from '../frames';
import type { AdviceRule } from '../rule';
import { counted, where } from '../rule';

/** Blocks smaller than this are not "large tensors". */
export const MIN_TEMPORARY_BYTES = 1024 * 1024;
/** A finding needs at least this much memory in one execution of the line to be worth the reader's time... */
export const MIN_SAVING_BYTES = 32 * 1024 * 1024;
/** ...or this share of the device's peak. */
export const MIN_SAVING_SHARE = 0.01;

interface Group {
  readonly lineId: number;
  /** Blocks an in-place form would not have allocated. */
  avoidable: number;
  avoidableBytes: number;
  largest: number;
  temporaries: number;
  replacements: number;
  /** Most avoidable bytes in one execution of the line. */
  maxInOneExecutionBytes: number;
  tallyExecution: number;
  tallyBytes: number;
  atPeakBytes: number;
  atPeakCount: number;
  firstEvent: number;
}

/** A live block made by a candidate line, operand-sized. */
interface Made {
  readonly group: Group;
  readonly execution: number;
  readonly event: number;
  readonly size: number;
  counted: boolean;
}

/** Allocated by the user line itself, not by library Python code it called (torch's own operators excepted). */
function allocatesDirectly(ctx: AdviceContext, stack: number): boolean {
  for (const frame of ctx.frames(stack)) {
    if (ctx.isUserFrame(frame)) return true;
    if (isSourceFrame(frame) && !frame.filename.replace(/\\/g, '/').endsWith('/torch/_tensor.py')) return false;
  }
  return false;
}

export const inPlaceArithmetic: AdviceRule = {
  id: 'in-place-arithmetic',
  label: 'in-place op',
  run(ctx) {
    const t = ctx.trace;
    const d = ctx.device;
    const r = d.allocations;
    const peak = d.peakEventIndex;

    // The source side first: lines whose statement has an in-place form (memoised per line id).
    const forms = new Map<number, InPlaceForm | undefined>();
    const formOf = (lineId: number): InPlaceForm | undefined => {
      if (forms.has(lineId)) return forms.get(lineId);
      const l = ctx.analysis.lineIndex.lines[lineId];
      const form = typeof l.line === 'number' ? (() => { const src = ctx.source(l.file); return src && inPlaceFormAt(src, l.line); })() : undefined;
      forms.set(lineId, form);
      return form;
    };
    const direct = new Map<number, boolean>();
    const isCandidateStack = (stack: number): boolean => {
      let v = direct.get(stack);
      if (v === undefined) {
        v = !ctx.stackHas(stack, isBackwardFrame) && allocatesDirectly(ctx, stack);
        direct.set(stack, v);
      }
      return v;
    };

    // Live blocks: size by address, count by size; and which of them a candidate line made.
    const liveSize = new Map<number, number>();
    const liveBySize = new Map<number, number>();
    const bump = (size: number, by: number) => {
      const c = (liveBySize.get(size) ?? 0) + by;
      if (c === 0) liveBySize.delete(size);
      else liveBySize.set(size, c);
    };
    for (let k = 0; k < r.count; k++) {
      if (r.allocEvent[k] !== BEFORE_TRACE || r.freeEvent[k] === NEVER_FREED) continue;
      liveSize.set(r.addr[k], r.size[k]);
      bump(r.size[k], 1);
    }
    const made = new Map<number, Made>();
    // The line now running, and its execution (a consecutive run of events of one line).
    let execution = 0;
    let current = NO_LINE;
    // Operand-sized blocks this execution made and not yet counted, by size.
    let waiting = new Map<number, Made[]>();
    const groups = new Map<number, Group>();

    const count = (m: Made, as: 'temporary' | 'replacement', freeEvent: number) => {
      if (m.counted) return;
      m.counted = true;
      const g = m.group;
      g.avoidable++;
      g.avoidableBytes += m.size;
      g.largest = Math.max(g.largest, m.size);
      if (as === 'temporary') g.temporaries++;
      else g.replacements++;
      if (g.tallyExecution !== m.execution) {
        g.tallyExecution = m.execution;
        g.tallyBytes = 0;
      }
      g.tallyBytes += m.size;
      g.maxInOneExecutionBytes = Math.max(g.maxInOneExecutionBytes, g.tallyBytes);
      if (peak >= 0 && m.event <= peak && (freeEvent < 0 || freeEvent > peak)) {
        g.atPeakBytes += m.size;
        g.atPeakCount++;
      }
    };

    for (let i = 0; i < t.length; i++) {
      const action = t.action[i];
      if (action !== Action.Alloc && action !== Action.FreeCompleted) continue;
      const stack = t.stack[i];
      const line = ctx.lineIdOf(stack);
      if (line !== NO_LINE && line !== current) {
        execution++;
        current = line;
        waiting = new Map();
      }
      const addr = t.addr[i];
      const size = t.size[i];
      if (action === Action.Alloc) {
        const operands = (liveBySize.get(size) ?? 0) - (waiting.get(size)?.length ?? 0);
        liveSize.set(addr, size);
        bump(size, 1);
        if (line === NO_LINE || size < MIN_TEMPORARY_BYTES || operands <= 0 || !isCandidateStack(stack) || !formOf(line)) continue;
        let g = groups.get(line);
        if (!g) {
          g = { lineId: line, avoidable: 0, avoidableBytes: 0, largest: 0, temporaries: 0, replacements: 0, maxInOneExecutionBytes: 0, tallyExecution: -1, tallyBytes: 0, atPeakBytes: 0, atPeakCount: 0, firstEvent: i };
          groups.set(line, g);
        }
        const m: Made = { group: g, execution, event: i, size, counted: false };
        made.set(addr, m);
        const list = waiting.get(size);
        if (list) list.push(m);
        else waiting.set(size, [m]);
        continue;
      }
      // A free.
      const freedSize = liveSize.get(addr);
      if (freedSize === undefined) continue;
      liveSize.delete(addr);
      bump(freedSize, -1);
      const mine = made.get(addr);
      if (mine) made.delete(addr);
      // An older block of a size this execution just made, freed while it runs: the old value was
      // replaced (`x = x / s` frees the old x). Checked first: the old value may itself have been
      // made by the line before.
      const list = waiting.get(freedSize);
      if (list && list.length > 0 && (!mine || mine.execution !== execution)) {
        count(list.shift()!, 'replacement', -1);
        continue;
      }
      // Freed within its own execution or the next line's: a temporary.
      if (mine && execution - mine.execution <= 1) {
        count(mine, 'temporary', i);
        const at = list ? list.indexOf(mine) : -1;
        if (at >= 0) list!.splice(at, 1);
      }
    }

    const minSaving = Math.max(MIN_SAVING_BYTES, MIN_SAVING_SHARE * d.peakBytes);
    const findings: Finding[] = [];
    for (const g of groups.values()) {
      if (g.maxInOneExecutionBytes < minSaving) continue;
      const source = ctx.analysis.lineIndex.lines[g.lineId];
      const form = formOf(g.lineId);
      if (typeof source.line !== 'number' || !form) continue;
      const at = { file: source.file, line: source.line };
      const how = [
        g.temporaries > 0 ? `${counted(g.temporaries, 'temporary', 'temporaries')} freed within the line or the next` : '',
        g.replacements > 0 ? `${counted(g.replacements, 'new block')} that replaced an old one of the same size while the line ran` : '',
      ].filter((s) => s !== '').join(' and ');
      const peakNote =
        g.atPeakCount > 0
          ? ` ${counted(g.atPeakCount, 'of them was', 'of them were')} live at the device's peak (event ${d.peakEventIndex}, ${formatBytes(g.atPeakBytes)}), so the peak may drop by about that much.`
          : '';
      findings.push({
        rule: 'in-place-arithmetic',
        severity: g.atPeakCount > 0 ? 'warning' : 'information',
        device: d.device,
        ...at,
        title: `\`${form.statement}\` allocates up to ${formatBytes(g.maxInOneExecutionBytes)} per run in blocks an in-place form may avoid`,
        message:
          `${where(at)} (\`${form.statement}\`) allocated ${counted(g.avoidable, 'block')} of the size of a tensor already live (${formatBytes(g.avoidableBytes)} in all, the largest ${formatBytes(g.largest)}): ${how}; ` +
          `up to ${formatBytes(g.maxInOneExecutionBytes)} in one execution.${peakNote} ` +
          `${form.target} is overwritten by this statement, so its memory can be reused: consider ${form.suggestion}. ` +
          'In-place updates are unsafe where autograd (or other code) still needs the old value.',
        evidence: {
          avoidableCount: g.avoidable,
          avoidableBytes: g.avoidableBytes,
          largestBlockBytes: g.largest,
          temporaryCount: g.temporaries,
          replacedCount: g.replacements,
          savedInOneExecutionBytes: g.maxInOneExecutionBytes,
          liveAtPeakCount: g.atPeakCount,
          liveAtPeakBytes: g.atPeakBytes,
          firstEvent: g.firstEvent,
        },
        fix: 'in-place-operator',
      });
    }
    return findings.sort((a, b) => Number(b.evidence.savedInOneExecutionBytes) - Number(a.evidence.savedInOneExecutionBytes));
  },
};
