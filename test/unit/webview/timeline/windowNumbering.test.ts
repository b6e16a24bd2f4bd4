/**
 * A loaded window numbers its events one way, the file's (issue 29, item 3): the window of events
 * 1,000,000 to 1,999,999 of a 4.3 GB file showed its peak "after event 1,005,497" in the summary,
 * "(event 5497)" in the advice and "after event 376,469" on the timeline, whose axis read 380k-400k.
 * Here every view says the recording's number (window start + index in the window), and Show: Allocator
 * on a window falls back to the blocks and says why, instead of "Error: ..." over an empty chart.
 * Expected numbers are the window's first event plus the index, worked out by hand.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { main } from '../../../../src/cli/main';
import { advise } from '../../../../src/engine/advice/advise';
import { outOfMemory } from '../../../../src/engine/advice/rules/outOfMemory';
import { analyzeSnapshot } from '../../../../src/engine/analysis/analyze';
import { SnapshotReader } from '../../../../src/engine/decode/load';
import type { PlainValue } from '../../../../src/engine/pickle/encoder';
import { encodePickle } from '../../../../src/engine/pickle/encoder';
import { SnapshotSession } from '../../../../src/engine/session/session';
import type { TimelineOverview } from '../../../../src/engine/timeline/types';
import { stateLabel, tooltipLines } from '../../../../webview/timeline/controls/tooltipText';
import { eventTicks } from '../../../../webview/timeline/drawing/ticks';
import { choice, overviewOf, pageUnderTest } from '../../../helpers/timelinePage';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

const MiB = 1024 ** 2;
const frames = [{ filename: '/home/u/proj/train.py', line: 9, name: 'step' }];

/** 30 events: a 2 MiB segment, then 14 allocations of 64 KiB freed at once... and, at event 25, an OOM. */
function recording(): Uint8Array {
  const events: PlainValue[] = [{ action: 'segment_alloc', addr: 0x7f0000000000, size: 2 * MiB, stream: 0, time_us: 1, frames }];
  for (let i = 1; i < 25; i += 2) {
    events.push({ action: 'alloc', addr: 0x7f0000000000, size: 64 * 1024, stream: 0, time_us: i * 10, frames });
    events.push({ action: 'free_completed', addr: 0x7f0000000000, size: 64 * 1024, stream: 0, time_us: i * 10 + 5, frames });
  }
  events.push({ action: 'oom', addr: 0, size: 64 * MiB, stream: 0, time_us: 400, frames, device_free: 0 });
  while (events.length < 30) events.push({ action: 'snapshot', addr: 0, size: 0, stream: 0, time_us: 500, frames: [] });
  return encodePickle({
    segments: [{ device: 0, address: 0x7f0000000000, total_size: 2 * MiB, stream: 0, segment_type: 'large', allocated_size: 0, active_size: 0, blocks: [{ size: 2 * MiB, requested_size: 0, state: 'inactive', address: 0x7f0000000000, frames: [] }] }],
    device_traces: [events],
  });
}

function window(from: number, to: number) {
  const bytes = recording();
  const reader = new SnapshotReader({ expectedBytes: bytes.length, window: { axis: 'event', from, to } });
  reader.feed(bytes);
  return reader.finish();
}

