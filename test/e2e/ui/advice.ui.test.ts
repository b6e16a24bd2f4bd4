/**
 * The advisor as a user meets it in the real workbench (code-server + Chromium), on programs of the
 * shapes issue 24 reported (test/helpers/inPlaceFixtures.ts, written into the workspace with the
 * snapshots their traces would record):
 * - attn.py:7 `s = s / math.sqrt(d)`, s made by `q @ k...` in the function: the in-place fix is in the
 *   light bulb; applied and saved, the file reads `s.div_(math.sqrt(d))` and the finding leaves the line;
 * - nca.py:10 `x = x+dx.transpose(1,4)`, x a view of the caller's tensor: the finding explains the
 *   saving and why no fix is offered, and the light bulb has no in-place fix; it says 0 B at the peak,
 *   as the line's hover does;
 * - nca.py:9 edited by hand: its finding is marked stale;
 * - the wedsonlin training snapshot (corpus): its before-recording finding is on the snapshot
 *   summary, and no finding is attached to the .pickle in the Problems panel.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { PythonSource } from '../../../src/engine/python/pythonSource';
import { ATTN, NCA, attnFixture, ncaFixture } from '../../helpers/inPlaceFixtures';
import { fixtureSnapshot, missingPrerequisite, resultsDir } from '../codeServer';
import type { UiWorkbench } from '../uiWorkbench';
import { goToLine, openUiWorkbench, openWorkspaceFile } from '../uiWorkbench';
import { eventually, mediaScreenshot, openSnapshotFromPalette, runCommand, withScreenshot } from '../workbench';

/** The Problems panel's text, once it shows `expected` (opened by the advisor's own command). */
async function problemsShowing(page: Page, expected: RegExp | ((text: string) => boolean), what: string): Promise<string> {
  const test = typeof expected === 'function' ? expected : (text: string) => expected.test(text);
  return eventually(
    what,
    async () => {
      const panel = page.locator('.markers-panel');
      if (!(await panel.isVisible().catch(() => false))) await runCommand(page, 'VRAM Lens: Show Advice for the Active Snapshot');
      const text = await panel.innerText().catch(() => '');
      return test(text) ? text : undefined;
    },
    60_000,
  );
}

/** The quick-fix menu's entries on the line the cursor is on (Ctrl+.), then closes it. */
async function quickFixMenu(page: Page, line: number): Promise<string[]> {
  await goToLine(page, line);
  await page.keyboard.press('Control+.');
  const widget = page.locator('.action-widget, .monaco-editor-overlaymessage').first();
  await widget.waitFor({ state: 'visible', timeout: 10_000 }).catch(() => undefined);
  await page.waitForTimeout(500);
  const items = await page.locator('.action-widget .monaco-list-row, .monaco-editor-overlaymessage').allInnerTexts();
  await page.keyboard.press('Escape');
  return items;
}

