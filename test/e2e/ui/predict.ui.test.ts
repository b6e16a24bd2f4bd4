/**
 * Predict VRAM in the real VS Code workbench (code-server + Chromium), with a real PyTorch and no GPU: the
 * command asks which GPU, the program runs on fake 'cuda' tensors, and its own `_dump_snapshot` opens
 * annotated, as a recording would: gutter heat, inline figures, a hover that says predicted and for which GPU,
 * the status bar, the summary, and What If's table over GPU sizes.
 *
 * The program is ours (a small model trained for a step after a warm-up, dumping its own snapshot), and the
 * expected figures are its shapes. With VRAM_LENS_PROGRAMS naming a folder that holds the corpus pair's public
 * program (../shared/programs/README.md: `wedsonlin/` with cs336-basics/ and cs336_systems/, kept outside the
 * repository), that program is predicted instead, with the recording's figures. The interpreter is the wheel
 * environment scripts/setup-torch.sh makes (or VRAM_LENS_PREDICT_PYTHON: the corpus program needs einops,
 * jaxtyping and einx beside torch). Screenshots: media/screenshots/predict.png, predict-real-data.png.
 * Then a program that reads values from its tensors: the prediction says so, and the notification's Predict Again
 * with Real Data runs it on its data (computed on the CPU), with the sizes its data gives.
 */
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Frame, Locator, Page } from 'playwright-core';
import { missingPrerequisite, resultsDir } from '../codeServer';
import type { UiWorkbench } from '../uiWorkbench';
import { openUiWorkbench, openWorkspaceFile } from '../uiWorkbench';
import { afterTexts, eventually, glyphHeatSteps, mediaScreenshot, runCommand, withScreenshot } from '../workbench';

const TORCH_CACHE = process.env.VRAM_LENS_TORCH_CACHE ?? '/var/cache/vram-lens/torch';
const PYTHON = process.env.VRAM_LENS_PREDICT_PYTHON ?? path.join(TORCH_CACHE, 'wheel-2.13', 'bin', 'python');
const PROGRAMS = process.env.VRAM_LENS_PROGRAMS;
const CORPUS_PAIR = PROGRAMS !== undefined && existsSync(path.join(PROGRAMS, 'wedsonlin', 'cs336_systems')) ? path.join(PROGRAMS, 'wedsonlin') : undefined;
const GiB = 2 ** 30;

/** Ours: a warm-up step outside the window, then one recorded step whose largest tensor is 1 GiB. */
const OWN_PROGRAM = `import torch
model = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.GELU(), torch.nn.Linear(4096, 1024)).cuda()
opt = torch.optim.AdamW(model.parameters())
x = torch.randn(64, 1024, device="cuda")
for step in range(2):
    if step == 1:
        torch.cuda.memory._record_memory_history(max_entries=100000)
    big = torch.empty(256, 1024, 1024, device="cuda")  # big
    loss = model(x).square().mean()  # forward
    loss.backward()
    opt.step()
    opt.zero_grad()
    del big
torch.cuda.memory._dump_snapshot("predicted.pickle")
`;

/** Reads a count from its data: 4 of its 8 values are above 3.5, so 4 blocks of 4 MiB (fake data reads 1). */
const VALUES_PROGRAM = `import torch
x = torch.arange(8, device="cuda", dtype=torch.float32)
n = int((x > 3.5).sum().item())  # count
blocks = [torch.empty(1024, 1024, device="cuda") for _ in range(n)]  # blocks
torch.cuda.synchronize()
`;
const BLOCKS_LINE = 4;

/**
 * Runs a command from the palette, and once more if `shown` has not appeared 15 s later: in one of three CI runs
 * on 2026-11-29 the palette took Predict VRAM and no quick pick followed within 30 s (the same suite passed when
 * run again at once; the cause is not known). A command that never shows it still fails, after the second try.
 */
async function runCommandUntil(page: Page, title: string, shown: Locator): Promise<void> {
  await runCommand(page, title);
  try {
    await shown.waitFor({ timeout: 15_000 });
  } catch {
    await page.keyboard.press('Escape');
    await runCommand(page, title);
    await shown.waitFor({ timeout: 30_000 });
  }
}

function prerequisite(): string | undefined {
  return missingPrerequisite() ?? (existsSync(PYTHON) ? undefined : `no PyTorch environment at ${PYTHON} (run scripts/setup-torch.sh)`);
}

