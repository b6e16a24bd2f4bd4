/**
 * Issue 23 in the real workbench (code-server + Chromium): a snapshot file of a gigabyte or more
 * offers, before it loads, to load all of it or a window of its events or of its time. Chosen "a
 * window of events" and typed "20-60", the summary says which events it covers (20 to 59: the end is
 * not included, as the prompt says); chosen "all" (the
 * first item, what Enter takes), it covers the whole recording.
 *
 * The file is a small snapshot written here (120 events of our own making) followed by zeros up to
 * 1.05 GB: the pickle ends at its STOP opcode, so reading it takes as long as the small one, and the
 * zeros are a hole in the file (no disk blocks on the file systems CI uses).
 */
import assert from 'node:assert/strict';
import { truncateSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import type { PlainValue } from '../../../src/engine/pickle/encoder';
import { encodePickle } from '../../../src/engine/pickle/encoder';
import { mediaImage, missingPrerequisite, resultsDir } from '../codeServer';
import type { UiWorkbench } from '../uiWorkbench';
import { openUiWorkbench } from '../uiWorkbench';
import { webviewFrame } from '../webviewLayout';
import { eventually, openSnapshotFromPalette, runCommand, withScreenshot } from '../workbench';

const PADDED_BYTES = 1_050_000_000;
const EVENTS = 120;
const MiB = 1 << 20;

/** 60 allocations of 1 MiB, each freed at once, in one 64 MiB segment: 120 events. */
function smallSnapshot(): Uint8Array {
  const base = 0x7f00_0000_0000;
  const frames = (k: number) => [{ filename: '/home/user/project/train.py', line: 10 + (k % 5), name: 'step' }];
  const events: PlainValue[] = [];
  for (let k = 0; k < EVENTS / 2; k++) {
    events.push({ action: 'alloc', addr: base, size: MiB, stream: 0, time_us: 1_000 * k, frames: frames(k) });
    events.push({ action: 'free_completed', addr: base, size: MiB, stream: 0, time_us: 1_000 * k + 500, frames: frames(k) });
  }
  return encodePickle({
    segments: [{ device: 0, address: base, total_size: 64 * MiB, stream: 0, segment_type: 'large', allocated_size: 0, active_size: 0, requested_size: 0, blocks: [{ size: 64 * MiB, requested_size: 0, state: 'inactive' }] }],
    device_traces: [events],
  });
}

/** The quick pick's title, once it shows. */
async function quickPickTitle(page: Page, text: string): Promise<string> {
  const title = page.locator('.quick-input-widget .quick-input-title', { hasText: text });
  await title.waitFor({ timeout: 30_000 });
  return title.innerText();
}

describe('a gigabyte snapshot offers a window before it loads (code-server + Chromium)', { skip: missingPrerequisite() ?? false, timeout: 240_000 }, () => {
  let workbench: UiWorkbench | undefined;
  let page: Page;
  let file: string;
  let other: string;

  before(async () => {
    workbench = await openUiWorkbench({
      name: 'large-file',
      prepare: ({ tempDir }) => {
        file = path.join(tempDir, 'big.pickle');
        other = path.join(tempDir, 'whole.pickle');
        for (const f of [file, other]) {
          writeFileSync(f, smallSnapshot());
          truncateSync(f, PADDED_BYTES);
        }
      },
    });
    page = workbench.page;
  });

  after(async () => {
    await workbench?.close();
  });

  it('a window of events: the summary says which events it covers', withScreenshot('large-file-window', () => page, async () => {
    await openSnapshotFromPalette(page, file);
    const title = await quickPickTitle(page, 'big.pickle is');
    // The summary's units (issue 29): 1,050,000,000 bytes are 1001.4 MiB, not "1.1 GB".
    assert.match(title, /big\.pickle is 1001\.4 MiB/, title);
    const rows = await page.locator('.quick-input-list .monaco-list-row').allInnerTexts();
    assert.match(rows[0] ?? '', /^Load all of it/, `the whole file is the default: ${rows.join(' | ')}`);
    // The README's picture of the choice (the quick pick alone: it names the file, not its folder).
    await page.locator('.quick-input-widget').screenshot({ path: mediaImage('screenshots/load-window.png') });
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'Load a window of events' }).click();
    // The input box asks for the events, from-to.
    const prompt = page.locator('.quick-input-widget .quick-input-message, .quick-input-widget .quick-input-description', { hasText: 'Events to load' }).first();
    await prompt.waitFor({ timeout: 20_000 });
    assert.match(await prompt.innerText(), /up to, not including/);
    assert.doesNotMatch(await prompt.innerText(), /`/, 'plain text: no literal backticks');
    const input = page.locator('.quick-input-widget input.input');
    await input.fill('20-60');
    await page.keyboard.press('Enter');
    await page.locator('.statusbar-item', { hasText: 'peak · cuda:0' }).waitFor({ timeout: 60_000 });

    await runCommand(page, 'VRAM Lens: Show Snapshot Summary');
    const frame = await webviewFrame(page, 'h1', 'big.pickle');
    const stats = await frame.locator('dl.stats').innerText();
    assert.match(stats, /Window/, stats);
    assert.ok(stats.includes(`events 20 to 59 of ${EVENTS}`), stats);
    assert.match(stats, /40 events/, stats);
    assert.ok(stats.includes('figures cover this window'), stats);
    await page.screenshot({ path: path.join(resultsDir, 'large-file-window.png') });
  }));

  it('all of it (the default, Enter): the summary covers the whole recording', withScreenshot('large-file-all', () => page, async () => {
    await runCommand(page, 'View: Close All Editors');
    await openSnapshotFromPalette(page, other);
    await quickPickTitle(page, 'whole.pickle is');
    await page.keyboard.press('Enter');
    // The summary of the active snapshot: whole.pickle's once it has loaded.
    const frame = await eventually('the summary of whole.pickle', async () => {
      await runCommand(page, 'VRAM Lens: Show Snapshot Summary');
      return webviewFrame(page, 'h1', 'whole.pickle', 3_000).catch(() => undefined);
    }, 60_000);
    const stats = await frame.locator('dl.stats').innerText();
    assert.doesNotMatch(stats, /Window/, stats);
    assert.ok(stats.includes(String(EVENTS)), `${EVENTS} events: ${stats}`);
  }));
});
