/**
 * Arithmetic that allocates a new tensor where an in-place form exists. Evidence from both sides,
 * silent when either is missing:
 * - the snapshot: the line allocated blocks of the size of a tensor already live (its operand)
 *   that were freed within the line or the next (temporaries), or while the line ran a block of
 *   that size made earlier was freed (the old value of `x` in `x = x / s`: a replacement);
 * - the source: the statement is + - * / arithmetic with an in-place form (`x = x op y`,
 *   `x = a * x + b`, `x op= a * b / c`), read from its syntax tree; never a matrix product.
 *
 * What the in-place form avoids depends on the form: `x.op_(y)` writes into the old `x` instead of
 * a new block, so of `x = x op y` it avoids the replacement only (whatever `y` allocates, it still
 * does); `x.mul_(a).add_(b)` avoids every operand-sized block of `x = a * x + b`; a fused
 * `x.addcdiv_(...)` avoids the temporaries of `x -= a * m / d`. What the peak would lose is
 * computed on the trace: the device's active bytes replayed with those blocks' lifetimes cut as the
 * in-place form would (a replacement is not held from its allocation until the old value's free; a
 * temporary not at all), and the new highest point compared with the peak. Every figure about the
 * line comes from the same analysis as its table (live at the peak: `DeviceAnalysis.lines`).
 *
 * The quick fix (`x = x op y` -> `x.op_(y)`) is offered only where `inPlaceSafety` proves the tensor
 * belongs to the function and nothing else reads its old value, and the trace shows the result the
 * size of the old value (so the in-place call keeps shape and element type); otherwise the finding
 * says why no fix is offered.
 *
 * One pass over the trace; memory is bounded by the live blocks, the lines and the avoided blocks of
 * the lines with a form, not the events.
 */
import { NO_LINE } from '../../analysis/lineIndex';
import { HeldSpans } from '../../analysis/peakWithout';
import { BEFORE_TRACE, NEVER_FREED } from '../../analysis/replay';
import { isSourceFrame } from '../../analysis/frameFilter';
import { formatBytes } from '../../text/format';
import { inPlaceFormAt } from '../../python/inPlaceForm';
import type { InPlaceForm } from '../../python/inPlaceForm';
import type { InPlaceVerdict } from '../../python/inPlaceSafety';
import { inPlaceSafety } from '../../python/inPlaceSafety';
import { Action } from '../../snapshot/model';
import type { AdviceContext } from '../context';
import type { Finding } from '../finding';
import { isBackwardFrame } from '../frames';
import type { AdviceRule } from '../rule';
import { counted, where } from '../rule';
import { FIGURE } from '../../analysis/lineFigures';

/** Blocks smaller than this are not "large tensors". */
export const MIN_TEMPORARY_BYTES = 1024 * 1024;
/** A finding needs at least this much avoided memory in one execution of the line to be worth the reader's time... */
export const MIN_SAVING_BYTES = 32 * 1024 * 1024;
/** ...or this share of the device's peak. */
export const MIN_SAVING_SHARE = 0.01;

interface Group {
  readonly lineId: number;
  readonly form: InPlaceForm;
  /** A stack of the line's allocations (where grad mode is read). */
  readonly stack: number;
  /** Operand-sized blocks the line allocated, by how they went. */
  temporaries: number;
  replacements: number;
  /** Blocks the in-place form would not allocate, and their bytes. */
  avoided: number;
  avoidedBytes: number;
  largest: number;
  /** Most avoided bytes in one execution of the line. */
  maxInOneExecutionBytes: number;
  tallyExecution: number;
  tallyBytes: number;
  firstEvent: number;
  /** The avoided blocks' lifetimes, as the in-place form would cut them. */
  readonly spans: HeldSpans;
}

/** A live block made by a candidate line, operand-sized. */
interface Made {
  readonly group: Group;
  readonly execution: number;
  readonly event: number;
  readonly size: number;
  counted: boolean;
  /** The last operand-sized block its execution made so far: for `x = x op y`, the result. */
  last: boolean;
}

/** Allocated by the user line itself, not by library Python code it called (torch's own operators excepted). */
function allocatesDirectly(ctx: AdviceContext, stack: number): boolean {
  for (const frame of ctx.frames(stack)) {
    if (ctx.isUserFrame(frame)) return true;
    if (isSourceFrame(frame) && !frame.filename.replace(/\\/g, '/').endsWith('/torch/_tensor.py')) return false;
  }
  return false;
}

/**
 * Whether the form avoids a block that went this way: `x.op_(y)` avoids only the result of
 * `x op y` (made last in its execution; a replacement, or a temporary when the old value lives on
 * elsewhere), not what `y` allocates; a fused update avoids the temporaries; a chain, all of them.
 */