describe('a loaded window numbers its events as the recording does (issue 29, item 3)', () => {
  it('the advice names the OOM as event 25 of the recording, not 5 of the window', () => {
    const snapshot = window(20, 30);
    const [f] = advise(analyzeSnapshot(snapshot), { rules: [outOfMemory] });
    assert.match(f.title, /requested at event 25$/);
    assert.match(f.message, /^Out of memory at event 25:/);
    // Evidence keeps the loaded trace's index: the timeline places the marker on its own axis by it.
    assert.equal(f.evidence.oomEvent, 5);
  });

  it('`vram-lens advise --from 20` prints event 25 in the words and the evidence, in text and JSON', async () => {
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'vl-window-')), 'w.pickle');
    writeFileSync(file, recording());
    let out = '';
    const io = { out: (t: string) => (out += t), err: (t: string) => (out += t) };
    assert.equal(await main(['advise', file, '--from', '20'], io), 0, out);
    assert.match(out, /Out of memory at event 25:/);
    assert.match(out, /oomEvent=25/);
    out = '';
    assert.equal(await main(['advise', file, '--from', '20', '--json'], io), 0, out);
    const json = JSON.parse(out) as { findings: { rule: string; evidence: Record<string, number> }[] };
    assert.equal(json.findings.find((f) => f.rule === 'out-of-memory')?.evidence.oomEvent, 25);
  });

  it('the timeline\'s axis ticks fall on the recording\'s round numbers', () => {
    // States 380,000 to 400,000 of a window opening at event 1,000,000: about 4 intervals of 5,000.
    const ticks = eventTicks(380_000, 400_000, 4, 1_000_000);
    assert.deepEqual(ticks.map((t) => t.label), ['1.38M', '1.385M', '1.39M', '1.395M', '1.4M']);
    assert.deepEqual(ticks.map((t) => t.value), [380_000, 385_000, 390_000, 395_000, 400_000]);
    // Unshifted for the whole recording.
    assert.deepEqual(eventTicks(0, 22333, 4).map((t) => t.label), ['0', '10k', '20k']);
  });

  it('the timeline\'s tooltips say "after event 1,005,497" where the summary does', () => {
    assert.equal(stateLabel(5498, 1_000_000), 'after event 1,005,497');
    assert.equal(stateLabel(0, 1_000_000), 'when the window opens');
    assert.equal(stateLabel(0), 'before the first event');
    const overview: TimelineOverview = { ...overviewOf(), peak: { state: 5498, x: 5498, bytes: MiB, line: undefined }, window: { firstEvent: 1_000_000, events: 1_000_000, recordedEvents: 5_000_000 } };
    assert.equal(tooltipLines({ kind: 'peak' }, undefined, overview, undefined)[0], 'Peak: 1.0 MiB after event 1,005,497');
  });

  it('a window\'s overview says the allocator view is unavailable, and why', () => {
    const session = new SnapshotSession(window(20, 30), 0, {});
    const overview = session.timeline.overview(0, 'event', 200);
    assert.match(overview.allocatorUnavailable ?? '', /^the caching allocator replay needs the whole recording, and this snapshot was loaded as a window of it \(events 20 to 29 of 30 on device 0\)/);
    const whole = new SnapshotSession(window(0, 30), 0, {});
    assert.equal(whole.timeline.overview(0, 'event', 200).allocatorUnavailable, undefined, 'a window holding every event is the whole recording');
  });

  it('Show: Allocator on such a window falls back to the blocks and says why, asking the host for nothing of the allocator', () => {
    const page = pageUnderTest({ mode: 'allocator', snapshotId: 'a', device: 0, seenActiveId: 'a' });
    page.receive({ type: 'snapshots', snapshots: [choice('a', [0])], activeId: 'a' });
    const why = 'the caching allocator replay needs the whole recording';
    page.answer('overview', { overview: { ...overviewOf(), allocatorUnavailable: why } });
    assert.equal(page.store.state.mode, 'blocks');
    assert.equal(page.store.data.notice, `Allocator view not available: ${why}. Showing the blocks`);
    assert.ok(page.screen.includes('showMode()'));
    page.answer('span', { span: { ...overviewOf().summary } });
    assert.equal(page.last('allocatorSpan'), undefined, 'no allocator request, so no "Error: ..." over an empty chart');
    // Choosing it again is refused the same way.
    page.actions.switchMode('allocator');
    assert.equal(page.store.state.mode, 'blocks');
    assert.equal(page.last('allocatorSpan'), undefined);
    // And the blocks view of a whole recording still switches.
    const whole = pageUnderTest({ snapshotId: 'a', device: 0, seenActiveId: 'a' });
    whole.receive({ type: 'snapshots', snapshots: [choice('a', [0])], activeId: 'a' });
    whole.answer('overview', { overview: overviewOf() });
    whole.actions.switchMode('allocator');
    assert.equal(whole.store.state.mode, 'allocator');
    assert.equal(whole.store.data.notice, undefined);
  });
});
