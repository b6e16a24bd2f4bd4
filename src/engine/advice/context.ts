/**
 * What every advice rule reads: one device's replay and per-line figures, plus cached questions
 * about stacks (their user line, whether a frame of some kind is in them) and about the whole run.
 */
import type { WhatIfBasis } from '../allocator/whatIf';
import { whatIfBasis } from '../allocator/whatIf';
import type { Analysis, DeviceAnalysis } from '../analysis/analyze';
import type { SourceLine } from '../analysis/lineIndex';
import { NO_LINE } from '../analysis/lineIndex';
import { traceOf } from '../analysis/replay';
import { attributingStack } from '../analysis/liveAtPeak';
import { PythonSource } from '../python/pythonSource';
import type { GradModeSwitch } from '../python/pythonSource';
import type { FileTextProvider, LineTextProvider } from '../paths/sourceText';
import type { CellPlaces } from '../paths/places';
import { fileTextFromLines } from '../paths/sourceText';
import type { DeviceTrace, Frame, Snapshot } from '../snapshot/model';
import { NO_STACK } from '../snapshot/model';
import { isAutocastFrame, isBackwardFrame, isForwardFrame, isGradModeDecoratorFrame, isOptimizerFrame, isTrainingFunctionFrame } from './frames';
import { formatCount } from '../text/format';

export type FramePredicate = (frame: Frame) => boolean;

/** Facts about the whole snapshot (every device, every stack recorded in the trace or segments). */
export interface RunFacts {
  readonly hasBackward: boolean;
  readonly hasForward: boolean;
  readonly hasOptimizer: boolean;
  readonly hasAutocast: boolean;
  readonly hasGradModeDecorator: boolean;
  /** A function named like a training loop or step is on some stack. */
  readonly hasTrainingFunction: boolean;
}

export class AdviceContext {
  readonly snapshot: Snapshot;
  readonly trace: DeviceTrace;
  private readonly stackMemo = new Map<FramePredicate, Int8Array>();
  private facts: RunFacts | undefined;
  private userFrames: Set<Frame> | undefined;
  private readonly sources: SourceCache;
  private readonly gradSwitches = new Map<number, GradModeSwitch | undefined>();

  private basis: WhatIfBasis | undefined;

  constructor(
    readonly analysis: Analysis,
    readonly device: DeviceAnalysis,
    /** Source text of user lines, when the caller can read them (for wording and quick fixes). */
    readonly lineText?: LineTextProvider,
    /** Parsed sources, shared by the devices of one run of the advisor. */
    sources?: SourceCache,
    /** The notebook cells of recorded cell files, for naming their lines (`where`). */
    readonly places?: CellPlaces,
    /** The allocator replay's basis of a device, when the caller already holds it (a worker session does). */
    private readonly allocatorBasis?: (device: number) => WhatIfBasis,
  ) {
    this.snapshot = analysis.snapshot;
    this.trace = traceOf(analysis.snapshot, device.device);
    this.sources = sources ?? new SourceCache(lineText ? fileTextFromLines(lineText) : undefined);
  }

  /** The caching allocator replayed over this device's trace (its self-check, and what predictions need); worked out on first use. */
  allocator(): WhatIfBasis {
    this.basis ??= this.allocatorBasis?.(this.device.device) ?? whatIfBasis(this.snapshot, this.device.device, this.analysis.lineIndex);
    return this.basis;
  }

  /**
   * An event of this device's trace as the recording numbers it, for words: "1,005,497" (a loaded
   * window's events count from its first; evidence keeps the indices of the loaded trace).
   */
  eventName(i: number): string {
    return formatCount((this.trace.window?.firstEvent ?? 0) + i);
  }

  /** The parsed source of a file named in the snapshot, when its text is known. */
  source(file: string): PythonSource | undefined {
    return this.sources.get(file);
  }

  /**
   * The grad-mode switch in force where a stack's allocation happened, read from the source of
   * each user frame, innermost first (a `with torch.no_grad():` around the call, a decorated
   * function, `torch.set_grad_enabled(False)` earlier in the script). Memoised per stack.
   */
  gradSwitchOf(stack: number): GradModeSwitch | undefined {
    if (stack === NO_STACK) return undefined;
    if (this.gradSwitches.has(stack)) return this.gradSwitches.get(stack);
    let found: GradModeSwitch | undefined;
    for (const frame of this.frames(stack)) {
      if (typeof frame.line !== 'number' || !this.isUserFrame(frame)) continue;
      found = this.source(frame.filename)?.gradModeAt(frame.line);
      if (found) break;
    }
    this.gradSwitches.set(stack, found);
    return found;
  }

