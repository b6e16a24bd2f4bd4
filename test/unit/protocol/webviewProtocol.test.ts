/**
 * The webview protocols (src/protocol), their one message guard, the hosts' command allowlists
 * built from `Commands`, the timeline host's request routing (vscode-free) and the timeline page's
 * request bookkeeping. Expected values are written out by hand.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { MethodName, ParamsOf, ResultOf, WorkerCall } from '../../../src/protocol/worker';
import { Commands } from '../../../src/extension/shared/commandIds';
import { answerTimelineRequest, MAX_OOMS, requestIdOf, sanitizeAllocatorSpanRequest, sanitizeSpanRequest, SEGMENT_MAP_BLOCKS } from '../../../src/extension/timeline/timelineRequests';
import type { TimelineBackend } from '../../../src/extension/timeline/timelineRequests';
import { commandAllowlist } from '../../../src/extension/shared/webviewCommands';
import { isCompareToHost, isHostToCompare } from '../../../src/guards/compare';
import { describeRefused, messageGuard } from '../../../src/guards/messageGuard';
import { isHostToSummary, isSummaryToHost } from '../../../src/guards/summary';
import { isOpenLine } from '../../../src/guards/openLine';
import { openLine } from '../../../webview/shared/openLine';
import type { TimelineRequest } from '../../../src/protocol/timeline';
import { isHostToTimeline, isTarget, isTimelineRequest, isTimelineToHost } from '../../../src/guards/timeline';
import type { TimelineAnswer } from '../../../webview/timeline/requests/requests';
import { Requests } from '../../../webview/timeline/requests/requests';

describe('webview protocols: the message guard', () => {
  it('accepts the listed types and nothing else', () => {
    const guard = messageGuard<{ type: 'a' } | { type: 'b'; n: number }>({ a: true, b: true });
    assert.equal(guard({ type: 'a' }), true);
    assert.equal(guard({ type: 'b', n: 1 }), true);
    assert.equal(guard({ type: 'c' }), false);
    // Names every object has are not message types.
    for (const type of ['toString', 'constructor', '__proto__', 'hasOwnProperty']) assert.equal(guard({ type }), false, type);
    for (const value of [null, undefined, 'a', 1, [], { type: 1 }, { kind: 'a' }]) assert.equal(guard(value), false, JSON.stringify(value) ?? 'undefined');
  });
  it('guards each direction of each page', () => {
    assert.equal(isTimelineToHost({ type: 'ready' }), true);
    assert.equal(isTimelineToHost({ type: 'eval', code: '1' }), false);
    assert.equal(isHostToTimeline({ type: 'span', requestId: 1 }), true);
    assert.equal(isHostToTimeline({ type: 'ready' }), false);
    assert.equal(isSummaryToHost({ type: 'openLine', file: 'a.py', line: 3 }), true);
    assert.equal(isSummaryToHost({ type: 'summary' }), false);
    assert.equal(isHostToSummary({ type: 'summary' }), true);
    assert.equal(isHostToSummary({ type: 'annotate' }), false);
    assert.equal(isSummaryToHost({ type: 'whatIf', device: 0 }), true);
    assert.equal(isHostToSummary({ type: 'allocator' }), true);
    assert.equal(isSummaryToHost({ type: 'allocator' }), false);
    assert.equal(isCompareToHost({ type: 'setAxis', axis: 'time' }), true);
    assert.equal(isCompareToHost({ type: 'comparison' }), false);
    assert.equal(isHostToCompare({ type: 'overlay' }), true);
    assert.equal(isHostToCompare({ type: 'openLine' }), false);
  });
  it('describes a refused message briefly', () => {
    assert.equal(describeRefused({ type: 'x' }), '{"type":"x"}');
    assert.equal(describeRefused({ s: 'y'.repeat(500) }).length, 203);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    assert.equal(describeRefused(cyclic), '[object Object]');
  });
  it('checks targets', () => {
    assert.equal(isTarget({ snapshotId: 's', device: 0 }), true);
    assert.equal(isTarget({ snapshotId: 's', device: 0.5 }), false);
    assert.equal(isTarget({ snapshotId: 1, device: 0 }), false);
  });
});

describe('webview protocols: opening a line', () => {
  it('is one message, `openLine`, that every page may send and no page receives', () => {
    const m = openLine({ file: '/w/model.py', line: 39 });
    assert.deepEqual(m, { type: 'openLine', file: '/w/model.py', line: 39 });
    for (const [page, guard] of [['timeline', isTimelineToHost], ['summary', isSummaryToHost], ['compare', isCompareToHost]] as const) assert.equal(guard(m), true, page);
    for (const [page, guard] of [['timeline', isHostToTimeline], ['summary', isHostToSummary], ['compare', isHostToCompare]] as const) assert.equal(guard(m), false, page);
    // The shapes it replaced are gone.
    assert.equal(isTimelineToHost({ type: 'openSource', file: 'a.py', line: 3 }), false);
  });
  it('checks its fields: a non-empty path and a whole line number', () => {
    assert.equal(isOpenLine({ type: 'openLine', file: 'a.py', line: 3 }), true);
    // A recorded line beyond 2^53 arrives as a (rounded) whole number: accepted, the host clamps it.
    assert.equal(isOpenLine({ type: 'openLine', file: 'a.py', line: 2 ** 64 }), true);
    const bad = [
      { type: 'openLine', file: 'a.py', line: '3' },
      { type: 'openLine', file: 'a.py', line: 3.5 },
      { type: 'openLine', file: 'a.py', line: Number.NaN },
      { type: 'openLine', file: 'a.py' },
      { type: 'openLine', file: '', line: 3 },
      { type: 'openLine', file: ['a.py'], line: 3 },
      { type: 'openLine', row: 0, side: 'current' },
      { type: 'openSource', file: 'a.py', line: 3 },
      null,
      'openLine',
    ];
    for (const m of bad) assert.equal(isOpenLine(m), false, JSON.stringify(m));
  });
});

describe('webview protocols: command allowlists', () => {
  it('maps a page key to the command id of Commands and refuses the rest', () => {
    const list = commandAllowlist(['openSnapshot', 'profile']);
    assert.equal(list.commandFor('openSnapshot'), 'vramLens.openSnapshot');
    assert.equal(list.commandFor('profile'), Commands.profile);
    assert.equal(list.commandFor('openSample'), undefined, 'a command of Commands not on this list');
    assert.equal(list.commandFor('vramLens.openSnapshot'), undefined, 'ids are not keys');
    assert.equal(list.commandFor('workbench.action.terminal.sendSequence'), undefined);
    assert.equal(list.commandFor('toString'), undefined);
    assert.equal(list.commandFor(42), undefined);
  });
});

/** A backend whose worker records its calls and answers from `answers`. */
function fakeBackend(answers: Partial<{ [M in MethodName]: ResultOf<M> }>, advice = true) {
  const calls: { method: MethodName; params: unknown }[] = [];
  const call: WorkerCall = <M extends MethodName>(method: M, params: ParamsOf<M>) => {
    calls.push({ method, params });
    if (!(method in answers)) return Promise.reject(new Error(`no answer for ${method}`));
    return Promise.resolve(answers[method] as ResultOf<M>);
  };
  const backend: TimelineBackend = { worker: (id) => (id === 'snap' ? call : undefined), adviceEnabled: () => advice };
  return { backend, calls };
}

