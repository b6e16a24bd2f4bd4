/**
 * A Jupyter notebook in the real VS Code workbench (code-server, its built-in notebook support) driven
 * through Chromium, with a snapshot a real Jupyter kernel recorded (ipykernel from Debian running the
 * notebook's cells under the stand-in torch): heat marks and inline figures on the cell lines, a hover
 * that names the cell, and a timeline block whose Go to Source opens the cell at its line. The expected
 * figures come from the Python oracle on the recorded file names, the lines from the cells' text.
 * Screenshots: test-results/notebook-*.png (media/screenshots/notebook.png in the README is one of them).
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Frame, Page } from 'playwright-core';
import { ipykernelCellHash } from '../../../src/engine/notebook/murmur2';
import { ipythonLineOffset } from '../../../src/engine/notebook/cellLines';
import { parseNotebook } from '../../../src/engine/notebook/ipynb';
import { missingPrerequisite, resultsDir } from '../codeServer';
import type { UiWorkbench } from '../uiWorkbench';
import { openUiWorkbench, openWorkspaceFile } from '../uiWorkbench';
import type { OracleDevice } from '../expected';
import { binary, expectedInline, oracle, oracleLine } from '../expected';
import { eventually, mediaScreenshot, openSnapshotFromPalette, runCommand, withScreenshot } from '../workbench';
import type { KernelRun, TestCell } from '../../notebook/kernelHelpers';
import { fakeTorch, kernelMissing, markerLine, notebookJson, runKernel } from '../../notebook/kernelHelpers';

const MiB = 1024 * 1024;

function cells(snapshot: string): TestCell[] {
  return [
    { type: 'markdown', source: '# A training step\nEach cell allocates on the stand-in GPU.' },
    { type: 'code', source: 'import torch\ntorch.cuda.memory._record_memory_history(max_entries=100000)' },
    { type: 'code', source: 'def layer(n):\n    w = torch.empty(n)  # the weights\n    return w' },
    {
      type: 'code',
      source: '\nx = layer(64 * 1024 * 1024)\nacts = [torch.empty(32 * 1024 * 1024) for _ in range(4)]\ntmp = torch.empty(16 * 1024 * 1024)\ndel tmp',
    },
    { type: 'code', source: `torch.cuda.memory._dump_snapshot(${JSON.stringify(snapshot)})` },
  ];
}

/** The notebook `%%vram` is tried on: its second cell records itself. */
const VRAM_CELLS: TestCell[] = [
  { type: 'code', source: 'import torch' },
  { type: 'code', source: '%%vram\nbig = torch.empty(96 * 1024 * 1024)  # alloc-big\nsmall = torch.empty(8 * 1024 * 1024)' },
];

/** Generated `::after` content of the editors' text spans: where decoration text lives. */
async function afterTexts(page: Page): Promise<string[]> {
  const contents = await page.evaluate<string[]>(
    `[...document.querySelectorAll('.view-lines span')].map((span) => getComputedStyle(span, '::after').content)`,
  );
  return contents.filter((c) => c !== '' && c !== 'none' && c !== 'normal').map((c) => (c.startsWith('"') ? (JSON.parse(c) as string) : c));
}

interface Hooks {
  __vramLensTimeline?: {
    drawNow(): unknown;
    inspect(): { status: string; span?: { blockRecord: ArrayLike<number>; blockLine: ArrayLike<number>; lines: readonly { id: number; file: string; line: number }[] } };
    pointOf(record: number): { x: number; y: number; height: number } | undefined;
  };
}

