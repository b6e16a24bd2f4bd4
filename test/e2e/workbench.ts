/**
 * Driving the VS Code workbench (code-server) from the UI tests: the command palette, the file
 * dialog, waiting for something to appear, screenshots of failures, and the editor's decorations.
 */
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { resultsDir } from './codeServer';

/** Runs a command from the palette (F1), retrying while the extension host is still starting. */
export async function runCommand(page: Page, title: string): Promise<void> {
  const input = page.locator('.quick-input-widget input.input');
  const row = page.locator('.quick-input-list .monaco-list-row', { hasText: title }).first();
  const deadline = Date.now() + 60_000;
  for (;;) {
    await page.keyboard.press('F1');
    await input.waitFor({ state: 'visible' });
    await input.fill(`>${title}`);
    try {
      await row.waitFor({ timeout: 2_000 });
      break;
    } catch (e) {
      if (Date.now() > deadline) throw e;
      await page.keyboard.press('Escape');
      await page.waitForTimeout(1_000);
    }
  }
  await page.keyboard.press('Enter');
}

/** Polls `probe` until it returns a value. */
export async function eventually<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** A test body that leaves a screenshot of the page behind when it fails. */
export function withScreenshot(name: string, page: () => Page, body: () => Promise<void>): () => Promise<void> {
  return async () => {
    try {
      await body();
    } catch (e) {
      await page()
        .screenshot({ path: join(resultsDir, `failed-${name}.png`) })
        .catch(() => undefined);
      throw e;
    }
  };
}

/** `VRAM Lens: Open Snapshot...` with the workbench's own file dialog (a quick input holding a path). */
export async function openSnapshotFromPalette(page: Page, file: string): Promise<void> {
  await runCommand(page, 'VRAM Lens: Open Snapshot...');
  const title = page.locator('.quick-input-widget .quick-input-title', { hasText: 'Open a PyTorch memory snapshot' });
  await title.waitFor();
  const input = page.locator('.quick-input-widget input.input');
  // The dialog fills in its starting folder and lists it asynchronously, and may put that path back
  // over what was typed: type the snapshot's path until the dialog takes it.
  await eventually('the file dialog to accept the path', async () => {
    await input.fill(file);
    await page.waitForTimeout(700);
    if ((await input.inputValue()) !== file) return undefined;
    await page.keyboard.press('Enter');
    await page.waitForTimeout(700);
    return (await title.isVisible()) ? undefined : true;
  });
}

/**
 * Generated `::after` content of the editor's text spans: where decoration text lives (the inline
 * figures, compare mode's deltas). Strings of code run in the page, which the Node-side compiler has no
 * DOM types for.
 */
export async function afterTexts(page: Page): Promise<string[]> {
  const contents = await page.evaluate<string[]>(
    `[...document.querySelectorAll('.view-lines span')].map((span) => getComputedStyle(span, '::after').content)`,
  );
  return contents.filter((c) => c !== '' && c !== 'none' && c !== 'normal').map((c) => (c.startsWith('"') ? (JSON.parse(c) as string) : c));
}

/** The heat steps of the icons drawn in the glyph margin (`media/heat/heat-<theme kind>-<step>.svg`). */
export async function glyphHeatSteps(page: Page): Promise<number[]> {
  const images = await page.evaluate<string[]>(
    `[...document.querySelectorAll('.monaco-editor .margin div')].map((d) => getComputedStyle(d).backgroundImage).filter((b) => b.includes('heat-'))`,
  );
  return images.map((b) => Number(/heat-[A-Za-z]+-(\d+)\.svg/.exec(b)?.[1] ?? NaN));
}
