/**
 * Issue 24 item 5 in the real workbench (code-server + Chromium), as a new user meets VRAM Lens: the
 * walkthrough on the Welcome page, step by step (the sample opens annotated with its snapshot, the
 * gutter, the timeline, the summary, then Profile VRAM on the user's own file); Run Built-in Workload
 * answered with Enter at every question gives figures in MiB; a `.pickle` opened from the workspace
 * opens in the snapshot summary, and one that is not a snapshot says so and reopens in the text
 * editor. The walkthrough's images (media/walkthrough/*.png) are taken here.
 */
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { encodePickle } from '../../../src/engine/pickle/encoder';
import { corpusDir, missingPrerequisite, repoRoot, resultsDir } from '../codeServer';
import { binary, expectedHeatStep, expectedInline, oracle, oracleLine } from '../expected';
import type { UiWorkbench } from '../uiWorkbench';
import { openUiWorkbench, openWorkspaceFile } from '../uiWorkbench';
import { webviewFrame } from '../webviewLayout';
import { afterTexts, eventually, glyphHeatSteps, runCommand, withScreenshot } from '../workbench';

const SAMPLE_SNAPSHOT = path.join(repoRoot, 'media', 'samples', 'similarity-eager.pickle');
const WALKTHROUGH_MEDIA = path.join(repoRoot, 'media', 'walkthrough');

async function notificationTexts(page: Page): Promise<string[]> {
  if (!(await page.locator('.notifications-center.visible').isVisible())) await runCommand(page, 'Notifications: Show Notifications');
  return page.evaluate<string[]>(`[...document.querySelectorAll('.notifications-center .notification-list-item-message')].map((e) => e.textContent ?? '')`);
}

/** A step of our walkthrough, by its id in package.json. */
function step(page: Page, id: string): Locator {
  return page.locator(`.getting-started-step[data-step-id="vram-lens.vram-lens#gettingStarted#${id}"]`);
}

/** Shows the walkthrough with step `id` open (its description, button and media). */
async function selectStep(page: Page, id: string): Promise<Locator> {
  await page.locator('.tab', { hasText: 'Welcome' }).first().click();
  const s = step(page, id);
  await s.waitFor({ state: 'attached', timeout: 30_000 });
  // The steps' buttons read as disabled to Playwright while the page lays out: the page's own click handler takes a dispatched click.
  await eventually(`step ${id} open`, async () => {
    if ((await s.getAttribute('aria-expanded')) === 'true' && (await s.isVisible())) return true;
    await s.dispatchEvent('click');
    await page.waitForTimeout(500);
    return undefined;
  });
  return s;
}

/** Opens step `id` and clicks its button. */
async function clickStepButton(page: Page, id: string, label: string): Promise<void> {
  const s = await selectStep(page, id);
  const button = s.locator('.button-container .monaco-button', { hasText: label });
  await button.waitFor({ timeout: 10_000 });
  await button.click();
}