describe('the advisor in the workbench (code-server + Chromium)', { skip: missingPrerequisite() ?? false, timeout: 420_000 }, () => {
  let workbench: UiWorkbench | undefined;
  let page: Page;
  let workspace: string;
  let attnSnapshot: string;
  let ncaSnapshot: string;

  before(async () => {
    workbench = await openUiWorkbench({
      name: 'ui-advice',
      prepare: ({ workspace: ws, tempDir }) => {
        writeFileSync(path.join(ws, ATTN.file), attnFixture.source);
        writeFileSync(path.join(ws, NCA.file), ncaFixture.source);
        attnSnapshot = path.join(tempDir, 'attn.pickle');
        ncaSnapshot = path.join(tempDir, 'nca.pickle');
        writeFileSync(attnSnapshot, attnFixture.pickle());
        writeFileSync(ncaSnapshot, ncaFixture.pickle());
      },
    });
    ({ page, workspace } = workbench);
  });

  after(async () => {
    await workbench?.close();
  });

  it('offers the in-place fix where s belongs to the function; applied, the finding leaves the line', withScreenshot('advice-fix-offered', () => page, async () => {
    const original = readFileSync(path.join(workspace, ATTN.file), 'utf8');
    await openSnapshotFromPalette(page, attnSnapshot);
    await page.locator('.statusbar-item', { hasText: 'peak · cuda:0' }).waitFor({ timeout: 60_000 });
    await problemsShowing(page, /s = s \/ math\.sqrt\(d\)`: an in-place form may lower the peak by 63\.0 MiB/, 'the in-place finding in Problems');
    await openWorkspaceFile(page, ATTN.file, ATTN.line);

    const fix = page.locator('.action-widget .monaco-list-row', { hasText: 'Update in place' }).first();
    const fixed = page.locator('.view-line', { hasText: 's.div_(math.sqrt(d))' }).first();
    const applied = () => fixed.isVisible().catch(() => false);
    await eventually('the quick fix applied from the light bulb', async () => {
      if (await applied()) return true;
      if (!(await fix.isVisible().catch(() => false))) {
        await goToLine(page, ATTN.line);
        await page.keyboard.press('Control+.');
      }
      if (await fix.waitFor({ state: 'visible', timeout: 3_000 }).then(() => true, () => false)) {
        await fix.click();
        return eventually('the fix in the editor', async () => ((await applied()) ? true : undefined), 10_000);
      }
      await page.keyboard.press('Escape');
      return undefined;
    }, 90_000);
    await page.keyboard.press('Control+S');
    const saved = await eventually('the saved file', () => {
      const text = readFileSync(path.join(workspace, ATTN.file), 'utf8');
      return Promise.resolve(text !== original ? text : undefined);
    });
    assert.equal(PythonSource.parse(saved).errorCount, 0, 'the fixed file parses');
    assert.equal(saved, original.replace('    s = s / math.sqrt(d)', '    s.div_(math.sqrt(d))'), 'only the statement changed');

    // The finding follows the edit: resolved, it leaves line 7 (the growing list on line 8 stays).
    const text = await problemsShowing(page, (t) => !t.includes('an in-place form may lower the peak') && t.includes('attn.py'), 'the in-place finding gone from Problems');
    assert.match(text, /grows every iteration/, 'the other finding of the file is still there');
  }));

  it('explains without a fix where x is a view of the caller\'s tensor (nca.py:10), with the line\'s own figures', withScreenshot('advice-fix-explained', () => page, async () => {
    await openSnapshotFromPalette(page, ncaSnapshot);
    const text = await problemsShowing(page, /No quick fix is offered: `x = x_in\.transpose\(1, 4\)` \(line 6\) makes it a view of `x_in`, the caller's tensor/, 'the explained finding in Problems');
    assert.match(text, /The line holds 0 B at the device's peak/);
    assert.doesNotMatch(text, /were live at the device's peak/, 'the reported contradiction');
    await openWorkspaceFile(page, NCA.file, NCA.xLine);
    await page.locator('.squiggly-info, .squiggly-warning').first().waitFor({ timeout: 30_000 });
    const menu = await quickFixMenu(page, NCA.xLine);
    assert.ok(!menu.some((m) => m.includes('Update in place')), `no in-place fix in the menu: ${JSON.stringify(menu)}`);
    // The hover over the line: the finding's words, next to the line's own figures.
    const hover = page.locator('.monaco-hover', { hasText: 'No quick fix is offered' }).first();
    await eventually('the finding in the hover', async () => {
      await page.locator('.view-line', { hasText: 'x = x+dx.transpose(1,4)' }).first().hover({ position: { x: 60, y: 5 } });
      return (await hover.waitFor({ state: 'visible', timeout: 3_000 }).then(() => true, () => false)) ? true : undefined;
    }, 30_000);
    await page.screenshot({ path: path.join(resultsDir, 'advice-explained.png') });
    await page.mouse.move(5, 5);
  }));

  it('a line edited by hand marks its finding stale (nca.py:9)', withScreenshot('advice-stale', () => page, async () => {
    await openWorkspaceFile(page, NCA.file, NCA.dxLine);
    await page.keyboard.press('End');
    await page.keyboard.type(' * 1');
    await problemsShowing(page, /Stale: this code changed after the snapshot was recorded[^\n]*`dx = dx \* stochastic`/, 'the stale finding');
    // Typed away again, the line reads as recorded: the finding is current again.
    await openWorkspaceFile(page, NCA.file, NCA.dxLine);
    await page.keyboard.press('End');
    for (let i = 0; i < ' * 1'.length; i++) await page.keyboard.press('Backspace');
    await problemsShowing(page, (t) => /`dx = dx \* stochastic` allocates/.test(t) && !/Stale:[^\n]*`dx = dx \* stochastic`/.test(t), 'the finding current again');
  }));

  it('shows a snapshot-level finding (before recording) on the summary, and none on the .pickle', withScreenshot('advice-summary', () => page, async () => {
    await openSnapshotFromPalette(page, fixtureSnapshot);
    await page.locator('.statusbar-item', { hasText: 'peak · cuda:0' }).waitFor({ timeout: 60_000 });
    const problems = await problemsShowing(page, /Checkpointing candidate/, 'the training snapshot\'s findings in Problems');
    assert.doesNotMatch(problems, /\.pickle/, 'no finding is attached to the snapshot file');
    assert.doesNotMatch(problems, /allocated before recording began/, 'the before-recording finding is not in Problems');
    await runCommand(page, 'VRAM Lens: Show Snapshot Summary');
    const frame = page.locator('iframe.webview.ready').last().contentFrame().locator('#active-frame').contentFrame();
    const advice = frame.locator('#advice');
    await advice.locator('.finding', { hasText: 'of the peak was allocated before recording began' }).waitFor({ timeout: 60_000 });
    const text = await advice.innerText();
    assert.match(text, /41% of the peak was allocated before recording began/);
    assert.match(text, /Consider starting recording before the model is built/, 'its message is shown');
    // The summary may render once more (its sources annotated) while this scrolls: a detached section is found again.
    await eventually('the advice scrolled into view', async () => advice.scrollIntoViewIfNeeded({ timeout: 5_000 }).then(() => true, () => undefined), 30_000);
    await page.screenshot({ path: path.join(resultsDir, 'advice-summary.png') });
    await mediaScreenshot(page, 'screenshots/advice-summary.png');
  }));
});