  /** The self (innermost user) line of a stack. Lines beyond 2^53 are not real lines: undefined. */
  lineOf(stack: number): (SourceLine & { readonly line: number }) | undefined {
    if (stack === NO_STACK) return undefined;
    const id = this.analysis.lineIndex.selfLine[stack];
    if (id === NO_LINE) return undefined;
    const l = this.analysis.lineIndex.lines[id];
    return typeof l.line === 'number' ? (l as SourceLine & { line: number }) : undefined;
  }

  /** Self line id of a stack, or NO_LINE. */
  lineIdOf(stack: number): number {
    return stack === NO_STACK ? NO_LINE : this.analysis.lineIndex.selfLine[stack];
  }

  frames(stack: number): Frame[] {
    if (stack === NO_STACK) return [];
    return this.snapshot.stacks[stack].map((f) => this.snapshot.frames[f]);
  }

  /** Whether the frame is the user's code under the analysis' frame filter. */
  isUserFrame(frame: Frame): boolean {
    if (!this.userFrames) {
      const frameLine = this.analysis.lineIndex.frameLine;
      this.userFrames = new Set(this.snapshot.frames.filter((_, id) => frameLine[id] !== NO_LINE));
    }
    return this.userFrames.has(frame);
  }

  /** Whether any frame of the stack satisfies the predicate (memoised per predicate). */
  stackHas(stack: number, predicate: FramePredicate): boolean {
    if (stack === NO_STACK) return false;
    let memo = this.stackMemo.get(predicate);
    if (!memo) {
      memo = new Int8Array(this.snapshot.stacks.length).fill(-1);
      this.stackMemo.set(predicate, memo);
    }
    if (memo[stack] < 0) memo[stack] = this.snapshot.stacks[stack].some((f) => predicate(this.snapshot.frames[f])) ? 1 : 0;
    return memo[stack] === 1;
  }

  /** Backward passes, optimizer steps or training functions: this run trains. */
  get isTraining(): boolean {
    const f = this.runFacts;
    return f.hasBackward || f.hasOptimizer || f.hasTrainingFunction;
  }

  get runFacts(): RunFacts {
    if (!this.facts) {
      const used = new Set<number>();
      for (const t of this.snapshot.traces) for (let i = 0; i < t.length; i++) if (t.stack[i] !== NO_STACK) used.add(t.stack[i]);
      for (const s of this.snapshot.segments) for (const b of s.blocks) if (b.stack !== NO_STACK) used.add(b.stack);
      const any = (p: FramePredicate) => [...used].some((s) => this.stackHas(s, p));
      this.facts = {
        hasBackward: any(isBackwardFrame),
        hasForward: any(isForwardFrame),
        hasOptimizer: any(isOptimizerFrame),
        hasAutocast: any(isAutocastFrame),
        hasGradModeDecorator: any(isGradModeDecoratorFrame),
        hasTrainingFunction: any(isTrainingFunctionFrame),
      };
    }
    return this.facts;
  }
}

/** Sum of record sizes grouped by the self line of their stacks, largest first. */
export function bytesByLine(ctx: AdviceContext, records: readonly number[]): { file: string; line: number; bytes: number; count: number }[] {
  const byLine = new Map<number, { file: string; line: number; bytes: number; count: number }>();
  const r = ctx.device.allocations;
  for (const i of records) {
    const stack = attributingStack(r, i);
    const id = ctx.lineIdOf(stack);
    if (id === NO_LINE) continue;
    const where = ctx.lineOf(stack);
    if (!where) continue;
    const entry = byLine.get(id) ?? { file: where.file, line: where.line, bytes: 0, count: 0 };
    entry.bytes += r.sizeOf(i);
    entry.count += 1;
    byLine.set(id, entry);
  }
  return [...byLine.values()].sort((a, b) => b.bytes - a.bytes || a.line - b.line);
}

/** Each source file parsed once (files that are not Python, or unknown, are undefined). */
export class SourceCache {
  private readonly parsed = new Map<string, PythonSource | undefined>();

  constructor(private readonly fileText?: FileTextProvider) {}

  get(file: string): PythonSource | undefined {
    if (!this.fileText || !file.endsWith('.py')) return undefined;
    if (!this.parsed.has(file)) {
      const text = this.fileText(file);
      this.parsed.set(file, text === undefined ? undefined : PythonSource.parse(text));
    }
    return this.parsed.get(file);
  }
}