function avoids(form: InPlaceForm, m: Made, as: 'temporary' | 'replacement'): boolean {
  if (form.kind === 'binary') return as === 'replacement' || m.last;
  if (form.kind === 'update') return as === 'temporary';
  return true;
}

function avoidedText(form: InPlaceForm): string {
  if (form.kind === 'binary') return `the result of \`${form.statement.replace(/^[^=]*=\s*/, '')}\`, which \`${form.suggestion}\` would write into the old block of ${form.target} instead`;
  if (form.kind === 'update') return 'temporaries of the right-hand side freed within the line or the next, which one fused call would not make';
  return 'temporaries freed within the line or the next and the result that replaced the old value, which in-place calls on the old block would not make';
}

export const inPlaceArithmetic: AdviceRule = {
  id: 'in-place-arithmetic',
  label: 'in-place op',
  run(ctx) {
    const t = ctx.trace;
    const d = ctx.device;
    const r = d.allocations;

    // The source side first: lines whose statement has an in-place form (memoised per line id).
    const forms = new Map<number, InPlaceForm | undefined>();
    const formOf = (lineId: number): InPlaceForm | undefined => {
      if (forms.has(lineId)) return forms.get(lineId);
      const l = ctx.analysis.lineIndex.lines[lineId];
      const src = typeof l.line === 'number' ? ctx.source(l.file) : undefined;
      const form = src && typeof l.line === 'number' ? inPlaceFormAt(src, l.line) : undefined;
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
      liveSize.set(r.addrOf(k), r.sizeOf(k));
      bump(r.sizeOf(k), 1);
    }
    const made = new Map<number, Made>();
    // The line now running, and its execution (a consecutive run of events of one line).
    let execution = 0;
    let current = NO_LINE;
    // Operand-sized blocks this execution made and not yet counted, by size.
    let waiting = new Map<number, Made[]>();
    let lastMade: Made | undefined;
    const groups = new Map<number, Group>();

    /** Counts a block the line made; `until` is where the in-place form would stop holding it (exclusive). */
    const count = (m: Made, as: 'temporary' | 'replacement', until: number) => {
      if (m.counted) return;
      m.counted = true;
      const g = m.group;
      if (as === 'temporary') g.temporaries++;
      else g.replacements++;
      if (!avoids(g.form, m, as)) return;
      g.avoided++;
      g.avoidedBytes += m.size;
      g.largest = Math.max(g.largest, m.size);
      g.spans.add(m.event, until, m.size);
      if (g.tallyExecution !== m.execution) {
        g.tallyExecution = m.execution;
        g.tallyBytes = 0;
      }
      g.tallyBytes += m.size;
      g.maxInOneExecutionBytes = Math.max(g.maxInOneExecutionBytes, g.tallyBytes);
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
        if (line === NO_LINE || size < MIN_TEMPORARY_BYTES || operands <= 0 || !isCandidateStack(stack)) continue;
        const form = formOf(line);
        if (!form) continue;
        let g = groups.get(line);
        if (!g) {
          g = { lineId: line, form, stack, temporaries: 0, replacements: 0, avoided: 0, avoidedBytes: 0, largest: 0, maxInOneExecutionBytes: 0, tallyExecution: -1, tallyBytes: 0, firstEvent: i, spans: new HeldSpans() };
          groups.set(line, g);
        }
        const m: Made = { group: g, execution, event: i, size, counted: false, last: true };
        if (lastMade && lastMade.execution === execution) lastMade.last = false;
        lastMade = m;
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
      // replaced (`x = x / s` frees the old x) by the latest such block (the result is made last).
      // Checked first: the old value may itself have been made by the line before. In place, the
      // old block would have been written instead, so the new one is not held until now.
      const list = waiting.get(freedSize);
      if (list && list.length > 0 && (!mine || mine.execution !== execution)) {
        count(list.pop()!, 'replacement', i);
        continue;
      }
      // Freed within its own execution or the next line's: a temporary, not held at all in place.
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
      if (typeof source.line !== 'number') continue;
      findings.push(finding(ctx, g, { file: source.file, line: source.line }));
    }
    return findings.sort((a, b) => Number(b.evidence.peakSavingBytes) - Number(a.evidence.peakSavingBytes) || Number(b.evidence.savedInOneExecutionBytes) - Number(a.evidence.savedInOneExecutionBytes));
  },
};

