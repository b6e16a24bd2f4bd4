/** `vram-lens analyze FILE --from X --to Y` (issue 23) and the progress bar a big file draws on a terminal. */
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { main } from '../../../src/cli/main';
import { PROGRESS_MIN_BYTES, terminalProgress } from '../../../src/cli/progress';
import { analyzeSnapshot } from '../../../src/engine/analysis/analyze';
import { stringifyExact, toReport } from '../../../src/engine/analysis/report';
import { SnapshotReader } from '../../../src/engine/decode/load';
import { parseLoadWindow } from '../../../src/engine/snapshot/window';
import { corpusDir, corpusMissing } from '../../helpers/corpus';

const file = path.join(corpusDir, 'nothanmin-cs336.pickle');

async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(args, { out: (t) => (out += t), err: (t) => (err += t) });
  return { code, out, err };
}

describe('the ends of a window, as people write them', () => {
  it('a whole number is an event, a number with a unit a time in microseconds', () => {
    assert.deepEqual(parseLoadWindow('1200', '5000'), { axis: 'event', from: 1200, to: 5000 });
    assert.deepEqual(parseLoadWindow('12.5s', undefined), { axis: 'time', from: 12_500_000 });
    assert.deepEqual(parseLoadWindow('', '300ms'), { axis: 'time', to: 300_000 });
    assert.deepEqual(parseLoadWindow('1500us', '2 s'), { axis: 'time', from: 1500, to: 2_000_000 });
    assert.equal(parseLoadWindow(undefined, ' '), undefined);
  });
  it('mixed axes, a backwards window and other words say what is wrong', () => {
    assert.deepEqual(parseLoadWindow('10', '2s'), { problem: 'from and to must both be event indices or both be times' });
    assert.deepEqual(parseLoadWindow('10', '5'), { problem: 'to must not come before from' });
    assert.match((parseLoadWindow('-3', undefined) as { problem: string }).problem, /^from is an event index/);
    assert.match((parseLoadWindow(undefined, '1h') as { problem: string }).problem, /^to is an event index/);
  });
});

describe('vram-lens analyze --from --to', { skip: corpusMissing }, () => {
  it('--json: the report of the window the engine loads, saying which events it covers', async () => {
    const r = await run(['analyze', file, '--from', '5000', '--to', '9000', '--json']);
    assert.equal(r.code, 0, r.err);
    const reader = new SnapshotReader({ window: { axis: 'event', from: 5000, to: 9000 } });
    reader.feed(readFileSync(file));
    assert.equal(r.out, stringifyExact(toReport(analyzeSnapshot(reader.finish()))) + '\n');
    const report = JSON.parse(r.out) as { window: unknown; devices: { events: number; window: unknown }[] };
    assert.deepEqual(report.window, { axis: 'event', from: 5000, to: 9000, originUs: 1754641328380304 });
    assert.deepEqual(report.devices[0].window, { firstEvent: 5000, events: 4000, recordedEvents: 19464 });
    assert.equal(report.devices[0].events, 4000);
  });

  it('the text names the window and counts events from the recording', async () => {
    const r = await run(['analyze', file, '--from', '5000', '--to', '9000']);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /window {10}events 5,000 to 8,999 of 19,464: figures cover this window; memory live when it opens is carried in/);
    // The allocator replay needs the whole recording: the line says so rather than a self-check of a part.
    assert.match(r.out, /replayed {8}no: the caching allocator replay needs the whole recording \(run without --from\/--to\)\n/);
    assert.doesNotMatch(r.out, /allocator self-check/);
    // Events are written with thousands separators (issue 29), as the window line writes them.
    const peak = /peak allocated .*\(event (\d{1,3}(?:,\d{3})*)/.exec(r.out);
    assert.ok(peak && Number(peak[1].replace(/,/g, '')) >= 5000 && Number(peak[1].replace(/,/g, '')) < 9000, r.out);
  });

  it('a time window, and a window past the end (nothing in it, what was live carried in)', async () => {
    const time = await run(['analyze', file, '--from', '1s', '--json']);
    assert.equal(time.code, 0, time.err);
    const past = await run(['analyze', file, '--from', '100000']);
    assert.equal(past.code, 0, past.err);
    assert.match(past.out, /window {10}no events \(the window holds none of the 19,464 recorded\)/);
  });

  it('a window that is not one is a usage error (exit 2)', async () => {
    const r = await run(['analyze', file, '--from', '10', '--to', '1s']);
    assert.equal(r.code, 2);
    assert.match(r.err, /--from\/--to: from and to must both be event indices or both be times/);
  });
});

describe('the progress bar', () => {
  const stream = (isTTY: boolean) => {
    const writes: string[] = [];
    return { isTTY, columns: 100, write: (t: string) => writes.push(t), writes };
  };

  it('draws on a terminal, in place, at most ten times a second, and is erased at the end', () => {
    const tty = stream(true);
    let now = 0;
    const bar = terminalProgress(tty, 'big.pickle', () => now)!;
    const total = 4 * PROGRESS_MIN_BYTES;
    bar.onProgress(total / 4, total);
    now = 50;
    bar.onProgress(total / 2, total);
    now = 200;
    bar.onProgress(total / 2, total);
    bar.onProgress(total, total);
    bar.done();
    assert.equal(tty.writes.length, 4, 'the update 50 ms after the first is skipped; the last always drawn');
    assert.equal(tty.writes[0], '\rreading big.pickle [######------------------] 25%  67.1 MB of 268.4 MB  (Ctrl-C cancels)\u001b[K');
    assert.match(tty.writes[2], /100%/);
    assert.equal(tty.writes[3], '\r\x1b[K');
  });

  it('draws nothing into a pipe or a file, nor for a small file, and says nothing it cannot show', () => {
    assert.equal(terminalProgress(stream(false), 'big.pickle'), undefined);
    const tty = stream(true);
    const bar = terminalProgress(tty, 'small.pickle')!;
    bar.onProgress(10, PROGRESS_MIN_BYTES - 1);
    bar.done();
    assert.deepEqual(tty.writes, []);
    const hostile = stream(true);
    terminalProgress(hostile, 'a\u001b]0;x\u0007.pickle')!.onProgress(PROGRESS_MIN_BYTES, PROGRESS_MIN_BYTES);
    const drawn = hostile.writes[0].slice(1, -'\u001b[K'.length);
    // eslint-disable-next-line no-control-regex
    assert.doesNotMatch(drawn, /[\u0000-\u001f\u007f-\u009f]/);
  });
});
