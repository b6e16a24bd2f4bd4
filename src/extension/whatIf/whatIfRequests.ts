/**
 * The what-if panel's answers, free of `vscode`: what the panel shows for a snapshot's device (the
 * self-check, then the table over GPU sizes) and the prediction for a question, each from the
 * snapshot's worker (src/runtime/worker/methods.ts: allocatorCheck, allocatorWhatIfTable,
 * allocatorWhatIf). A question from the page is checked again here (`checkedQuestion`); settings
 * PyTorch would refuse come back from the worker as an error with PyTorch's reason.
 */
import type { WhatIfOom } from '../../engine/allocator/whatIf';
import { errorMessage } from '../../engine/base/errors';
import type { HostToWhatIf, WhatIfQuestion } from '../../protocol/whatIf';
import { checkedQuestion } from '../../guards/whatIf';
import type { WorkerCall } from '../../protocol/worker';

export interface WhatIfBackend {
  /** The worker of a loaded snapshot; undefined when it is no longer loaded. */
  worker(snapshotId: string): WorkerCall | undefined;
  /** Which of these recorded files are on this machine (their lines are links). */
  mapped(files: readonly string[]): Promise<readonly string[]>;
}

/** The snapshot and device a panel shows. */
export interface WhatIfSubject {
  readonly snapshotId: string;
  readonly device: number;
}

function files(ooms: readonly (WhatIfOom | null)[]): string[] {
  return [...new Set(ooms.flatMap((o) => (o?.file ? [o.file] : [])))];
}

/** Posts the self-check of the subject, then its table (the table can take seconds on a large trace). */
export async function describeSubject(subject: WhatIfSubject, backend: WhatIfBackend, post: (m: HostToWhatIf) => void): Promise<void> {
  const call = backend.worker(subject.snapshotId);
  if (!call) throw new Error('This snapshot is no longer loaded.');
  const { snapshotId, device } = subject;
  const check = await call('allocatorCheck', { device });
  post({ type: 'check', snapshotId, device, check });
  // Where the replay does not apply, its predictions do not either (the check says why): no table.
  if (check.notReplayable !== undefined) return;
  const table = await call('allocatorWhatIfTable', { device });
  const mapped = await backend.mapped(files(table.rows.flatMap((r) => r.cells.map((c) => c.oom))));
  post({ type: 'table', snapshotId, device, table, mapped });
}

/** The answer to a `predict`: the prediction, or an `error` saying what was wrong. */
export async function answerPredict(requestId: number, raw: unknown, subject: WhatIfSubject, backend: WhatIfBackend): Promise<HostToWhatIf> {
  const question: WhatIfQuestion | undefined = checkedQuestion(raw);
  if (!question) return { type: 'error', requestId, message: 'That question is malformed: a capacity in bytes, the options as text and a fraction in (0, 1].' };
  const call = backend.worker(subject.snapshotId);
  if (!call) return { type: 'error', requestId, message: 'This snapshot is no longer loaded.' };
  try {
    const check = await call('allocatorCheck', { device: subject.device });
    if (check.notReplayable !== undefined) return { type: 'error', requestId, message: `No prediction: ${check.notReplayable}` };
    const result = await call('allocatorWhatIf', {
      device: subject.device,
      allocConf: question.allocConf === '' ? undefined : question.allocConf,
      capacity: question.capacityBytes ?? undefined,
      memoryFraction: question.memoryFraction ?? undefined,
    });
    return { type: 'prediction', requestId, question, result, mapped: await backend.mapped(files([result.oom])) };
  } catch (e) {
    return { type: 'error', requestId, message: errorMessage(e) };
  }
}