describe('Predict VRAM in the VS Code workbench (code-server + Chromium)', { skip: prerequisite() ?? false, timeout: 600_000 }, () => {
  let workbench: UiWorkbench | undefined;
  let page: Page;
  /** The file and line the test reads figures on, and the figure it expects there. */
  let target: { file: string; line: number; text: string; figure: string };

  before(async () => {
    workbench = await openUiWorkbench({
      name: 'predict',
      // The native piece is built once per PyTorch; the suites' cache saves the UI test that minute.
      env: { VRAM_LENS_NATIVE_CACHE: '/tmp/vram-lens-predict-native' },
      prepare: ({ workspace }) => {
        const settings: Record<string, unknown> = { 'vramLens.pythonPath': PYTHON, 'vramLens.profile.codeLens': 'off' };
        if (CORPUS_PAIR) {
          cpSync(CORPUS_PAIR, path.join(workspace, 'assignment2-systems'), { recursive: true, dereference: true });
          mkdirSync(path.join(workspace, 'assignment2-systems', 'scripts'), { recursive: true });
          mkdirSync(path.join(workspace, 'assignment2-systems', 'results'), { recursive: true });
          const driver = existsSync(path.join(CORPUS_PAIR, 'cs336_systems_py311')) ? 'cs336_systems_py311' : 'cs336_systems';
          settings['vramLens.profile.configurations'] = [
            {
              name: 'medium 512 training step',
              script: `\${workspaceFolder}/assignment2-systems/${driver}/nsys_profile.py`,
              cwd: '${workspaceFolder}/assignment2-systems/scripts',
              env: { PYTHONPATH: '${workspaceFolder}/assignment2-systems/cs336-basics' },
              args: '--vocab_size 10000 --context_length 512 --d_model 1024 --d_ff 4096 --num_layers 24 --num_heads 16 --model_name medium --warmup-steps 5 --autocast true --memory-profile true --pattern full-training-step',
            },
          ];
          // The recording's line 39 of model.py: 2,179,563,520 bytes live at its peak (SOURCES.md, vram-lens analyze).
          target = { file: 'assignment2-systems/cs336-basics/cs336_basics/model.py', line: 39, text: 'return einsum', figure: '2.0 GiB' };
        } else {
          writeFileSync(path.join(workspace, 'train.py'), OWN_PROGRAM);
          writeFileSync(path.join(workspace, 'values.py'), VALUES_PROGRAM);
          target = { file: 'train.py', line: 8, text: 'torch.empty(256, 1024, 1024', figure: '1.0 GiB' };
        }
        mkdirSync(path.join(workspace, '.vscode'), { recursive: true });
        writeFileSync(path.join(workspace, '.vscode', 'settings.json'), JSON.stringify(settings, null, 2));
      },
    });
    page = workbench.page;
  });

  after(async () => {
    await workbench?.close();
  });

  /** The frame of a webview holding `selector`. */
  async function frameWith(selector: string, what: string): Promise<Frame> {
    return eventually(what, async () => {
      for (const frame of page.frames()) if (await frame.locator(selector).count().catch(() => 0)) return frame;
      return undefined;
    }, 60_000);
  }

  it('asks which GPU, predicts, and opens the program\'s own snapshot annotated', withScreenshot('predict', () => page, async () => {
    if (!CORPUS_PAIR) await openWorkspaceFile(page, 'train.py');
    await runCommand(page, 'VRAM Lens: Predict VRAM...');
    if (CORPUS_PAIR) {
      const row = page.locator('.quick-input-list .monaco-list-row', { hasText: 'medium 512 training step' }).first();
      await row.waitFor({ timeout: 30_000 });
      await row.click();
    }
    const gpuTitle = page.locator('.quick-input-widget .quick-input-title', { hasText: 'predict for which GPU' });
    await gpuTitle.waitFor({ timeout: 30_000 });
    await page.locator('.quick-input-widget input.input').fill('A100 80GB');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'A100 80GB' }).first().waitFor();
    await page.keyboard.press('Enter');
    // The prediction runs (building the native piece if the cache has none), then its snapshot loads.
    const status = page.locator('.statusbar-item', { hasText: 'predicted for A100 80GB' });
    await status.waitFor({ timeout: 420_000 });
    await openWorkspaceFile(page, target.file, target.line);
    const inline = await eventually('the inline figure on the line', async () => {
      const texts = await afterTexts(page);
      return texts.find((t) => t.includes(target.figure));
    }, 60_000);
    assert.ok(inline.includes(target.figure), inline);
    assert.ok((await glyphHeatSteps(page)).length > 0, 'heat marks in the gutter');
  }));

  it('the hover says predicted, and for which GPU', withScreenshot('predict-hover', () => page, async () => {
    const line = page.locator('.view-line', { hasText: target.text }).first();
    const box = await line.boundingBox();
    assert.ok(box, 'the line is on screen');
    await page.mouse.move(box.x + 80, box.y + box.height / 2);
    const hover = page.locator('.monaco-hover:not(.hidden)', { hasText: 'VRAM Lens' }).first();
    await hover.waitFor({ timeout: 20_000 });
    const text = await hover.innerText();
    assert.match(text, /predicted for A100 80GB/, text);
    await mediaScreenshot(page, 'screenshots/predict.png');
    await page.mouse.move(5, 5);
  }));

  it('the summary says what was predicted; What If\'s table answers for other GPUs', withScreenshot('predict-what-if', () => page, async () => {
    await runCommand(page, 'VRAM Lens: Show Snapshot Summary');
    const summary = await frameWith('section.prediction', 'the summary\'s prediction section');
    const words = (await summary.locator('section.prediction').innerText()).replace(/\s+/g, ' ');
    assert.match(words, /Predicted for A100 80GB/);
    assert.match(words, new RegExp(`${(80 * GiB).toLocaleString('en-US')} bytes`));
    assert.match(words, /Fits yes/);
    await runCommand(page, 'VRAM Lens: What If...');
    const whatIf = await frameWith('.gpu-table', 'the what-if panel with its table');
    const rows = await eventually('the table\'s rows', async () => {
      const all = await whatIf.locator('.gpu-table tbody tr').all();
      return all.length > 0 ? all : undefined;
    }, 60_000);
    const first = (await rows[0].innerText()).replace(/\s+/g, ' ');
    assert.match(first, /\d+ GB/, `a GPU size heads the row: ${first}`);
    assert.match(first, /fits|OOM at/, first);
    await page.screenshot({ path: path.join(resultsDir, 'predict-what-if.png') });
  }));

  const realData = { skip: CORPUS_PAIR ? 'with the corpus pair this workspace holds its program only' : false };
  it('a value read from data is assumed and said; Predict with Real Data runs the program\'s own data', realData, withScreenshot('predict-real-data', () => page, async () => {
    await openWorkspaceFile(page, 'values.py');
    await runCommandUntil(page, 'VRAM Lens: Predict VRAM...', page.locator('.quick-input-widget .quick-input-title', { hasText: 'predict for which GPU' }));
    await page.locator('.quick-input-widget input.input').fill('A100 80GB');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'A100 80GB' }).first().waitFor();
    await page.keyboard.press('Enter');
    // Fake data reads the count as 1: one block of 4 MiB on the line, and the notification says what was assumed.
    await page.locator('.statusbar-item', { hasText: '4.0 MiB peak · predicted for A100 80GB' }).waitFor({ timeout: 300_000 });
    await openWorkspaceFile(page, 'values.py', BLOCKS_LINE);
    await eventually('one block under fake data', async () => (await afterTexts(page)).find((x) => x.startsWith('4.0 MiB')), 60_000);
    // This workbench (code-server with the smoke-test driver) keeps notifications in the notification center.
    await runCommand(page, 'Notifications: Show Notifications');
    const told = page.locator('.notifications-center .notification-list-item', { hasText: 'Values read from data were assumed' });
    await told.waitFor({ timeout: 30_000 });
    await mediaScreenshot(page, 'screenshots/predict-real-data.png');
    await told.locator('.monaco-button', { hasText: 'Predict with Real Data' }).click();
    await page.locator('.statusbar-item', { hasText: '16.0 MiB peak · predicted for A100 80GB' }).waitFor({ timeout: 300_000 });
    // On its data: 4 blocks, 16 MiB on the line, and the summary says the tensors held the program's data.
    await openWorkspaceFile(page, 'values.py', BLOCKS_LINE);
    const figure = await eventually('four blocks on the program\'s data', async () => (await afterTexts(page)).find((x) => x.startsWith('16.0 MiB')), 300_000);
    assert.ok(figure.startsWith('16.0 MiB'), figure);
    await runCommand(page, 'VRAM Lens: Show Snapshot Summary');
    const words = await eventually('the summary of the run on real data', async () => {
      for (const frame of page.frames()) {
        const section = frame.locator('section.prediction', { hasText: 'real data on the CPU' });
        if (await section.count().catch(() => 0)) return (await section.first().innerText()).replace(/\s+/g, ' ');
      }
      return undefined;
    }, 60_000);
    assert.match(words, /Nothing was assumed/, words);
  }));
});
