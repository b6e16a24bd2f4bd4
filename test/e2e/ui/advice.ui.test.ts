/**
 * The advisor's quick fix, applied as a user would in the real workbench (code-server + Chromium):
 * open the wedsonlin training snapshot, open the optimizer it recorded, click the light bulb on
 * the in-place finding at optimizer.py:80, pick the fix, save, and read the file back: it parses
 * as Python and only that statement changed.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { PythonSource } from '../../../src/engine/python/pythonSource';
import { fixtureSnapshot, missingPrerequisite } from '../codeServer';
import type { UiWorkbench } from '../uiWorkbench';
import { goToLine, openUiWorkbench, openWorkspaceFile } from '../uiWorkbench';
import { eventually, openSnapshotFromPalette, withScreenshot } from '../workbench';

const OPTIMIZER = path.join('cs336-basics', 'cs336_basics', 'optimizer.py');
const LINE = 80;
const BEFORE = 'p.data = p.data - lr * weight_decay * p.data';
const AFTER = 'p.data.sub_(lr * weight_decay * p.data)';

describe('the advisor\'s quick fix from the light bulb (code-server + Chromium)', { skip: missingPrerequisite() ?? false, timeout: 240_000 }, () => {
  let workbench: UiWorkbench | undefined;
  let page: Page;
  let workspace: string;

  before(async () => {
    // The extension host's logs (the advisor's, at trace level) are kept in test-results/ui-advice-logs.
    workbench = await openUiWorkbench({ name: 'ui-advice' });
    ({ page, workspace } = workbench);
  });

  after(async () => {
    await workbench?.close();
  });

  it('applies the in-place fix at optimizer.py:80; the saved file parses and reads as expected', withScreenshot('advice-quick-fix', () => page, async () => {
    const original = readFileSync(path.join(workspace, OPTIMIZER), 'utf8');
    assert.equal(original.split('\n')[LINE - 1].trim(), BEFORE, 'the fixture line the finding is about');

    await openSnapshotFromPalette(page, fixtureSnapshot);
    await page.locator('.statusbar-item', { hasText: 'peak · cuda:0' }).waitFor({ timeout: 60_000 });

    await openWorkspaceFile(page, 'cs336_basics/optimizer.py', LINE);

    // The finding arrives when the worker has analysed the snapshot; then the light bulb shows on the line.
    const fix = page.locator('.action-widget .monaco-list-row', { hasText: 'Update in place' }).first();
    const fixed = page.locator('.view-line', { hasText: 'p.data.sub_(lr' }).first();
    const applied = () => fixed.isVisible().catch(() => false);
    const menu: string[] = [];
    await eventually('the quick fix in the light bulb menu', async () => {
      // A menu that opened late may have taken a key press meant for something else: the fix is in.
      if (await applied()) return true;
      if (!(await fix.isVisible().catch(() => false))) {
        // The light bulb (in the gutter or over the text, by VS Code version), else its key, Ctrl+.
        const bulb = page.locator('.lightBulbWidget, .codicon-light-bulb, .codicon-lightbulb-autofix').first();
        if (await bulb.isVisible().catch(() => false)) await bulb.click({ timeout: 3_000 }).catch(() => page.keyboard.press('Control+.'));
        else await page.keyboard.press('Control+.');
      }
      if (await fix.waitFor({ state: 'visible', timeout: 3_000 }).then(() => true, () => false)) {
        await fix.click();
        return eventually('the fix in the editor', async () => ((await applied()) ? true : undefined), 10_000);
      }
      if (await applied()) return true;
      const cursor = await page.locator('.statusbar-item', { hasText: /^Ln \d+/ }).first().innerText().catch(() => 'no cursor position');
      menu.push(...(await page.locator('.action-widget, .monaco-editor-overlaymessage').allInnerTexts()).map((text) => `${cursor}: ${text}`));
      await page.keyboard.press('Escape');
      // Put the cursor on the line again so the editor asks for code actions again.
      await goToLine(page, LINE);
      return undefined;
    }, 90_000).catch((e: unknown) => {
      throw new Error(`${String(e)}; menus seen: ${JSON.stringify([...new Set(menu)].slice(0, 5))}`);
    });
    await page.keyboard.press('Control+S');

    const saved = await eventually('the saved file', () => {
      const text = readFileSync(path.join(workspace, OPTIMIZER), 'utf8');
      return Promise.resolve(text !== original ? text : undefined);
    });
    assert.equal(PythonSource.parse(saved).errorCount, 0, 'the fixed file parses');
    const lines = original.split('\n');
    lines[LINE - 1] = lines[LINE - 1].replace(BEFORE, AFTER);
    assert.equal(saved, lines.join('\n'), 'only the statement at line 80 changed, indentation kept');
  }));
});