describe('first contact: the walkthrough, the built-in workloads, .pickle files (code-server + Chromium)', { skip: missingPrerequisite() ?? false, timeout: 300_000 }, () => {
  let workbench: UiWorkbench | undefined;
  let page: Page;
  const [sample] = oracle(SAMPLE_SNAPSHOT);

  before(async () => {
    workbench = await openUiWorkbench({
      name: 'ui-first-run',
      prepare: ({ workspace }) => {
        mkdirSync(path.join(workspace, 'snapshots'));
        copyFileSync(path.join(corpusDir, 'silmont2000-cs336-small.pickle'), path.join(workspace, 'snapshots', 'small.pickle'));
        // A pickle that is not a memory snapshot (what many .pickle files are).
        writeFileSync(path.join(workspace, 'snapshots', 'words.pickle'), encodePickle({ apple: 1, pear: [1, 2, 3] }));
      },
    });
    page = workbench.page;
    mkdirSync(WALKTHROUGH_MEDIA, { recursive: true });
  });

  after(async () => {
    await workbench?.close();
  });

  it('the walkthrough is on the Welcome page and its first step opens the sample annotated by its snapshot', withScreenshot('walkthrough-sample', () => page, async () => {
    await runCommand(page, 'Welcome: Open Walkthrough...');
    const row = page.locator('.quick-input-list .monaco-list-row', { hasText: 'Get Started with VRAM Lens' }).first();
    await row.waitFor({ timeout: 20_000 });
    await row.click();
    const titles = await page.locator('.getting-started-step .step-title').allInnerTexts();
    assert.deepEqual(titles, ['Open the sample and its snapshot', 'Read the gutter and the figures', 'Follow memory over time', 'See the whole snapshot', 'Profile your own program']);
    await page.screenshot({ path: path.join(resultsDir, 'walkthrough.png') });

    await clickStepButton(page, 'openSample', 'Open the Sample');
    await page.locator('.tab.active', { hasText: 'similarity.py' }).waitFor({ timeout: 30_000 });
    await page.locator('.statusbar-item', { hasText: `${binary(sample.peakBytes)} peak` }).waitFor({ timeout: 60_000 });
    // Line 27 reached the peak; its figure as the oracle reads the snapshot.
    const expected = expectedInline(oracleLine(sample, 'media/samples/similarity.py', 27), sample.peakBytes);
    const texts = await eventually('the inline figures of the sample', async () => {
      const t = await afterTexts(page);
      return t.includes(expected) ? t : undefined;
    }, 30_000);
    assert.ok(texts.includes(expected), `line 27 reads "${expected}": ${texts.join(' | ')}`);
  }));

  it('the gutter step: heat marks on the sample\'s lines, the step\'s picture taken from them', withScreenshot('walkthrough-gutter', () => page, async () => {
    const steps = await eventually('heat icons in the gutter', async () => {
      const s = await glyphHeatSteps(page);
      return s.length > 0 ? s : undefined;
    });
    assert.ok(steps.includes(expectedHeatStep(oracleLine(sample, 'media/samples/similarity.py', 27), sample.peakBytes)), `line 27's step is drawn: ${steps.join(', ')}`);
    const editor = page.locator('.editor-group-container.active .editor-container').first();
    await editor.screenshot({ path: path.join(WALKTHROUGH_MEDIA, 'gutter.png') });
    await selectStep(page, 'gutter');
    const media = page.locator('.getting-started-media').first();
    await eventually('the step\'s picture', async () => ((await media.innerHTML().catch(() => '')).includes('gutter.png') ? true : undefined), 10_000).catch(async (e: unknown) => {
      throw new Error(`${String(e)}: ${(await media.innerHTML().catch(() => 'no media')).slice(0, 400)}`);
    });
  }));

  it('the timeline step opens the timeline of the sample', withScreenshot('walkthrough-timeline', () => page, async () => {
    await clickStepButton(page, 'timeline', 'Open the Timeline');
    const frame = await eventually('the timeline webview', async () => {
      for (const f of page.frames()) if (await f.locator('#chart').count().catch(() => 0)) return f;
      return undefined;
    }, 60_000);
    // The page shows once the snapshot's overview arrived; its status names no error.
    await frame.locator('#app:not([hidden])').waitFor({ timeout: 30_000 });
    await page.waitForTimeout(1_500);
    await page.locator('#workbench\\.parts\\.sidebar').screenshot({ path: path.join(WALKTHROUGH_MEDIA, 'timeline.png') });
  }));

  it('the summary step shows the sample snapshot\'s summary', withScreenshot('walkthrough-summary', () => page, async () => {
    await clickStepButton(page, 'summary', 'Show the Summary');
    const frame = await webviewFrame(page, 'h1', 'similarity-eager.pickle');
    const stats = await frame.locator('dl.stats').innerText();
    assert.ok(stats.includes(binary(sample.peakBytes)), stats);
    await page.waitForTimeout(500);
    await page.locator('.editor-group-container.active .editor-container').first().screenshot({ path: path.join(WALKTHROUGH_MEDIA, 'summary.png') });
  }));

  it('the last step offers Profile VRAM on the user\'s own file', withScreenshot('walkthrough-profile', () => page, async () => {
    await clickStepButton(page, 'profile', 'Profile VRAM');
    // From the Welcome page no Python file is active: it says what to open.
    const texts = await eventually('what Profile VRAM asks for', async () => {
      const t = await notificationTexts(page);
      return t.some((x) => x.includes('open a Python file to profile')) ? t : undefined;
    });
    assert.ok(texts.some((x) => x.includes('open a Python file to profile')));
    await page.keyboard.press('Escape');
  }));

  it('Run Built-in Workload with Enter at every question: figures in MiB, not KiB', withScreenshot('workload-defaults', () => page, async () => {
    await runCommand(page, 'VRAM Lens: Run Built-in Workload...');
    for (const title of ['run a built-in workload', 'variants to run', 'size']) {
      await page.locator('.quick-input-widget .quick-input-title', { hasText: title }).waitFor({ timeout: 20_000 });
      if (title === 'size') {
        const first = await page.locator('.quick-input-list .monaco-list-row').first().innerText();
        assert.match(first, /^medium/, `the default size is first: ${first}`);
      }
      await page.keyboard.press('Enter');
    }
    const texts = await eventually('the run\'s peaks', async () => {
      const t = await notificationTexts(page);
      return t.some((x) => x.startsWith('VRAM Lens: peak eager')) ? t : undefined;
    }, 120_000);
    const message = texts.find((x) => x.startsWith('VRAM Lens: peak eager'))!;
    const peaks = [...message.matchAll(/(eager|cleanup|inplace) ([\d.]+) (B|KiB|MiB|GiB)/g)];
    assert.equal(peaks.length, 3, message);
    for (const [, variant, , unit] of peaks) assert.ok(unit === 'MiB' || unit === 'GiB', `${variant}: ${message}`);
    await page.keyboard.press('Escape');
  }));

  it('a .pickle opens in the snapshot summary; one that is not a snapshot says so and reopens as text', withScreenshot('default-editor', () => page, async () => {
    await openWorkspaceFile(page, 'snapshots/small.pickle');
    const [small] = oracle(path.join(corpusDir, 'silmont2000-cs336-small.pickle'));
    const frame = await webviewFrame(page, 'h1', 'small.pickle');
    assert.ok((await frame.locator('dl.stats').innerText()).includes(binary(small.peakBytes)));
    assert.equal(await page.locator('.editor-group-container.active .monaco-editor').count(), 0, 'not opened as text');

    await openWorkspaceFile(page, 'snapshots/words.pickle');
    const words = await webviewFrame(page, 'p.error', 'This file could not be read as a PyTorch memory snapshot');
    const error = await words.locator('p.error').innerText();
    assert.match(error, /not a memory snapshot: the dict has no 'segments' or 'device_traces' \(keys: apple, pear\)/);
    assert.match(error, /torch\.cuda\.memory\._dump_snapshot/);
    await page.screenshot({ path: path.join(resultsDir, 'default-editor-not-a-snapshot.png') });
    await words.locator('#reopen', { hasText: 'Reopen in Text Editor' }).click();
    // VS Code's own editor for the file: text, or its notice that the file is binary.
    await eventually('the text editor', async () =>
      (await page.locator('.editor-group-container.active .monaco-editor, .editor-group-container.active .monaco-editor-pane-placeholder').count()) > 0 ? true : undefined,
    );
    await page.screenshot({ path: path.join(resultsDir, 'default-editor-reopened.png') });
  }));
});