function finding(ctx: AdviceContext, g: Group, at: { file: string; line: number }): Finding {
  const d = ctx.device;
  const form = g.form;
  // The line's own figures, from its table.
  const table = d.lines.find((l) => l.lineId === g.lineId);
  const lineLive = table?.[FIGURE.heldAtPeak] ?? 0;
  const lineLiveBlocks = d.liveAtPeak.filter((b) => ctx.lineIdOf(b.stack) === g.lineId).length;
  // What the peak would lose: the trace replayed with the avoided blocks' lifetimes cut.
  const peakAfter = g.spans.peakWithout(d);
  const saving = Math.max(0, d.peakBytes - peakAfter);

  const gradSwitch = ctx.gradSwitchOf(g.stack) ?? ctx.source(at.file)?.gradModeAt(at.line);
  const gradDisabled = gradSwitch?.enabled === false;
  const src = ctx.source(at.file);
  // A PyTorch memory snapshot records a CUDA device; one VRAM Lens wrote from its own run may not.
  const ranOnCuda = ctx.snapshot.producer === undefined;
  const verdict: InPlaceVerdict = src ? inPlaceSafety(src, form, { gradDisabled, ranOnCuda }) : { safe: false, reason: 'the source of the line could not be read' };
  const sameSize = g.replacements > 0;
  const offered = form.kind === 'binary' && form.edit !== undefined && verdict.safe && sameSize;

  const peakText =
    d.peakEventIndex < 0
      ? 'The device\'s peak is its state before the first recorded event, which no line changes.'
      : saving > 0
        ? `Replaying the trace without them lowers the device's peak by ${formatBytes(saving)} (from ${formatBytes(d.peakBytes)} to ${formatBytes(peakAfter)}); the line holds ${formatBytes(lineLive)} at the peak (event ${ctx.eventName(d.peakEventIndex)}), ${counted(lineLiveBlocks, 'block')}.`
        : `The line holds ${formatBytes(lineLive)} at the device's peak (event ${ctx.eventName(d.peakEventIndex)}), and replaying the trace without them leaves the peak where it is (${formatBytes(d.peakBytes)}): the saving is while the line runs, not at the peak.`;
  const advice = offered
    ? `${form.target} belongs to this function and nothing else reads its old value, so its memory can be reused: consider \`${form.suggestion}\`.`
    : `Consider \`${form.suggestion}\` where nothing else needs the old value of ${form.target}. No quick fix is offered: ${verdict.safe ? 'the trace shows no result of the size of the old value, so the in-place call might change its shape or element type' : verdict.reason}.`;
  const made = [
    g.temporaries > 0 ? counted(g.temporaries, 'temporary', 'temporaries') : '',
    g.replacements > 0 ? `${counted(g.replacements, 'block')} replacing an old one of the same size` : '',
  ].filter((s) => s !== '').join(' and ');

  return {
    rule: 'in-place-arithmetic',
    severity: saving > 0 ? 'warning' : 'information',
    device: d.device,
    ...at,
    title:
      saving > 0
        ? `\`${form.statement}\`: an in-place form may lower the peak by ${formatBytes(saving)}`
        : `\`${form.statement}\` allocates up to ${formatBytes(g.maxInOneExecutionBytes)} per run that an in-place form would not`,
    message:
      `${where(at, ctx.places)} (\`${form.statement}\`) allocated blocks the size of a tensor already live (${made}). ` +
      `${counted(g.avoided, 'of them is', 'of them are')} ${avoidedText(form)}: ${formatBytes(g.avoidedBytes)} in all, the largest ${formatBytes(g.largest)}, up to ${formatBytes(g.maxInOneExecutionBytes)} in one execution. ` +
      `${peakText} ${advice}`,
    evidence: {
      avoidableCount: g.avoided,
      avoidableBytes: g.avoidedBytes,
      largestBlockBytes: g.largest,
      temporaryCount: g.temporaries,
      replacedCount: g.replacements,
      savedInOneExecutionBytes: g.maxInOneExecutionBytes,
      peakSavingBytes: saving,
      peakAfterBytes: peakAfter,
      peakBytes: d.peakBytes,
      // The timeline marks the peak for this finding only where the in-place form lowers it.
      ...(d.peakEventIndex < 0 || saving <= 0 ? {} : { peakEvent: d.peakEventIndex }),
      lineLiveAtPeakBytes: lineLive,
      lineLiveAtPeakBlockCount: lineLiveBlocks,
      firstEvent: g.firstEvent,
    },
    lineFigures: [
      { ...at, figure: FIGURE.heldAtPeak, relation: 'equals', value: lineLive },
      // Cutting the line's own blocks cannot lower the peak by more than the line holds there.
      { ...at, figure: FIGURE.heldAtPeak, relation: 'atMost', value: saving },
      { ...at, figure: FIGURE.allocated, relation: 'atMost', value: g.avoidedBytes },
      { ...at, figure: FIGURE.allocations, relation: 'atMost', value: g.avoided },
    ],
    ...(offered ? { fix: 'in-place-operator' as const } : {}),
    ...(gradDisabled ? { gradDisabled } : {}),
    ...(ranOnCuda ? { ranOnCuda } : {}),
  };
}