describe('a Jupyter notebook in the VS Code workbench (code-server + Chromium)', { skip: missingPrerequisite() ?? kernelMissing() ?? false, timeout: 300_000 }, () => {
  let workbench: UiWorkbench | undefined;
  let page: Page;
  let snapshot = '';
  let notebookCells: TestCell[] = [];
  let device: OracleDevice;
  let run: KernelRun;

  /** The recorded file of code cell `index` and the recorded line of its `marker` line (cell line minus the dropped blank lines). */
  function recorded(marker: string): { file: string; line: number; cell: number; cellLine: number } {
    const at = markerLine(notebookCells, marker);
    const source = notebookCells[at.cell].source;
    return { file: `${ipykernelCellHash(source)}.py`, line: at.line - ipythonLineOffset(source), cell: at.cell, cellLine: at.line };
  }

  before(async () => {
    workbench = await openUiWorkbench({
      name: 'notebook',
      timelineHooks: true,
      makeWorkspace: (tempDir) => {
        const workspace = path.join(tempDir, 'notebooks');
        mkdirSync(workspace, { recursive: true });
        snapshot = path.join(tempDir, 'kernel.pickle');
        notebookCells = cells(snapshot);
        const code = notebookCells.filter((c) => c.type === 'code');
        run = runKernel(code.map((c) => c.source), { cwd: workspace, env: { PYTHONPATH: fakeTorch } });
        for (const c of run.cells) assert.equal(c.status, 'ok', JSON.stringify(c));
        let k = 0;
        writeFileSync(path.join(workspace, 'train.ipynb'), notebookJson(notebookCells, notebookCells.map((c) => (c.type === 'code' ? run.cells[k++].executionCount : null))));
        writeFileSync(path.join(workspace, 'vram.ipynb'), notebookJson(VRAM_CELLS));
        return workspace;
      },
    });
    page = workbench.page;
    [device] = oracle(snapshot);
  });

  after(async () => {
    await workbench?.close();
  });

  it('draws heat marks and the inline figures on the lines of the cells', withScreenshot('notebook-annotations', () => page, async () => {
    await openWorkspaceFile(page, 'train.ipynb');
    await page.locator('.notebook-editor').first().waitFor({ timeout: 30_000 });
    await openSnapshotFromPalette(page, snapshot);
    await page.locator('.statusbar-item', { hasText: `${binary(device.peakBytes)} peak · cuda:0` }).waitFor({ timeout: 60_000 });
    const acts = recorded('acts = [');
    const expected = expectedInline(oracleLine(device, acts.file, acts.line), device.peakBytes);
    assert.equal(expected, `${binary(128 * MiB)} at peak (${Math.round((100 * 128 * MiB) / device.peakBytes)}%)`, 'the oracle reads the four activations');
    const x = recorded('x = layer(');
    const texts = await eventually('the inline figures of the cell lines', async () => {
      const t = await afterTexts(page);
      return t.includes(expected) ? t : undefined;
    }, 60_000);
    assert.ok(texts.includes(expected), `acts reads "${expected}": ${texts.join(' | ')}`);
    // The line holding the weights inside layer() (cell 3) is drawn too.
    const w = recorded('torch.empty(n)');
    assert.ok(texts.includes(expectedInline(oracleLine(device, w.file, w.line), device.peakBytes)), texts.join(' | '));
    assert.ok(x.cellLine === x.line + 1, 'the cell with a blank line on top: recorded lines count from its first line with text');
    const icons = await page.evaluate<number>(`[...document.querySelectorAll('.monaco-editor .margin div')].filter((d) => getComputedStyle(d).backgroundImage.includes('heat-')).length`);
    assert.ok(icons > 0, 'heat icons in the cells\' glyph margins');
    // The code lens over layer() in its cell: the function's peak and what it holds at the peak.
    const lens = page.locator('.contentWidgets .codelens-decoration', { hasText: 'VRAM peak' }).first();
    await lens.waitFor({ timeout: 20_000 });
    assert.match(await lens.innerText(), new RegExp(`VRAM peak ${binary(64 * MiB)} · ${binary(64 * MiB)} live at peak`));
    await page.screenshot({ path: path.join(resultsDir, 'notebook-annotations.png') });
  }));

  it('explains a cell line in its hover, named by notebook, cell and line', withScreenshot('notebook-hover', () => page, async () => {
    const acts = recorded('acts = [');
    const line = page.locator('.view-line', { hasText: 'acts = [torch.empty' }).first();
    const box = await line.boundingBox();
    assert.ok(box, 'the acts line is on screen');
    await page.mouse.move(box.x + 40, box.y + box.height / 2);
    const hover = page.locator('.monaco-hover:not(.hidden)', { hasText: 'VRAM Lens' }).first();
    await hover.waitFor({ timeout: 30_000 });
    const text = await hover.innerText();
    assert.ok(text.includes(`train.ipynb, cell ${acts.cell + 1}, line ${acts.cellLine}`), text);
    assert.ok(text.includes(binary(128 * MiB)), text);
    assert.ok(!text.includes('ipykernel_'), 'no temporary file name');
    await page.screenshot({ path: path.join(resultsDir, 'notebook-hover.png') });
    await page.mouse.move(5, 5);
  }));

  it('names the cells in the snapshot summary, not the temporary files', withScreenshot('notebook-summary', () => page, async () => {
    await runCommand(page, 'VRAM Lens: Show Snapshot Summary');
    const frame = page.locator('iframe.webview.ready').last().contentFrame().locator('#active-frame').contentFrame();
    await frame.locator('h1', { hasText: 'kernel.pickle' }).waitFor({ timeout: 30_000 });
    const acts = recorded('acts = [');
    const table = await frame.locator('table.lines').first().innerText();
    assert.ok(table.includes(`train.ipynb, cell ${acts.cell + 1}, line ${acts.cellLine}`), table);
    const stats = await frame.locator('dl.stats').first().innerText();
    const tmp = recorded('tmp = torch.empty');
    assert.ok(stats.includes(`at train.ipynb, cell ${tmp.cell + 1}, line ${tmp.cellLine}`), `the peak's line: ${stats}`);
    assert.ok(!(table + stats).includes('ipykernel_') && !/\d+\.py:/.test(table + stats), 'no temporary file named');
    await page.screenshot({ path: path.join(resultsDir, 'notebook-summary.png') });
    await page.keyboard.press('Control+W');
    // The summary is a webview editor: once it is closed, the notebook's tab takes the keyboard back.
    await page.locator('.tab', { hasText: 'train.ipynb' }).click();
  }));

  it('opens the cell at its line from a timeline block', withScreenshot('notebook-timeline', () => page, async () => {
    await runCommand(page, 'VRAM Lens: Open Timeline');
    const frame: Frame = await eventually('the timeline webview', async () => {
      for (const f of page.frames()) if (await f.locator('#chart').count().catch(() => 0)) return f;
      return undefined;
    }, 60_000);
    await eventually('the page test hooks', async () => ((await frame.evaluate(() => (globalThis as Hooks).__vramLensTimeline !== undefined)) ? true : undefined));
    const x = recorded('x = layer(');
    const w = recorded('torch.empty(n)');
    // The weights block: 64 MiB made by the weights line of cell 3 (the innermost line of the notebook).
    const block = await eventually('the weights block, tall enough to point at', async () => {
      const found = await frame.evaluate((file) => {
        const hooks = (globalThis as Hooks).__vramLensTimeline!;
        hooks.drawNow();
        const win = hooks.inspect().span;
        if (!win) return undefined;
        for (let i = 0; i < win.blockRecord.length; i++) {
          const line = win.lines.find((l) => l.id === win.blockLine[i]);
          const p = hooks.pointOf(win.blockRecord[i]);
          if (line && line.file.endsWith(file) && p && p.height >= 3) return { record: win.blockRecord[i], x: p.x, y: p.y, line: line.line };
        }
        return undefined;
      }, w.file);
      return found ?? undefined;
    }, 60_000);
    assert.equal(block.line, w.line, 'the block is the weights line as recorded');
    const chart = (await frame.locator('#chart').boundingBox())!;
    await page.mouse.move(chart.x + block.x, chart.y + block.y);
    const tooltip = frame.locator('#tooltip');
    await tooltip.waitFor({ state: 'visible' });
    // The block's line, then (once the host sent its stack) the caller's line in the other cell.
    const tip = await eventually('the cells in the tooltip', async () => {
      const t = (await tooltip.textContent()) ?? '';
      return t.includes(`train.ipynb, cell ${w.cell + 1}, line ${w.cellLine}`) && t.includes(`train.ipynb, cell ${x.cell + 1}, line ${x.cellLine}`) ? t : undefined;
    }).catch(async () => (await tooltip.textContent()) ?? '');
    assert.ok(tip.includes(`train.ipynb, cell ${w.cell + 1}, line ${w.cellLine}`), tip);
    assert.ok(tip.includes(`train.ipynb, cell ${x.cell + 1}, line ${x.cellLine}`), `the caller's cell line in the stack: ${tip}`);
    await page.mouse.down();
    await page.mouse.up();
    await frame.locator('#detail').waitFor({ state: 'visible' });
    await page.screenshot({ path: path.join(resultsDir, 'notebook-timeline.png') });
    await frame.locator('#go-to-source').click();
    await page.locator('.tab.active', { hasText: 'train.ipynb' }).waitFor({ timeout: 20_000 });
    // The notebook's status bar item names the cell; the focused cell editor's cursor is on the weights line.
    await page.locator('.statusbar-item', { hasText: `Cell ${w.cell + 1} of ${notebookCells.length}` }).waitFor({ timeout: 20_000 });
    const cursorLine = await eventually('the cursor in the cell editor', async () => {
      const text = await page.evaluate<string>(`(() => {
        const editor = document.activeElement && document.activeElement.closest('.monaco-editor');
        const cursor = editor && editor.querySelector('.cursors-layer .cursor');
        if (!editor || !cursor) return '';
        const top = cursor.getBoundingClientRect().top;
        const line = [...editor.querySelectorAll('.view-line')].find((l) => Math.abs(l.getBoundingClientRect().top - top) < 3);
        return line ? line.textContent : '';
      })()`);
      return text.includes('torch.empty(n)') ? text : undefined;
    }).catch(() => '');
    assert.ok(cursorLine.includes('torch.empty(n)'), `the cursor is on line ${w.cellLine} of cell ${w.cell + 1}: "${cursorLine}"`);
    await page.screenshot({ path: path.join(resultsDir, 'notebook-go-to-cell.png') });
    await mediaScreenshot(page, 'screenshots/notebook.png');
  }));

  it('%%vram in the kernel annotates its cell with no other step (the cell that loads it inserted by the command)', withScreenshot('notebook-vram', () => page, async () => {
    await openWorkspaceFile(page, 'vram.ipynb');
    await page.locator('.notebook-editor').first().waitFor({ timeout: 30_000 });
    await runCommand(page, 'VRAM Lens: Record in Notebook Kernel...');
    await runCommand(page, 'Notifications: Show Notifications');
    const offer = page.locator('.notifications-center .notification-list-item', { hasText: 'run this cell in your notebook once' });
    await offer.waitFor({ timeout: 30_000 });
    await offer.locator('.monaco-button', { hasText: 'Insert a Cell at the Top' }).click();
    await page.locator('.view-line', { hasText: '%load_ext vram_lens.notebook' }).first().waitFor({ timeout: 20_000 });
    await page.keyboard.press('Control+S');
    // The notebook as saved: the inserted cell first, exactly as the command wrote it.
    const file = path.join(workbench!.workspace, 'vram.ipynb');
    const saved = await eventually('the saved notebook with the load cell', () => {
      const cells = parseNotebook(readFileSync(file, 'utf8'));
      return Promise.resolve(cells.length === 3 && cells[0].source.includes('%load_ext vram_lens.notebook') ? cells : undefined);
    });
    const watched = /VRAM_LENS_NOTEBOOK_DIR"\] = ("(?:[^"\\]|\\.)*")/.exec(saved[0].source);
    assert.ok(watched, saved[0].source);
    const folder = JSON.parse(watched[1]) as string;
    // The user's kernel runs the notebook's cells: the load cell, the import, then the %%vram cell.
    const kernel = runKernel(saved.map((c) => c.source), { cwd: workbench!.workspace, env: { PYTHONPATH: fakeTorch } });
    for (const c of kernel.cells) assert.equal(c.status, 'ok', JSON.stringify(c));
    assert.match(kernel.cells[2].stdout, /VRAM Lens: recorded cell/);
    const written = readdirSync(folder).filter((f) => f.endsWith('.pickle'));
    assert.equal(written.length, 1, `one snapshot in the watched folder: ${readdirSync(folder).join(', ')}`);
    const [recording] = oracle(path.join(folder, written[0]));
    // Nothing else was done: the extension saw the file, loaded it and annotated the cell.
    await page.locator('.statusbar-item', { hasText: `${binary(recording.peakBytes)} peak · cuda:0` }).waitFor({ timeout: 60_000 });
    const big = recording.lines.find((l) => l.allocBytes === 96 * MiB);
    assert.ok(big, 'the oracle has the 96 MiB line');
    const expected = expectedInline(big, recording.peakBytes);
    const texts = await eventually('the %%vram cell annotated', async () => {
      const t = await afterTexts(page);
      return t.includes(expected) ? t : undefined;
    }, 60_000);
    assert.ok(texts.includes(expected), texts.join(' | '));
    await page.screenshot({ path: path.join(resultsDir, 'notebook-vram.png') });
    await mediaScreenshot(page, 'screenshots/notebook-vram.png');
  }));
});
