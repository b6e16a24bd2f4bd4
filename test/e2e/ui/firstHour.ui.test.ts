/**
 * Issue 29, "the first hour in a real VS Code", in the workbench (code-server + Chromium): what a new
 * user hit, and what happens now.
 * - Open Sample -> Copy to Workspace: the copy carries the snapshot's figures (they stayed on the
 *   read-only bundled copy).
 * - "Not on This Machine": one answer covers the snapshot and everything under the declined folder,
 *   remembered (re-activating the snapshot, Go to Peak Line, another snapshot under that folder ask
 *   nothing), and Forget Path Mappings undoes it.
 * - Compare Snapshots offers files (the workspace's .pickle files, Browse..., a typed path) and loads them.
 * - A snapshot whose trace allocates more than its segments reserve (a "markup" file of our own making):
 *   the summary says reserved memory is unknown, the allocator section says the replay does not apply,
 *   and the advice states no "0 B reserved".
 * Expected figures are worked out from the files written here and the oracle (test/e2e/expected.ts).
 */
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { encodePickle } from '../../../src/engine/pickle/encoder';
import type { PlainValue } from '../../../src/engine/pickle/encoder';
import { corpusDir, fixtureSnapshot, missingPrerequisite, repoRoot, resultsDir } from '../codeServer';
import { binary, expectedInline, oracle, oracleLine } from '../expected';
import type { UiWorkbench } from '../uiWorkbench';
import { openUiWorkbench } from '../uiWorkbench';
import { webviewFrame } from '../webviewLayout';
import { afterTexts, eventually, openSnapshotFromPalette, runCommand, withScreenshot } from '../workbench';

const MiB = 2 ** 20;
const GiB = 2 ** 30;
const SAMPLE_SNAPSHOT = path.join(repoRoot, 'media', 'samples', 'similarity-eager.pickle');

/** A snapshot whose allocations are under `files` (none on this machine), the first one largest; all stay live, so the last reaches the peak. */
function recordedUnder(files: readonly string[]): Uint8Array {
  const events: PlainValue[] = [];
  let addr = 0x7f0000000000;
  files.forEach((filename, i) => {
    const size = (files.length - i) * MiB;
    events.push({ action: 'segment_alloc', addr, size, stream: 0, time_us: 10 * i, frames: [] });
    events.push({ action: 'alloc', addr, size, stream: 0, time_us: 10 * i + 1, frames: [{ filename, line: 3 + i, name: 'step' }] });
    addr += size;
  });
  return encodePickle({ segments: [], device_traces: [events] });
}

/** Ten folders /r0/proj .. /r9/proj; the peak's line (the last allocation) in a folder under /r0/proj. */
const ROOT_FILES = ['/r0/proj/m0.py', ...Array.from({ length: 9 }, (_, i) => `/r${i + 1}/proj/m${i + 1}.py`), '/r0/proj/deep/peak.py'];
/** 11 + 10 + ... + 1 MiB, all live at the last allocation. */
const ROOTS_PEAK = ((ROOT_FILES.length * (ROOT_FILES.length + 1)) / 2) * MiB;

/** The markup file: markdown and HTML in its file name; 1 GiB allocated with no segment recorded for the device; a 1 TiB OOM. */
function markupSnapshot(): Uint8Array {
  const frames = [{ filename: '/home/u/`code` **bold** <i>x</i>/train.py', line: 3, name: 'train' }];
  return encodePickle({
    segments: [{ device: 1, address: 0x7f0000000000, total_size: 2 * MiB, stream: 0, segment_type: 'small', allocated_size: 0, active_size: 0, blocks: [{ size: 2 * MiB, requested_size: 0, state: 'inactive', address: 0x7f0000000000, frames: [] }] }],
    device_traces: [
      [
        { action: 'alloc', addr: 0x7e0000000000, size: GiB, stream: 0, time_us: 10, frames },
        { action: 'oom', addr: 0, size: 1024 * GiB, stream: 0, time_us: 20, frames, device_free: 512 * MiB },
      ],
      [],
    ],
  });
}

async function showNotifications(page: Page): Promise<void> {
  if (!(await page.locator('.notifications-center.visible').isVisible())) await runCommand(page, 'Notifications: Show Notifications');
}

async function notificationTexts(page: Page): Promise<string[]> {
  await showNotifications(page);
  return page.evaluate<string[]>(`[...document.querySelectorAll('.notifications-center .notification-list-item-message')].map((e) => e.textContent ?? '')`);
}

async function clearNotifications(page: Page): Promise<void> {
  await runCommand(page, 'Notifications: Clear All Notifications');
}

