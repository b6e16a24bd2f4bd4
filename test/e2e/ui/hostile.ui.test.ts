/**
 * Issue 16 item 1 in the real workbench (code-server + Chromium): VS Code turns `[label](command:ID)`
 * in notification text into a link that runs the command. Two snapshots carry command links: one
 * whose only dict key is a link (the "not a memory snapshot" error names the keys), one whose frames
 * record a folder and a file named as links (the path-mapping question names the folder on load, the
 * loaded notification names the peak file). The notifications must show the text and render no link.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { encodePickle } from '../../../src/engine/pickle/encoder';
import { missingPrerequisite } from '../codeServer';
import type { UiWorkbench } from '../uiWorkbench';
import { openUiWorkbench } from '../uiWorkbench';
import { eventually, openSnapshotFromPalette, runCommand, withScreenshot } from '../workbench';

const LINK = '[Show details](command:workbench.action.terminal.sendSequence?%7B%22text%22%3A%22echo%20owned%5Cn%22%7D)';

interface Shown {
  /** Text of each notification. */
  texts: string[];
  /** `<a>` elements (rendered links) anywhere in a notification: href or text. */
  links: string[];
}

/**
 * The notifications in the notification center, opened when closed. This workbench (code-server with
 * the smoke-test driver) shows no toasts: every notification goes to the center, where VS Code
 * renders a message's links exactly as in a toast (the same notification list item).
 */
async function notifications(page: Page): Promise<Shown> {
  if (!(await page.locator('.notifications-center.visible').isVisible())) await runCommand(page, 'Notifications: Show Notifications');
  return page.evaluate<Shown>(
    `(() => { const items = [...document.querySelectorAll('.notifications-center .notification-list-item, .notifications-toasts .notification-list-item')];
      return { texts: items.map((e) => e.querySelector('.notification-list-item-message')?.textContent ?? ''),
        links: items.flatMap((e) => [...e.querySelectorAll('.notification-list-item-message a')].map((a) => a.getAttribute('href') || a.textContent || '<a>')) }; })()`,
  );
}

/** Waits for a notification whose text holds `needle`. */
function notificationWith(page: Page, needle: string): Promise<Shown & { text: string }> {
  return eventually(`a notification with ${JSON.stringify(needle)}`, async () => {
    const shown = await notifications(page);
    const text = shown.texts.find((t) => t.includes(needle));
    return text === undefined ? undefined : { ...shown, text };
  }, 60_000);
}

describe('hostile snapshots in the workbench: no link in a notification', { skip: missingPrerequisite() ?? false, timeout: 240_000 }, () => {
  let workbench: UiWorkbench | undefined;
  let page: Page;
  let keyFile: string;
  let folderFile: string;

  /** The two hostile snapshots, written in the server's folder (outside the workspace). */
  function writeSnapshots(tempDir: string): void {
    keyFile = path.join(tempDir, 'key-link.pickle');
    writeFileSync(keyFile, encodePickle({ [LINK]: 1 }));
    folderFile = path.join(tempDir, 'folder-link.pickle');
    const frames = [{ filename: `/home/${LINK}/project/${LINK}.py`, line: 3, name: 'train' }];
    writeFileSync(
      folderFile,
      encodePickle({
        segments: [{ device: 0, address: 0, total_size: 2 << 20, blocks: [{ size: 1 << 20, requested_size: 1 << 20, state: 'active_allocated', frames }] }],
        device_traces: [[{ action: 'alloc', addr: 0, size: 1 << 20, stream: 0, time_us: 1, frames }]],
      }),
    );
  }

  before(async () => {
    workbench = await openUiWorkbench({ name: 'hostile', fromFolder: true, prepare: ({ tempDir }) => writeSnapshots(tempDir) });
    page = workbench.page;
  });

  after(async () => {
    await workbench?.close();
  });

  it('the "not a memory snapshot" error names the key as text, with no link', withScreenshot('hostile-key', () => page, async () => {
    await openSnapshotFromPalette(page, keyFile);
    const shown = await notificationWith(page, 'could not be read');
    assert.deepEqual(shown.links, [], 'a link was rendered in a notification');
    // The key is there, readable, with `](` broken apart so VS Code's link pattern cannot match.
    assert.ok(shown.text.includes('keys: [Show details] (command:workbench.action.terminal.sendSequence?'), shown.text);
  }));

  it('the recorded folder and the peak file name show as text, with no link', withScreenshot('hostile-folder', () => page, async () => {
    await openSnapshotFromPalette(page, folderFile);
    const question = await notificationWith(page, 'where is');
    assert.deepEqual(question.links, [], 'a link was rendered in a notification');
    assert.ok(question.text.includes('where is /home/[Show details] (command:workbench.action.terminal.sendSequence?'), question.text);
    const loaded = await notificationWith(page, 'folder-link.pickle');
    assert.deepEqual(loaded.links, [], 'a link was rendered in a notification');
    assert.ok(loaded.text.includes('[Show details] (command:workbench.action.terminal.sendSequence?'), loaded.text);
  }));
});