const target = { snapshotId: 'snap', device: 1 };

describe('timeline host: request routing', () => {
  it('asks the worker of the snapshot named, on the device named, and echoes the id', async () => {
    const { backend, calls } = fakeBackend({ linesMatchingStack: [3, 5] });
    const answer = await answerTimelineRequest({ type: 'stackFilter', requestId: 7, target, text: 'backward' }, backend);
    assert.deepEqual(answer, { type: 'stackFilter', requestId: 7, lineIds: [3, 5] });
    assert.deepEqual(calls, [{ method: 'linesMatchingStack', params: { text: 'backward' } }]);
  });
  it('clamps the overview columns and passes the device', async () => {
    const { backend, calls } = fakeBackend({ timelineOverview: {} as ResultOf<'timelineOverview'> });
    await answerTimelineRequest({ type: 'overview', requestId: 1, target, axis: 'event', columns: 1e9 }, backend);
    await answerTimelineRequest({ type: 'overview', requestId: 2, target, axis: 'time', columns: Number.NaN }, backend);
    assert.deepEqual(calls.map((c) => c.params), [
      { device: 1, axis: 'event', columns: 8192 },
      { device: 1, axis: 'time', columns: 1 },
    ]);
  });
  it('gives no findings when the advisor is off, without asking the worker', async () => {
    const { backend, calls } = fakeBackend({}, false);
    assert.deepEqual(await answerTimelineRequest({ type: 'findings', requestId: 4, target, axis: 'event' }, backend), { type: 'findings', requestId: 4, markers: [] });
    assert.equal(calls.length, 0);
  });
  it('refuses malformed fields (undefined: the view logs it)', async () => {
    const { backend, calls } = fakeBackend({});
    const bad = [
      { type: 'overview', requestId: 1, target, axis: 'sideways', columns: 3 },
      { type: 'block', requestId: 1, target, record: 1.5 },
      { type: 'lineBlocks', requestId: 1, target, file: 7, line: 3 },
      { type: 'stackFilter', requestId: 1, target, text: { toString: 'x' } },
      { type: 'span', requestId: 1, target, request: { axis: 'event', columns: 10, x0: 'NaN' } },
      { type: 'lines', requestId: 1, target: { snapshotId: 'snap' } },
      { type: 'lines', requestId: -3, target },
    ];
    for (const m of bad) assert.equal(await answerTimelineRequest(m as unknown as TimelineRequest, backend), undefined, JSON.stringify(m));
    assert.equal(calls.length, 0);
  });
  it('throws when the snapshot is no longer loaded', async () => {
    const { backend } = fakeBackend({});
    await assert.rejects(answerTimelineRequest({ type: 'lines', requestId: 1, target: { snapshotId: 'gone', device: 0 } }, backend), /no longer loaded/);
  });
  it('keeps only the known fields of a window request', () => {
    const r = sanitizeSpanRequest({ axis: 'event', columns: 300, x0: 5, x1: 9, states: [1, 2], evil: 'x', budget: 10 });
    assert.deepEqual(
      Object.fromEntries(Object.entries(r!).filter(([, v]) => v !== undefined)),
      { axis: 'event', columns: 300, x0: 5, x1: 9, states: [1, 2], budget: 10 },
    );
    assert.equal(sanitizeSpanRequest({ axis: 'event', columns: 3, states: [1] }), undefined);
    assert.equal(sanitizeSpanRequest({ axis: 'event', columns: Infinity }), undefined);
  });
  it('the allocator view: its window (known fields only), its facts (the OOMs bounded), the segment map after the state\'s event', async () => {
    const ooms = Array.from({ length: 150 }, (_, event) => ({ event }));
    const { backend, calls } = fakeBackend({
      allocatorSpan: undefined,
      allocatorCheck: { device: 1 } as ResultOf<'allocatorCheck'>,
      allocatorOoms: ooms as unknown as ResultOf<'allocatorOoms'>,
      allocatorSegmentMap: { event: 41 } as ResultOf<'allocatorSegmentMap'>,
    });
    const w = await answerTimelineRequest({ type: 'allocatorSpan', requestId: 1, target, request: { axis: 'time', columns: 300, x0: 5, x1: 9, budget: 10, evil: 'x' } as never }, backend);
    assert.deepEqual(w, { type: 'allocatorSpan', requestId: 1, span: undefined });
    assert.deepEqual(calls[0], { method: 'allocatorSpan', params: { device: 1, request: { axis: 'time', columns: 300, x0: 5, x1: 9, budget: 10, offsetQuantum: undefined } } });
    const facts = await answerTimelineRequest({ type: 'allocatorFacts', requestId: 2, target }, backend);
    assert.equal(facts?.type === 'allocatorFacts' && facts.facts.ooms.length, MAX_OOMS);
    assert.deepEqual(facts?.type === 'allocatorFacts' && facts.facts.check, { device: 1 });
    await answerTimelineRequest({ type: 'segmentMap', requestId: 3, target, state: 42 }, backend);
    assert.deepEqual(calls.at(-1), { method: 'allocatorSegmentMap', params: { device: 1, event: 41, maxBlocks: SEGMENT_MAP_BLOCKS } });
    const before = calls.length;
    for (const m of [
      { type: 'segmentMap', requestId: 4, target, state: -1 },
      { type: 'segmentMap', requestId: 4, target, state: 2.5 },
      { type: 'allocatorSpan', requestId: 4, target, request: { axis: 'event', columns: 'all' } },
      { type: 'allocatorSpan', requestId: 4, target, request: { axis: 'event', columns: 3, budget: Number.NaN } },
    ]) assert.equal(await answerTimelineRequest(m as unknown as TimelineRequest, backend), undefined, JSON.stringify(m));
    assert.equal(calls.length, before);
    assert.equal(sanitizeAllocatorSpanRequest({ axis: 'sideways', columns: 3 }), undefined);
  });
  it('tells requests from other messages', () => {
    assert.equal(isTimelineRequest({ type: 'span' }), true);
    assert.equal(isTimelineRequest({ type: 'openLine' }), false);
    assert.equal(isTimelineRequest({ type: 'toString' }), false);
    assert.equal(isTimelineRequest({ type: 'hasOwnProperty' }), false);
    // Each request travels both ways: the page asks, the host answers under the same type.
    for (const type of ['overview', 'span', 'findings', 'block', 'lines', 'stackFilter', 'lineBlocks', 'allocatorSpan', 'allocatorFacts', 'segmentMap']) {
      assert.equal(isTimelineRequest({ type }), true, type);
      assert.equal(isTimelineToHost({ type }), true, type);
      assert.equal(isHostToTimeline({ type }), true, type);
    }
    for (const type of ['ready', 'openLine', 'runCommand', 'showing', 'log', 'snapshots', 'error', 'showLine']) assert.equal(isTimelineRequest({ type }), false, type);
    assert.equal(requestIdOf({ requestId: 3 }), 3);
    assert.equal(requestIdOf({ requestId: '3' }), -1);
  });
});

