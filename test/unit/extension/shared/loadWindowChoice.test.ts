/** The choice a big snapshot offers before it loads: all of it by default, or a window the user types. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chooseLoadWindow, parseRange, type WindowPrompts } from '../../../../src/extension/shared/loadWindowChoice';

function prompts(pick: number | undefined, typed?: string): WindowPrompts & { titles: string[]; labels: string[]; prompts: string[]; checks: (value: string) => string | undefined } {
  const out = {
    titles: [] as string[],
    labels: [] as string[],
    prompts: [] as string[],
    checks: (() => undefined) as (value: string) => string | undefined,
    pick: (title: string, items: readonly { label: string }[]) => {
      out.titles.push(title);
      out.labels.push(...items.map((i) => i.label));
      return Promise.resolve(pick);
    },
    input: (_title: string, prompt: string, _placeholder: string, validate: (value: string) => string | undefined) => {
      out.prompts.push(prompt);
      out.checks = validate;
      return Promise.resolve(typed);
    },
  };
  return out;
}

describe('the window choice of a big file', () => {
  it('offers all of it first (the default), then a window of events or of time', async () => {
    const p = prompts(0);
    assert.deepEqual(await chooseLoadWindow('big.pickle', 4.3e9, p), { kind: 'all' });
    // In the summary's units (issue 29: the prompt said 4.3 GB where the summary said 4.0 GiB).
    assert.deepEqual(p.titles, ['big.pickle is 4.0 GiB']);
    assert.deepEqual(p.labels, ['Load all of it', 'Load a window of events…', 'Load a window of time…']);
  });
  it('dismissing either prompt loads nothing', async () => {
    assert.deepEqual(await chooseLoadWindow('big.pickle', 2e9, prompts(undefined)), { kind: 'cancel' });
    assert.deepEqual(await chooseLoadWindow('big.pickle', 2e9, prompts(1, undefined)), { kind: 'cancel' });
  });
  it('a window of events, and of time, from what is typed', async () => {
    assert.deepEqual(await chooseLoadWindow('big.pickle', 2e9, prompts(1, '1000-5000')), { kind: 'window', window: { axis: 'event', from: 1000, to: 5000 } });
    assert.deepEqual(await chooseLoadWindow('big.pickle', 2e9, prompts(1, '1000-')), { kind: 'window', window: { axis: 'event', from: 1000 } });
    assert.deepEqual(await chooseLoadWindow('big.pickle', 2e9, prompts(2, '10s-25.5s')), { kind: 'window', window: { axis: 'time', from: 10_000_000, to: 25_500_000 } });
  });
  it('the input box says what is wrong before it is accepted', async () => {
    const events = prompts(1, '1-2');
    await chooseLoadWindow('big.pickle', 2e9, events);
    assert.equal(events.checks('1000-5000'), undefined);
    assert.equal(events.checks('10s-20s'), 'give event indices (whole numbers), not times');
    assert.equal(events.checks('-'), 'give at least one end');
    assert.match(events.checks('1000')!, /write the window as from-to/);
    assert.equal(events.checks('9-3'), 'to must not come before from');
    const time = prompts(2, '1s-2s');
    await chooseLoadWindow('big.pickle', 2e9, time);
    assert.equal(time.checks('10-20'), 'give times with units (10s, 250ms), not event indices');
  });
  it('the input box\'s prompt is plain text (VS Code shows it as typed: no markdown backticks), with an example', async () => {
    for (const pick of [1, 2]) {
      const p = prompts(pick, pick === 1 ? '1-2' : '1s-2s');
      await chooseLoadWindow('big.pickle', 2e9, p);
      assert.equal(p.prompts.length, 1);
      assert.doesNotMatch(p.prompts[0], /`/);
      assert.match(p.prompts[0], /up to, not including/);
    }
  });
  it('parseRange reads from-to with either end left out', () => {
    assert.deepEqual(parseRange('-300ms'), { axis: 'time', to: 300_000 });
    assert.equal(parseRange('-'), undefined);
  });
});
