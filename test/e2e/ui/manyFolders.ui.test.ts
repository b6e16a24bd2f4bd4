/**
 * Issue 24 item 3 in the real workbench (code-server + Chromium): a snapshot that records 100,000
 * folders (test/helpers/manyFolders.ts: one allocation in each of /w/d<i>/m<i>.py, none on this
 * machine, and two lines of the fixture workspace's cs336_basics files under the same /w) is opened
 * while another snapshot's findings are in the Problems panel. The previous findings go at once; the
 * lines of the workspace are annotated within 20 s of the open; no question is asked about /w (a found
 * file places it); the summary lists the files not found, counted, and is not left blank when its tab
 * is shown again.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { fixtureSnapshot, missingPrerequisite, resultsDir } from '../codeServer';
import { binary, percentOf } from '../expected';
import { manyFoldersSnapshot } from '../../helpers/manyFolders';
import type { UiWorkbench } from '../uiWorkbench';
import { goToLine, openUiWorkbench, openWorkspaceFile } from '../uiWorkbench';
import { webviewFrame } from '../webviewLayout';
import { afterTexts, eventually, openSnapshotFromPalette, runCommand, withScreenshot } from '../workbench';

const FOLDERS = 100_000;
const MiB = 2 ** 20;
const MAPPED = [
  { file: 'cs336_basics/model.py', line: 39, bytes: 256 * MiB },
  { file: 'cs336_basics/nn_utils.py', line: 6, bytes: 64 * MiB },
];
const PEAK = 320 * MiB;
/** The budget the issue sets for resolving and annotating the 100,000 folders. */
const BUDGET_MS = 20_000;

async function problems(page: Page): Promise<string[]> {
  return page.locator('.markers-panel .monaco-list-row').allInnerTexts();
}

async function notificationTexts(page: Page): Promise<string[]> {
  return page.evaluate<string[]>(
    `[...document.querySelectorAll('.notifications-center .notification-list-item-message, .notifications-toasts .notification-list-item-message')].map((e) => e.textContent ?? '')`,
  );
}

describe('a snapshot with 100,000 recorded folders (code-server + Chromium)', { skip: missingPrerequisite() ?? false, timeout: 300_000 }, () => {
  let workbench: UiWorkbench | undefined;
  let page: Page;
  let many: string;

  before(async () => {
    workbench = await openUiWorkbench({
      name: 'ui-many-folders',
      prepare: ({ tempDir }) => {
        many = path.join(tempDir, 'many-folders.pickle');
        writeFileSync(many, manyFoldersSnapshot({ folders: FOLDERS, mapped: MAPPED }));
      },
    });
    page = workbench.page;
  });

  after(async () => {
    await workbench?.close();
  });

  it('clears the previous findings at once and annotates within 20 s, asking nothing about /w', withScreenshot('many-folders', () => page, async () => {
    // The previous snapshot and its findings (the checkpointing finding at model.py:253).
    await openSnapshotFromPalette(page, fixtureSnapshot);
    await page.locator('.statusbar-item', { hasText: 'peak · cuda:0' }).waitFor({ timeout: 60_000 });
    await openWorkspaceFile(page, 'cs336_basics/model.py', 39);
    await page.keyboard.press('Control+Shift+M');
    const old = 'Checkpointing candidate: 6.5 GiB of activations under model.py:253';
    await eventually('the previous snapshot\'s finding', async () => ((await problems(page)).some((t) => t.includes(old)) ? true : undefined), 60_000);

    const started = Date.now();
    await openSnapshotFromPalette(page, many);
    const status = page.locator('.statusbar-item', { hasText: `${binary(PEAK)} peak · cuda:0` });
    await status.waitFor({ timeout: BUDGET_MS });
    const loadedAt = Date.now() - started;
    // Once the new snapshot is the active one, the previous findings are gone (not when the new ones are ready).
    const clearedAt = await eventually('the previous finding to go', async () => ((await problems(page)).some((t) => t.includes(old)) ? undefined : Date.now() - started), 5_000);
    const expected = `${binary(MAPPED[0].bytes)} at peak (${percentOf(MAPPED[0].bytes, PEAK)})`;
    const annotatedAt = await eventually('model.py:39 annotated', async () => {
      if ((await afterTexts(page)).includes(expected)) return Date.now() - started;
      // Line 39 on screen (a Go to Line typed while the workbench was busy can go astray).
      const cursor = await page.locator('.statusbar-item', { hasText: /^Ln \d+/ }).first().innerText().catch(() => '');
      if (!cursor.startsWith('Ln 39,')) await goToLine(page, 39);
      return undefined;
    }, BUDGET_MS);
    console.log(`100,000 folders: loaded (status bar) after ${loadedAt} ms, previous findings cleared after ${clearedAt} ms, model.py:39 annotated after ${annotatedAt} ms`);
    await page.screenshot({ path: path.join(resultsDir, 'many-folders-annotated.png') });
    assert.ok(annotatedAt < BUDGET_MS, `annotated after ${annotatedAt} ms`);
    assert.ok(clearedAt - loadedAt < 2_000, `the previous findings went ${clearedAt - loadedAt} ms after the new snapshot became active`);

    // A found file (/w/cs336_basics/model.py) places /w: no question about it, or about a folder under it.
    await page.waitForTimeout(2_000);
    await runCommand(page, 'Notifications: Show Notifications');
    const texts = await notificationTexts(page);
    assert.deepEqual(texts.filter((t) => t.includes('where is')), [], `no path question: ${texts.join(' | ')}`);
  }));

  it('the summary counts the files not found, and is not blank when shown again', withScreenshot('many-folders-summary', () => page, async () => {
    await runCommand(page, 'VRAM Lens: Show Snapshot Summary');
    const frame = await webviewFrame(page, 'h1', 'many-folders.pickle');
    // 100,000 folder files and /w/train.py (its line holds memory in calls) are not here; ten are listed.
    const more = frame.locator('.unmapped-files li', { hasText: `… and ${(FOLDERS + 1 - 10).toLocaleString('en-US')} more` });
    await more.waitFor({ timeout: 30_000 });
    assert.equal(await frame.locator('.unmapped-files li.path').count(), 10);
    const top = await frame.locator('table.lines tbody tr').first().innerText();
    assert.ok(top.includes('model.py:39') && top.includes(binary(MAPPED[0].bytes)), top);
    await page.screenshot({ path: path.join(resultsDir, 'many-folders-summary.png') });

    // Another tab, then the summary again: its page is made anew and shows the summary, never nothing.
    await openWorkspaceFile(page, 'cs336_basics/nn_utils.py', 6);
    await page.locator('.tab', { hasText: 'many-folders.pickle' }).first().click();
    const again = await webviewFrame(page, 'h1', 'many-folders.pickle');
    await again.locator('.unmapped-files li', { hasText: 'more' }).waitFor({ timeout: 10_000 });
  }));
});