/** The path questions shown now. */
async function pathQuestions(page: Page): Promise<string[]> {
  return (await notificationTexts(page)).filter((t) => t.includes('on this machine?'));
}

describe('the first hour, as a new user (code-server + Chromium)', { skip: missingPrerequisite() ?? false, timeout: 420_000 }, () => {
  let workbench: UiWorkbench | undefined;
  let page: Page;
  let workspace: string;
  let roots: string;
  let rootsAgain: string;
  let markup: string;
  let changed: string;
  const [sample] = oracle(SAMPLE_SNAPSHOT);

  before(async () => {
    workbench = await openUiWorkbench({
      name: 'ui-first-hour',
      prepare: ({ workspace: ws, tempDir }) => {
        roots = path.join(tempDir, 'roots.pickle');
        writeFileSync(roots, recordedUnder(ROOT_FILES));
        // Another snapshot: one folder under the declined one, one folder not asked about yet.
        rootsAgain = path.join(tempDir, 'roots-again.pickle');
        writeFileSync(rootsAgain, recordedUnder(['/r0/proj/other/x.py', '/r0/proj/other/y.py', '/r5/proj/m5.py']));
        markup = path.join(tempDir, 'markup.pickle');
        writeFileSync(markup, markupSnapshot());
        // A file changed since its recording: the OOM's line 5 is a comment now.
        mkdirSync(path.join(ws, 'changed'));
        writeFileSync(path.join(ws, 'changed', 'step_loop.py'), ['import torch', '', 'def step(x):', '    y = x * 2', '    # z = torch.cat([y, y])  (taken out since)', '    return y', ''].join('\n'));
        changed = path.join(tempDir, 'changed.pickle');
        const oomFrames = [{ filename: '/home/someone/proj/changed/step_loop.py', line: 5, name: 'step' }];
        writeFileSync(
          changed,
          encodePickle({
            segments: [{ device: 0, address: 0x7f0000000000, total_size: 2 * GiB, stream: 0, segment_type: 'large', allocated_size: GiB, active_size: GiB, blocks: [{ size: GiB, requested_size: GiB, state: 'active_allocated', address: 0x7f0000000000, frames: [{ ...oomFrames[0], line: 4 }] }, { size: GiB, requested_size: 0, state: 'inactive', address: 0x7f0000000000 + GiB, frames: [] }] }],
            device_traces: [[
              { action: 'alloc', addr: 0x7f0000000000, size: GiB, stream: 0, time_us: 1, frames: [{ ...oomFrames[0], line: 4 }] },
              { action: 'oom', addr: 0, size: 4 * GiB, stream: 0, time_us: 2, frames: oomFrames, device_free: 0 },
            ]],
          }),
        );
        mkdirSync(path.join(ws, 'snapshots'));
        copyFileSync(path.join(corpusDir, 'silmont2000-cs336-small.pickle'), path.join(ws, 'snapshots', 'small.pickle'));
      },
    });
    page = workbench.page;
    workspace = workbench.workspace;
  });

  after(async () => {
    await workbench?.close();
  });

  it('Open Sample -> Copy to Workspace: the copy carries the snapshot\'s figures', withScreenshot('first-hour-copy', () => page, async () => {
    await runCommand(page, 'VRAM Lens: Open Sample...');
    const row = page.locator('.quick-input-list .monaco-list-row', { hasText: 'Tracker memory similarity' }).first();
    await row.waitFor({ timeout: 20_000 });
    await row.click();
    await page.locator('.statusbar-item', { hasText: `${binary(sample.peakBytes)} peak · CPU` }).waitFor({ timeout: 60_000 });
    const expected = expectedInline(oracleLine(sample, 'media/samples/similarity.py', 27), sample.peakBytes);
    await eventually('the bundled sample annotated', async () => ((await afterTexts(page)).includes(expected) ? true : undefined), 30_000);

    await showNotifications(page);
    const offer = page.locator('.notifications-center .notification-list-item', { hasText: 'is the bundled copy (read-only)' });
    await offer.waitFor({ timeout: 20_000 });
    await offer.locator('.monaco-button', { hasText: 'Copy to Workspace' }).click();
    const copy = path.join(workspace, 'similarity.py');
    await eventually('the copy in the workspace', () => Promise.resolve(existsSync(copy) ? true : undefined));
    // The active editor is the copy (not the read-only bundled one, whose tab has a lock and names media/samples),
    // and its line 27 has the figure.
    await eventually('the copy active', async () => {
      const tab = page.locator('.tab.active');
      const text = await tab.innerText().catch(() => '');
      const name = await tab.getAttribute('data-resource-name').catch(() => null);
      return name === 'similarity.py' && !text.includes('samples') && (await tab.locator('.codicon-lock').count()) === 0 ? true : undefined;
    }, 20_000);
    const texts = await eventually('the copy annotated', async () => {
      const t = await afterTexts(page);
      return t.includes(expected) ? t : undefined;
    }, 30_000);
    assert.ok(texts.includes(expected), texts.join(' | '));
    await page.screenshot({ path: path.join(resultsDir, 'first-hour-copy-annotated.png') });
    await clearNotifications(page);
  }));

  it('"Not on This Machine" covers the snapshot and its folder, is remembered, and Forget Path Mappings undoes it', withScreenshot('first-hour-not-here', () => page, async () => {
    await openSnapshotFromPalette(page, roots);
    // The folder with the most files is asked about first: /r0/proj (peak.py under deep/, and m0.py).
    const question = page.locator('.notifications-center .notification-list-item', { hasText: 'where is /r0/proj on this machine?' });
    await showNotifications(page);
    await question.waitFor({ timeout: 30_000 });
    await page.screenshot({ path: path.join(resultsDir, 'first-hour-question.png') });
    await question.locator('.monaco-button', { hasText: 'Not on This Machine' }).click();

    // Go to Peak Line (the loaded notification): the peak's file is under /r0/proj/deep, inside the
    // declined folder: no question about it, and it says the file is not here.
    const loaded = page.locator('.notifications-center .notification-list-item', { hasText: 'roots.pickle: peak' }).first();
    await loaded.waitFor({ timeout: 20_000 });
    await loaded.locator('.monaco-button', { hasText: 'Go to Peak Line' }).click();
    await eventually('the peak line reported not found', async () => ((await notificationTexts(page)).some((t) => t.includes('/r0/proj/deep/peak.py was not found on this machine')) ? true : undefined), 20_000);
    assert.deepEqual(await pathQuestions(page), [], 'no question about /r0/proj/deep, nor the next folder');
    await clearNotifications(page);

    // Active again (another snapshot, then this one): nothing is asked about /r1, /r2, ...
    await openSnapshotFromPalette(page, fixtureSnapshot);
    await page.locator('.statusbar-item', { hasText: 'peak · cuda:0' }).first().waitFor({ timeout: 60_000 });
    await openSnapshotFromPalette(page, roots);
    await page.locator('.statusbar-item', { hasText: `${binary(ROOTS_PEAK)} peak` }).first().waitFor({ timeout: 30_000 });
    await page.waitForTimeout(3_000);
    assert.deepEqual(await pathQuestions(page), [], 'no question when it is active again');
    await clearNotifications(page);

    // Another snapshot: its folder under /r0/proj is not asked about; its other folder is.
    await openSnapshotFromPalette(page, rootsAgain);
    const other = await eventually('the other snapshot\'s question', async () => {
      const q = await pathQuestions(page);
      return q.length > 0 ? q : undefined;
    }, 30_000);
    assert.equal(other.length, 1, other.join(' | '));
    assert.match(other[0], /where is \/r5\/proj on this machine\?/);
    await page.screenshot({ path: path.join(resultsDir, 'first-hour-other-folder.png') });
    await clearNotifications(page);

    // Forget Path Mappings undoes it: the active snapshot's folder under /r0/proj is asked about now.
    await runCommand(page, 'VRAM Lens: Forget Path Mappings');
    const again = await eventually('the question again', async () => {
      const q = await pathQuestions(page);
      return q.length > 0 ? q : undefined;
    }, 30_000);
    assert.match(again[0], /where is \/r0\/proj\/other on this machine\?/);
    await clearNotifications(page);
  }));

  it('Compare Snapshots offers files: the workspace\'s, Browse..., a typed path; and loads them', withScreenshot('first-hour-compare', () => page, async () => {
    await runCommand(page, 'VRAM Lens: Compare Snapshots...');
    const title = page.locator('.quick-input-widget .quick-input-title', { hasText: 'Compare Snapshots (1/2)' });
    await title.waitFor({ timeout: 20_000 });
    const rows = await eventually('the choices', async () => {
      const r = await page.locator('.quick-input-list .monaco-list-row').allInnerTexts();
      return r.some((t) => t.includes('small.pickle')) ? r : undefined;
    });
    assert.ok(rows.some((t) => t.includes('Browse...')), rows.join(' | '));
    assert.ok(rows.some((t) => t.includes('small.pickle') && t.includes(path.join('snapshots', 'small.pickle'))), `the workspace's snapshot file: ${rows.join(' | ')}`);
    await page.screenshot({ path: path.join(resultsDir, 'first-hour-compare-choices.png') });
    // A typed path (outside the workspace) is offered for loading, then loaded as the baseline.
    const baseline = path.join(corpusDir, 'kkaitlyn111-cs336-small-forward-uint64-line.pickle');
    const input = page.locator('.quick-input-widget input.input');
    await input.fill(baseline);
    const typed = page.locator('.quick-input-list .monaco-list-row', { hasText: 'load this file' }).first();
    await typed.waitFor({ timeout: 10_000 });
    assert.ok((await typed.innerText()).includes(baseline));
    await page.keyboard.press('Enter');
    // The second side: the workspace's file.
    await page.locator('.quick-input-widget .quick-input-title', { hasText: 'Compare Snapshots (2/2)' }).waitFor({ timeout: 60_000 });
    await input.fill('small.pickle');
    const small = page.locator('.quick-input-list .monaco-list-row', { hasText: 'small.pickle' }).first();
    await small.waitFor({ timeout: 10_000 });
    await page.keyboard.press('Enter');
    const frame = await webviewFrame(page, 'h1', 'Compare runs', 60_000);
    const totals = await frame.locator('table.totals').innerText();
    const [b] = oracle(baseline);
    const [c] = oracle(path.join(corpusDir, 'silmont2000-cs336-small.pickle'));
    assert.ok(totals.includes(binary(b.peakBytes)) && totals.includes(binary(c.peakBytes)), totals);
    // Found trying it as a new user: counts without separators ("Events 902 3797 +2895"). 8,507 events in the baseline.
    assert.ok(totals.includes('8,507'), totals);
    assert.doesNotMatch(totals, /\b\d{4,}\b/, 'no count of four digits or more without separators');
    await page.screenshot({ path: path.join(resultsDir, 'first-hour-compare.png') });
    await runCommand(page, 'VRAM Lens: Leave Compare Mode');
  }));

  it('a snapshot that does not record reserved memory: unknown in the summary, no replay, no "0 B reserved" in the advice', withScreenshot('first-hour-markup', () => page, async () => {
    await openSnapshotFromPalette(page, markup);
    await runCommand(page, 'VRAM Lens: Show Snapshot Summary');
    const frame = await webviewFrame(page, 'h1', 'markup.pickle');
    const stats = await frame.locator('dl.stats').innerText();
    assert.ok(stats.includes('unknown: the snapshot does not record this device\'s reserved memory (1.0 GiB allocated after event 0, and no segment holds it)'), stats);
    assert.doesNotMatch(stats, /peak 0 B/);
    await frame.locator('#allocator', { hasText: 'The trace allocates more than this device\'s recorded segments reserve' }).waitFor({ timeout: 30_000 });
    assert.equal(await frame.locator('#allocator .oom').count(), 0, 'no OOM explained with a reserved figure of the replay\'s');
    assert.equal(await frame.locator('#what-if').count(), 0);
    const advice = await eventually('the advice', async () => {
      const t = await frame.locator('#advice').innerText().catch(() => '');
      return t.includes('Out of memory') ? t : undefined;
    }, 30_000);
    assert.ok(advice.includes('an unknown amount reserved by PyTorch'), advice);
    assert.doesNotMatch(advice, /0 B reserved|cache held/);
    // Text from the snapshot stays text.
    assert.equal(await frame.locator('#root b, #root i, #root code').count(), 0, 'no markup rendered');
    await page.screenshot({ path: path.join(resultsDir, 'first-hour-markup-summary.png') });
  }));

  it('a finding on a line that is not code any more (the file changed since the recording) says so, as information', withScreenshot('first-hour-changed', () => page, async () => {
    await openSnapshotFromPalette(page, changed);
    await page.keyboard.press('Control+Shift+M');
    const rows = page.locator('.markers-panel .monaco-list-row');
    const oom = await eventually('the OOM finding in Problems', async () => {
      const t = await rows.allInnerTexts();
      return t.find((r) => r.includes('Out of memory: 4.0 GiB requested'));
    }, 60_000);
    assert.match(oom, /^Stale: this line is not code in the file as it is now/, oom);
    assert.match(oom, /\[Ln 5, Col 1\]/, oom);
    assert.equal(await page.locator('.markers-panel .monaco-list-row .codicon-error').count(), 0, 'not shown as an error on a comment');
    await page.screenshot({ path: path.join(resultsDir, 'first-hour-changed-file.png') });
  }));
});
