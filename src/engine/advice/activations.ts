/**
 * Memory live at the peak, sorted into what it was for, as the frames tell it: activations
 * (made under a module's forward), optimizer state, model set-up, gradients (made in backward).
 * And the module calls that activations were made under, for checkpointing advice.
 */
import { liveAfter } from '../analysis/replay';
import { attributingStack } from '../analysis/liveAtPeak';
import type { AdviceContext } from './context';
import { isBackwardFrame, isForwardFrame, isGradModeDecoratorFrame, isOptimizerFrame, isSetupFrame } from './frames';
import type { Frame } from '../snapshot/model';

export interface PeakComposition {
  /** Live at the peak, made under a module forward (not under set-up, backward or an optimizer). */
  readonly activationRecords: number[];
  readonly activationBytes: number;
  readonly optimizerRecords: number[];
  readonly setupBytes: number;
  readonly backwardBytes: number;
  /** Live at the peak with no stack at all (often allocated before recording began). */
  readonly unknownBytes: number;
  /** Made under a module forward with gradient recording off (excluded from activations when asked). */
  readonly gradDisabledBytes: number;
}

/** Splits the allocations live at the device's peak by purpose. */
/**
 * With `excludeGradDisabled`, forward blocks made with gradient recording off (under a function
 * decorated with no_grad/inference_mode, as the frames show, or where the source shows a switch on
 * the path) are not activations: no backward will need them.
 */
export function peakComposition(ctx: AdviceContext, options: { excludeGradDisabled?: boolean } = {}): PeakComposition {
  const r = ctx.device.allocations;
  const activationRecords: number[] = [];
  const optimizerRecords: number[] = [];
  let activationBytes = 0;
  let setupBytes = 0;
  let backwardBytes = 0;
  let unknownBytes = 0;
  let gradDisabledBytes = 0;
  for (const i of liveAfter(r, ctx.device.peakEventIndex)) {
    // The analysis' attribution: pre-recording blocks freed in the trace have no stack of their own.
    const stack = attributingStack(r, i);
    const size = r.sizeOf(i);
    if (stack < 0) unknownBytes += size;
    else if (ctx.stackHas(stack, isOptimizerFrame)) optimizerRecords.push(i);
    else if (ctx.stackHas(stack, isSetupFrame)) setupBytes += size;
    else if (ctx.stackHas(stack, isBackwardFrame)) backwardBytes += size;
    else if (ctx.stackHas(stack, isForwardFrame)) {
      if (options.excludeGradDisabled && (ctx.stackHas(stack, isGradModeDecoratorFrame) || ctx.gradSwitchOf(stack)?.enabled === false)) {
        gradDisabledBytes += size;
        continue;
      }
      activationRecords.push(i);
      activationBytes += size;
    }
  }
  return { activationRecords, activationBytes, optimizerRecords, setupBytes, backwardBytes, unknownBytes, gradDisabledBytes };
}

/** A line of user code that calls a module (`self.block(x)`, `model(x)`): where checkpointing could wrap. */
export interface ModuleCall {
  readonly file: string;
  readonly line: number;
  /** The function the call is in (`forward` for a submodule call inside a parent module). */
  readonly caller: string;
  /** Bytes of the given records made inside this call. */
  bytes: number;
  records: number;
  /** `file\u0000line` keys of the module calls this one ran inside (in some stack). */
  readonly inside: Set<string>;
}

/** The key of a module call in `ModuleCall.inside`. */
export function moduleCallKey(c: { file: string; line: number }): string {
  return `${c.file}\u0000${String(c.line)}`;
}

/**
 * The user lines in a stack that call into a module: a user frame whose next inner user frame is
 * a `forward`, reached directly (compiled code) or through `nn.Module.__call__`. Outermost last.
 */
export function moduleCallsIn(frames: readonly Frame[], isUser: (frame: Frame) => boolean): Frame[] {
  const calls: Frame[] = [];
  let innerUser: Frame | undefined;
  let sawCallImpl = false;
  for (const frame of frames) {
    if (isUser(frame)) {
      if (innerUser && typeof frame.line === 'number' && (innerUser.name === 'forward' || sawCallImpl)) calls.push(frame);
      innerUser = frame;
      sawCallImpl = false;
    } else if (frame.name === '_call_impl') {
      sawCallImpl = true;
    }
  }
  return calls;
}

/** Module call lines ranked by the bytes of `records` made inside them. */
export function rankModuleCalls(ctx: AdviceContext, records: readonly number[]): ModuleCall[] {
  const byLine = new Map<string, ModuleCall>();
  const callsOfStack = new Map<number, Frame[]>();
  const r = ctx.device.allocations;
  for (const i of records) {
    const stack = r.stackOf(i);
    let calls = callsOfStack.get(stack);
    if (!calls) {
      calls = moduleCallsIn(ctx.frames(stack), (f) => ctx.isUserFrame(f));
      callsOfStack.set(stack, calls);
    }
    const seen = new Set<string>();
    const keys = calls.map((f) => moduleCallKey({ file: f.filename, line: f.line as number }));
    for (const [j, f] of calls.entries()) {
      const key = keys[j];
      if (seen.has(key)) continue;
      seen.add(key);
      const entry = byLine.get(key) ?? { file: f.filename, line: f.line as number, caller: f.name, bytes: 0, records: 0, inside: new Set<string>() };
      entry.bytes += r.sizeOf(i);
      entry.records += 1;
      for (const outer of keys.slice(j + 1)) if (outer !== key) entry.inside.add(outer);
      byLine.set(key, entry);
    }
  }
  return [...byLine.values()].sort((a, b) => b.bytes - a.bytes || a.line - b.line);
}
