/**
 * The what-if panel's answers (src/extension/whatIf/whatIfRequests.ts), free of vscode: over a
 * worker that runs the core in-process (as the analysis worker does), on a corpus snapshot, the panel
 * gets the self-check then the table, and a question gets the core's prediction; a malformed question,
 * settings PyTorch would refuse and a closed snapshot get errors.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { snapshotFromBytes } from '../../../../src/engine/decode/load';
import { encodePickle } from '../../../../src/engine/pickle/encoder';
import { SnapshotSession } from '../../../../src/engine/session/session';
import type { WhatIfBackend } from '../../../../src/extension/whatIf/whatIfRequests';
import { answerPredict, describeSubject } from '../../../../src/extension/whatIf/whatIfRequests';
import type { HostToWhatIf } from '../../../../src/protocol/whatIf';
import type { QueryName } from '../../../../src/runtime/worker/methods';
import { dispatch } from '../../../../src/runtime/worker/methods';
import { corpusDir, corpusMissing } from '../../../helpers/corpus';

const GiB = 2 ** 30;

describe('what-if host answers', { skip: corpusMissing }, () => {
  const bytes = corpusMissing ? new Uint8Array(0) : readFileSync(path.join(corpusDir, 'wedsonlin-cs336-medium-512-training.pickle'));
  const session = corpusMissing ? undefined : new SnapshotSession(snapshotFromBytes(bytes), bytes.byteLength, {});
  const asked: string[] = [];
  const backend: WhatIfBackend = {
    worker: (id) =>
      id === 's1' && session
        ? (method, params) => {
            asked.push(method);
            // Every call here is a query (`load` is the worker's own): `dispatch` answers it as the worker does.
            return Promise.resolve(dispatch(method as QueryName, params as never, { session, progress: () => undefined }) as never);
          }
        : undefined,
    mapped: (files) => Promise.resolve(files.filter((f) => f.endsWith('model.py'))),
  };
  const subject = { snapshotId: 's1', device: 0 };

  it('the self-check first, then the table with the files of its OOMs found on this machine', async () => {
    const posted: HostToWhatIf[] = [];
    await describeSubject(subject, backend, (m) => posted.push(m));
    assert.deepEqual(posted.map((m) => m.type), ['check', 'table']);
    const [check, table] = posted as [Extract<HostToWhatIf, { type: 'check' }>, Extract<HostToWhatIf, { type: 'table' }>];
    assert.equal(check.check.check.allocations, 7591);
    assert.deepEqual(table.table.gpuSizesBytes, [8, 12, 16, 24, 40, 48, 80].map((g) => g * GiB));
    const oomFiles = new Set(table.table.rows.flatMap((r) => r.cells.flatMap((c) => (c.oom?.file ? [c.oom.file] : []))));
    assert.deepEqual(new Set(table.mapped), new Set([...oomFiles].filter((f) => f.endsWith('model.py'))));
    await assert.rejects(describeSubject({ snapshotId: 'gone', device: 0 }, backend, () => undefined), /no longer loaded/);
  });

  it('where the replay does not apply (a trace that allocates more than its segments reserve), the check alone, and no prediction (issue 29)', async () => {
    const frames = [{ filename: '/home/u/train.py', line: 3, name: 'train' }];
    const markup = encodePickle({ segments: [], device_traces: [[{ action: 'alloc', addr: 0x7f0000000000, size: GiB, stream: 0, time_us: 1, frames }]] });
    const unknown = new SnapshotSession(snapshotFromBytes(markup), markup.byteLength, {});
    const other: WhatIfBackend = {
      worker: () => (method, params) => Promise.resolve(dispatch(method as QueryName, params as never, { session: unknown, progress: () => undefined }) as never),
      mapped: () => Promise.resolve([]),
    };
    const posted: HostToWhatIf[] = [];
    await describeSubject(subject, other, (m) => posted.push(m));
    assert.deepEqual(posted.map((m) => m.type), ['check']);
    const answer = await answerPredict(3, { capacityBytes: 8 * GiB, allocConf: '', memoryFraction: null }, subject, other);
    assert.equal(answer.type, 'error');
    assert.match(answer.type === 'error' ? answer.message : '', /^No prediction: The trace records allocations but no memory segment/);
  });

  it('a prediction is the core\'s for the question asked', async () => {
    const answer = await answerPredict(7, { capacityBytes: 8 * GiB, allocConf: 'max_split_size_mb:64', memoryFraction: null }, subject, backend);
    assert.equal(answer.type, 'prediction');
    if (answer.type !== 'prediction') return;
    const expected = session!.allocator(0).whatIf({ allocConf: 'max_split_size_mb:64', capacity: 8 * GiB }, session!.analysis.lineIndex);
    assert.deepEqual(answer.result, expected);
    assert.equal(answer.requestId, 7);
    assert.deepEqual(answer.mapped, expected.oom?.file?.endsWith('model.py') ? [expected.oom.file] : []);
  });

  it('errors: a malformed question (not asked), settings PyTorch refuses (its reason), a closed snapshot', async () => {
    asked.length = 0;
    const malformed = await answerPredict(1, { capacityBytes: -5, allocConf: '', memoryFraction: null }, subject, backend);
    assert.deepEqual([malformed.type, asked.length], ['error', 0]);
    const refused = await answerPredict(2, { capacityBytes: null, allocConf: 'expandable_segments:Maybe', memoryFraction: null }, subject, backend);
    assert.equal(refused.type, 'error');
    assert.match(refused.type === 'error' ? refused.message : '', /expandable_segments takes True or False/);
    const gone = await answerPredict(3, { capacityBytes: null, allocConf: '', memoryFraction: null }, { snapshotId: 'gone', device: 0 }, backend);
    assert.deepEqual(gone, { type: 'error', requestId: 3, message: 'This snapshot is no longer loaded.' });
  });
});
