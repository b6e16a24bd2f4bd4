/**
 * Elementwise arithmetic that makes short-lived temporaries: a line that allocates several blocks
 * of one size (the size of tensors already live, i.e. its operands) and frees them before the
 * program moves past the next line. In-place forms (`mul_`, `add_`, `addcmul_`, `out=`) avoid them.
 */
import { NO_LINE } from '../../analysis/lineIndex';
import { BEFORE_TRACE, NEVER_FREED } from '../../analysis/replay';
import { isSourceFrame } from '../../analysis/frameFilter';
import { formatBytes } from '../../format';
import { Action } from '../../snapshot/model';
import type { AdviceContext } from '../context';
import type { Finding } from '../finding';
import { isBackwardFrame } from '../frames';
import type { AdviceRule } from '../rule';
import { where } from '../rule';

/** Temporaries smaller than this are not "large tensors". */
export const MIN_TEMPORARY_BYTES = 1024 * 1024;
/** A finding needs at least this much memory at once to be worth the reader's time... */
export const MIN_SAVING_BYTES = 32 * 1024 * 1024;
/** ...or this share of the device's peak. */
export const MIN_SAVING_SHARE = 0.01;
/** How far (in events) a temporary's life is followed before it counts as long-lived. */
const MAX_LIFETIME_EVENTS = 20_000;