describe('timeline page: requests', () => {
  function setup() {
    const posted: TimelineRequest[] = [];
    const errors: string[] = [];
    const requests = new Requests((m) => posted.push(m), (m) => errors.push(m));
    return { posted, errors, requests };
  }
  it('numbers requests and hands each answer to its own callback', () => {
    const { posted, requests } = setup();
    const got: unknown[] = [];
    requests.ask({ type: 'lines', target }, { current: () => true, answered: (m) => got.push(['lines', m.rows.length]) });
    requests.ask({ type: 'stackFilter', target, text: 'x' }, { current: () => true, answered: (m) => got.push(['stack', m.lineIds]) });
    assert.deepEqual(posted.map((p) => [p.type, p.requestId]), [['lines', 1], ['stackFilter', 2]]);
    requests.settle({ type: 'stackFilter', requestId: 2, lineIds: [9] });
    requests.settle({ type: 'lines', requestId: 1, rows: [] });
    requests.settle({ type: 'lines', requestId: 1, rows: [] }); // answered already: ignored
    assert.deepEqual(got, [['stack', [9]], ['lines', 0]]);
  });
  it('drops an answer the page no longer wants, after `settled`', () => {
    const { requests } = setup();
    const events: string[] = [];
    let wanted = true;
    requests.ask(
      { type: 'span', target, request: { axis: 'event', columns: 10 } },
      { current: () => wanted, settled: () => events.push('settled'), stale: () => events.push('stale'), answered: () => events.push('answered') },
    );
    wanted = false;
    requests.settle({ type: 'span', requestId: 1, span: {} } as unknown as TimelineAnswer);
    assert.deepEqual(events, ['settled', 'stale']);
  });
  it('sends errors to `failed`, else to the page error handler, and knows what waits', () => {
    const { errors, requests } = setup();
    const failed: string[] = [];
    requests.ask({ type: 'block', target, record: 4 }, { current: () => true, tag: '4', answered: () => undefined, failed: (m) => failed.push(m) });
    requests.ask({ type: 'lines', target }, { current: () => true, answered: () => undefined });
    assert.equal(requests.isWaiting('block', '4'), true);
    assert.equal(requests.isWaiting('block', '5'), false);
    requests.settle({ type: 'error', requestId: 1, message: 'gone' });
    requests.settle({ type: 'error', requestId: 2, message: 'worker died' });
    assert.equal(requests.isWaiting('block', '4'), false);
    assert.deepEqual(failed, ['gone']);
    assert.deepEqual(errors, ['worker died']);
  });
});
