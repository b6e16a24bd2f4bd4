/**
 * Profile ONNX Model's input questions, answered as a user would in the real workbench (code-server +
 * Chromium): a model of our own making (test/e2e/rangerModel.ts) with an open dimension `rows` and an
 * int64 scalar `k`. The scalar is asked first, its default shown before the run; then the dimension. The
 * run's figures, read from the VRAM Lens log, are those of the answers (inputs = 32 rows + 24 B,
 * intermediates = 32 rows + 8 k). A second run shows the remembered answer and asks no dimension again.
 */
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { formatBytes } from '../../../src/engine/text/format';
import { missingPrerequisite } from '../codeServer';
import { rangerFigures, rangerModel } from '../rangerModel';
import type { UiWorkbench } from '../uiWorkbench';
import { openUiWorkbench } from '../uiWorkbench';
import { eventually, runCommand, withScreenshot } from '../workbench';

const ROWS = 5;
const K = 6;

describe('Profile ONNX Model asks for an open dimension and an integer scalar (code-server + Chromium)', { skip: missingPrerequisite() ?? false, timeout: 180_000 }, () => {
  let workbench: UiWorkbench | undefined;
  let page: Page;
  let model: string;

  /** A workspace of its own: the model, and workloads on the CPU. */
  function modelsWorkspace(tempDir: string): string {
    const workspace = path.join(tempDir, 'models');
    mkdirSync(path.join(workspace, '.vscode'), { recursive: true });
    model = path.join(workspace, 'ranger.onnx');
    writeFileSync(model, rangerModel());
    writeFileSync(path.join(workspace, '.vscode', 'settings.json'), JSON.stringify({ 'vramLens.workloads.executionProvider': 'cpu' }));
    return workspace;
  }

  before(async () => {
    workbench = await openUiWorkbench({ name: 'ui-model-inputs', makeWorkspace: modelsWorkspace });
    page = workbench.page;
  });

  after(async () => {
    await workbench?.close();
  });

  const input = () => page.locator('.quick-input-widget input.input');
  const title = (text: string) => page.locator('.quick-input-widget .quick-input-title', { hasText: text });

  /** Profile ONNX Model from the palette, the model's path typed into the workbench's file dialog. */
  async function profileFromPalette(): Promise<void> {
    await runCommand(page, 'VRAM Lens: Profile ONNX Model...');
    const dialog = title('profile an ONNX model');
    await dialog.waitFor();
    await eventually('the file dialog to accept the path', async () => {
      await input().fill(model);
      await page.waitForTimeout(700);
      if ((await input().inputValue()) !== model) return undefined;
      await page.keyboard.press('Enter');
      await page.waitForTimeout(700);
      return (await dialog.isVisible()) ? undefined : true;
    });
  }

  /** What the VRAM Lens log says of each run of the model (the view wraps lines and writes spaces as U+00A0). */
  async function logLines(): Promise<string[]> {
    const text = await page.locator('.part.panel .view-lines').innerText().catch(() => '');
    const flat = text.replace(/\u00a0/g, ' ').replace(/\s*\n\s*/g, ' ');
    return flat.match(/ranger\.onnx on cpu: peak .*? reconstructed/g) ?? [];
  }

  /** The run's peak in the status bar: inputs + intermediates (here the arena measures what the graph holds). */
  async function waitForPeak(rows: number, k: number): Promise<void> {
    const { inputBytes, reconstructedPeakBytes } = rangerFigures(rows, k);
    await page.locator('.statusbar-item', { hasText: `${formatBytes(inputBytes + reconstructedPeakBytes)} peak · CPU` }).waitFor({ timeout: 60_000 });
  }

  it('asks k (default 1, before the run), then rows; the run uses both answers', withScreenshot('model-inputs', () => page, async () => {
    await profileFromPalette();
    await title("value of input 'k' (1 of 1)").waitFor({ timeout: 30_000 });
    assert.equal(await input().inputValue(), '1', 'the default offered for an integer scalar not named like a sample rate');
    await input().fill(String(K));
    await page.keyboard.press('Enter');
    await title("size of 'rows' (1 of 1)").waitFor();
    assert.equal(await input().inputValue(), '1', 'the size offered for an open dimension (issue 24: 1, as the command line chooses)');
    await input().fill(String(ROWS));
    await page.keyboard.press('Enter');
    await waitForPeak(ROWS, K);

    // The run's line in the log (the notification's Show Log; this workbench keeps notifications in the center).
    await runCommand(page, 'Notifications: Show Notifications');
    const done = page.locator('.notifications-center .notification-list-item', { hasText: 'VRAM Lens: peak ranger.onnx' });
    await done.waitFor({ timeout: 30_000 });
    await done.locator('.monaco-button', { hasText: 'Show Log' }).click();
    const expected = rangerFigures(ROWS, K);
    const line = await eventually('the run in the VRAM Lens log', async () => (await logLines())[0]);
    assert.ok(line.includes(`(inputs ${formatBytes(expected.inputBytes)};`), `inputs of rows = ${ROWS}: ${line}`);
    assert.ok(line.includes(`, ${formatBytes(expected.reconstructedPeakBytes)} reconstructed`), `intermediates of rows = ${ROWS}, k = ${K}: ${line}`);
  }));

  it('a second run offers the remembered k and does not ask rows again', withScreenshot('model-inputs-again', () => page, async () => {
    await page.keyboard.press('Escape');
    await profileFromPalette();
    await title("value of input 'k'").waitFor({ timeout: 30_000 });
    assert.equal(await input().inputValue(), String(K), 'the answer remembered for this model');
    await input().fill(String(K + 1));
    await page.keyboard.press('Enter');
    await waitForPeak(ROWS, K + 1);
    assert.equal(await title('size of').count(), 0, 'rows was not asked again');
  }));
});