interface Group {
  readonly lineId: number;
  temporaries: number;
  temporaryBytes: number;
  largest: number;
  withOperands: number;
  liveBytes: number;
  maxLiveBytes: number;
  atPeakBytes: number;
  atPeakCount: number;
  /** Most temporaries of one size made in one execution of the line. */
  maxSameSizeInOneExecution: number;
  firstEvent: number;
  readonly perExecutionAndSize: Map<string, number>;
  /** Own temporaries live now, by size (so they are not mistaken for operands). */
  readonly liveBySize: Map<number, number>;
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
  run(ctx) {
    const t = ctx.trace;
    const d = ctx.device;
    const r = d.allocations;
    const n = t.length;

    // The user line of every event, and which consecutive run of one line ("execution") it is in.
    const eventLine = new Int32Array(n).fill(NO_LINE);
    const execution = new Int32Array(n);
    let exec = 0;
    let previous = NO_LINE;
    for (let i = 0; i < n; i++) {
      const id = ctx.lineIdOf(t.stack[i]);
      eventLine[i] = id;
      if (id !== NO_LINE && id !== previous) {
        exec++;
        previous = id;
      }
      execution[i] = exec;
    }

    const recordAt = new Int32Array(n).fill(-1);
    const freedAt = new Map<number, number[]>();
    const liveBySize = new Map<number, number>();
    const bump = (size: number, by: number) => liveBySize.set(size, (liveBySize.get(size) ?? 0) + by);
    for (let k = 0; k < r.count; k++) {
      if (r.allocEvent[k] === BEFORE_TRACE) bump(r.size[k], 1);
      else recordAt[r.allocEvent[k]] = k;
      if (r.freeEvent[k] !== NEVER_FREED) {
        const list = freedAt.get(r.freeEvent[k]);
        if (list) list.push(k);
        else freedAt.set(r.freeEvent[k], [k]);
      }
    }

    /** Freed before the program got past the line after this one. */
    const isTemporary = (k: number, line: number): boolean => {
      const from = r.allocEvent[k];
      const to = r.freeEvent[k];
      if (to === NEVER_FREED || to - from > MAX_LIFETIME_EVENTS) return false;
      let other = NO_LINE;
      for (let e = from + 1; e <= to; e++) {
        const id = eventLine[e];
        if (id === NO_LINE || id === line) continue;
        if (other === NO_LINE) other = id;
        else if (id !== other) return false;
      }
      return true;
    };

    const groups = new Map<number, Group>();
    const temporaryGroup = new Map<number, Group>();
    for (let i = 0; i < n; i++) {
      const k = recordAt[i];
      if (k >= 0 && t.action[i] === Action.Alloc) {
        const size = r.size[k];
        const line = eventLine[i];
        const sameSizeLive = liveBySize.get(size) ?? 0;
        bump(size, 1);
        if (
          line !== NO_LINE &&
          size >= MIN_TEMPORARY_BYTES &&
          !ctx.stackHas(t.stack[i], isBackwardFrame) &&
          allocatesDirectly(ctx, t.stack[i]) &&
          isTemporary(k, line)
        ) {
          let g = groups.get(line);
          if (!g) {
            g = {
              lineId: line,
              temporaries: 0,
              temporaryBytes: 0,
              largest: 0,
              withOperands: 0,
              liveBytes: 0,
              maxLiveBytes: 0,
              atPeakBytes: 0,
              atPeakCount: 0,
              maxSameSizeInOneExecution: 0,
              firstEvent: i,
              perExecutionAndSize: new Map(),
              liveBySize: new Map(),
            };
            groups.set(line, g);
          }
          g.temporaries++;
          g.temporaryBytes += size;
          g.largest = Math.max(g.largest, size);
          // Same-size blocks live besides this line's own temporaries: its operands.
          const own = g.liveBySize.get(size) ?? 0;
          if (sameSizeLive - own > 0) g.withOperands++;
          g.liveBySize.set(size, own + 1);
          g.liveBytes += size;
          g.maxLiveBytes = Math.max(g.maxLiveBytes, g.liveBytes);
          const key = `${execution[i]}:${size}`;
          const inExec = (g.perExecutionAndSize.get(key) ?? 0) + 1;
          g.perExecutionAndSize.set(key, inExec);
          g.maxSameSizeInOneExecution = Math.max(g.maxSameSizeInOneExecution, inExec);
          if (i <= d.peakEventIndex && r.freeEvent[k] > d.peakEventIndex) {
            g.atPeakBytes += size;
            g.atPeakCount++;
          }
          temporaryGroup.set(k, g);
        }
      }
      for (const f of freedAt.get(i) ?? []) {
        const size = r.size[f];
        bump(size, -1);
        const g = temporaryGroup.get(f);
        if (g) {
          g.liveBytes -= size;
          g.liveBySize.set(size, (g.liveBySize.get(size) ?? 1) - 1);
        }
      }
    }

    const minSaving = Math.max(MIN_SAVING_BYTES, MIN_SAVING_SHARE * d.peakBytes);
    const findings: Finding[] = [];
    for (const g of groups.values()) {
      if (g.maxSameSizeInOneExecution < 2 || 2 * g.withOperands < g.temporaries || g.maxLiveBytes < minSaving) continue;
      const source = ctx.analysis.lineIndex.lines[g.lineId];
      if (typeof source.line !== 'number') continue;
      const at = { file: source.file, line: source.line };
      const text = ctx.lineText?.(at.file, at.line);
      const matmul = text !== undefined && /@|\bmatmul\b|\bmm\b|\bbmm\b|\blinear\b/.test(text);
      const peakNote =
        g.atPeakCount > 0
          ? ` ${g.atPeakCount} of them (${formatBytes(g.atPeakBytes)}) were live at the device's peak (event ${d.peakEventIndex}), so the peak may drop by about that much.`
          : '';
      findings.push({
        rule: 'in-place-arithmetic',
        severity: g.atPeakCount > 0 ? 'warning' : 'information',
        device: d.device,
        ...at,
        title: `Short-lived temporaries (up to ${formatBytes(g.maxLiveBytes)} at once) from arithmetic at ${where(at)}`,
        message:
          `${where(at)} made ${g.temporaries} short-lived blocks of up to ${formatBytes(g.largest)} (${formatBytes(g.temporaryBytes)} in all), each the size of a tensor already live (likely its operands) ` +
          `and freed within this line or the next; up to ${g.maxSameSizeInOneExecution} of one size in one execution, ${formatBytes(g.maxLiveBytes)} live at once.${peakNote} ` +
          `Writing the arithmetic in place (x.mul_(a).add_(y, alpha=b), torch.addcmul_ / addcdiv_, or out=) may save up to ${formatBytes(g.maxLiveBytes)} at once` +
          (matmul ? '; a matrix product followed by an addition can be fused with torch.addmm / torch.baddbmm.' : '.') +
          ' In-place updates are unsafe where autograd still needs the old value.',
        evidence: {
          temporaryCount: g.temporaries,
          temporaryBytes: g.temporaryBytes,
          largestTemporaryBytes: g.largest,
          maxSameSizeInOneExecutionCount: g.maxSameSizeInOneExecution,
          savedAtOnceBytes: g.maxLiveBytes,
          liveAtPeakCount: g.atPeakCount,
          liveAtPeakBytes: g.atPeakBytes,
          firstEvent: g.firstEvent,
        },
        fix: 'in-place-operator',
      });
    }
    return findings.sort((a, b) => Number(b.evidence.savedAtOnceBytes) - Number(a.evidence.savedAtOnceBytes));
  },
};
