/**
 * The memory timeline in the real VS Code workbench (code-server) driven through Chromium: open a
 * corpus snapshot, open the timeline, read the peak, hover a block, pin a block of a user line and
 * go to its source. Screenshots: test-results/timeline-in-vscode*.png, timeline-go-to-source.png.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Frame, Page } from 'playwright-core';
import { lineDetail } from '../../../src/engine/analysis/lineDetail';
import { NO_LINE } from '../../../src/engine/analysis/lineIndex';
import { snapshotFromBytes } from '../../../src/engine/decode/load';
import { SnapshotSession } from '../../../src/engine/session/session';
import { corpusDir, fixtureSnapshot, missingPrerequisite, resultsDir } from '../codeServer';
import type { UiWorkbench } from '../uiWorkbench';
import { openUiWorkbench, openWorkspaceFile, workspaceFileOf } from '../uiWorkbench';
import { binary, oracle, oracleLine } from '../expected';
import { eventually, openSnapshotFromPalette, runCommand, withScreenshot } from '../workbench';

/** What the page's test hooks (webview/timeline/testHooks.ts) answer. */
interface Hooks {
  __vramLensTimeline?: {
    drawNow(): unknown;
    inspect(): { status: string; span?: { blockRecord: ArrayLike<number> } };
    pointOf(record: number): { x: number; y: number; height: number } | undefined;
  };
}

/** A label the chart drew, as the page's draw reports it (CSS pixels of the chart canvas). */
interface DrawnLabel {
  text: string;
  x0: number;
  x1: number;
  y0: number;
  y1: number;
}

/** The OOM corpus snapshot: four devices, OOMs, many labels to place. */
const oomSnapshot = path.join(corpusDir, 'constructor-sun-expandable-oom-4dev.pickle');

/** Pairs of labels whose boxes intersect. */
function overlapping(labels: readonly DrawnLabel[]): string[] {
  const out: string[] = [];
  for (let a = 0; a < labels.length; a++) {
    for (let b = a + 1; b < labels.length; b++) {
      const [p, q] = [labels[a], labels[b]];
      if (p.x0 < q.x1 && q.x0 < p.x1 && p.y0 < q.y1 && q.y0 < p.y1) out.push(JSON.stringify([p, q]));
    }
  }
  return out;
}

describe('the memory timeline in the VS Code workbench (code-server + Chromium)', { skip: missingPrerequisite() ?? false, timeout: 240_000 }, () => {
  let workbench: UiWorkbench | undefined;
  let page: Page;
  let workspace: string;
  let session: SnapshotSession;

  /** The self line of an allocation record on device 0, worked out here from the snapshot (not from the page). */
  function lineOfRecord(record: number): { file: string; line: number } | undefined {
    const a = session.analysis;
    const d = a.devices.find((x) => x.device === 0)!;
    const stack = d.allocations.stack[record];
    const id = stack < 0 ? NO_LINE : a.lineIndex.selfLine[stack];
    if (id === NO_LINE) return undefined;
    const l = a.lineIndex.lines[id];
    return { file: l.file, line: Number(l.line) };
  }

  before(async () => {
    const bytes = readFileSync(fixtureSnapshot);
    session = new SnapshotSession(snapshotFromBytes(bytes), bytes.byteLength, {});
    // The timeline page's test hooks go in every frame (the webview's inner frame included).
    workbench = await openUiWorkbench({ name: 'timeline', timelineHooks: true });
    ({ page, workspace } = workbench);
  });

  after(async () => {
    await workbench?.close();
  });

  /** Drags the side bar's edge so that the side bar is `width` CSS pixels wide. */
  async function sideBarWidth(width: number): Promise<void> {
    const sidebar = (await page.locator('#workbench\\.parts\\.sidebar').boundingBox())!;
    await page.mouse.move(sidebar.x + sidebar.width + 1, sidebar.y + 300);
    await page.mouse.down();
    await page.mouse.move(sidebar.x + width, sidebar.y + 300, { steps: 8 });
    await page.mouse.up();
    await page.waitForTimeout(1_000);
  }

  /** What the page's hooks say it shows. */
  async function inspectPage(frame: Frame): Promise<{ status: string; state: { snapshotId?: string; pinnedRecord?: number }; span?: { blockRecord: ArrayLike<number> } }> {
    return frame.evaluate(() => (globalThis as Hooks).__vramLensTimeline!.inspect() as never);
  }

  /** The frame holding the timeline page (the inner frame of its webview). */
  async function timelineFrame(): Promise<Frame> {
    return eventually(
      'the timeline webview',
      async () => {
        for (const frame of page.frames()) {
          if (await frame.locator('#chart').count().catch(() => 0)) return frame;
        }
        return undefined;
      },
      60_000,
    );
  }

  it('shows the snapshot with its peak, a block\'s stack on hover, and opens a pinned block\'s line', withScreenshot('timeline', () => page, async () => {
    const [device] = oracle(fixtureSnapshot);
    await openSnapshotFromPalette(page, fixtureSnapshot);
    await page.locator('.statusbar-item', { hasText: 'peak · cuda:0' }).waitFor({ timeout: 60_000 });
    await runCommand(page, 'VRAM Lens: Open Timeline');
    const frame = await timelineFrame();
    // Give the view room: collapse the Runs view below it and widen the side bar.
    const runs = page.locator('.pane-header', { hasText: 'Runs' }).first();
    if ((await runs.getAttribute('aria-expanded')) === 'true') await runs.click();
    const sidebar = (await page.locator('#workbench\\.parts\\.sidebar').boundingBox())!;
    await page.mouse.move(sidebar.x + sidebar.width + 1, sidebar.y + 300);
    await page.mouse.down();
    await page.mouse.move(sidebar.x + 800, sidebar.y + 300, { steps: 8 });
    await page.mouse.up();
    await page.waitForTimeout(1_500);
    const hooksReady = () => frame.evaluate(() => (globalThis as Hooks).__vramLensTimeline !== undefined);
    assert.ok(await eventually('the page test hooks', async () => ((await hooksReady()) ? true : undefined)), 'test hooks are installed');

    // The peak: the status line names its size (the chart labels the marker the same way).
    const status = await eventually('a drawn summary', async () => {
      const i = await frame.evaluate(() => (globalThis as Hooks).__vramLensTimeline!.inspect());
      return i.span && i.span.blockRecord.length > 0 ? i.status : undefined;
    }, 60_000);
    assert.ok(status.includes(`peak ${binary(device.peakBytes)}`), status);

    await page.screenshot({ path: path.join(resultsDir, 'timeline-in-vscode.png') });

    // Zoom memory towards the top (the activations around the peak) until blocks are tall enough to point at.
    await frame.locator('#chart').focus();
    let presses = 5;
    for (let i = 0; i < presses; i++) await page.keyboard.press('ArrowUp');
    // A tall block of a user line that the fixture workspace holds, once the zoomed summary has arrived
    // (the worker answers each zoom step; on a busy machine that can take a while).
    let seen = 0;
    const record = await eventually(
      'a tall block of a workspace line',
      async () => {
        const tall = await frame.evaluate(() => {
          const hooks = (globalThis as Hooks).__vramLensTimeline!;
          hooks.drawNow();
          const w = hooks.inspect().span;
          return w ? Array.from(w.blockRecord).filter((r) => (hooks.pointOf(r)?.height ?? 0) >= 3) : [];
        });
        seen = tall.length;
        const found = tall.find((r) => {
          const l = lineOfRecord(r);
          return l !== undefined && workspaceFileOf(workspace, l.file) !== undefined;
        });
        // A key press the page missed (focus still arriving on a busy machine): zoom one step more.
        if (found === undefined && tall.length === 0 && presses < 12) {
          presses++;
          await frame.locator('#chart').focus();
          await page.keyboard.press('ArrowUp');
        }
        return found;
      },
      30_000,
    ).catch(() => undefined);
    assert.ok(record !== undefined, `a tall block of a workspace line among ${seen}`);
    const expected = lineOfRecord(record)!;
    const target = workspaceFileOf(workspace, expected.file)!;
    const base = path.basename(target);

    const chart = await frame.locator('#chart').boundingBox();
    assert.ok(chart, 'the chart is on screen');
    const p = (await frame.evaluate((r) => (globalThis as Hooks).__vramLensTimeline!.pointOf(r), record))!;
    await page.mouse.move(chart.x + p.x, chart.y + p.y);
    const tooltip = frame.locator('#tooltip');
    await tooltip.waitFor({ state: 'visible' });
    const tip = await eventually('the block\'s frames in the tooltip', async () => {
      const t = (await tooltip.textContent()) ?? '';
      return t.includes(`${base}:${expected.line}`) ? t : undefined;
    });
    assert.match(tip, /\d+(\.\d)? (B|KiB|MiB|GiB)/, `a size in the tooltip: ${tip}`);

    await page.mouse.down();
    await page.mouse.up();
    await frame.locator('#detail').waitFor({ state: 'visible' });
    assert.ok((await frame.locator('#detail-title').textContent())?.includes(`${base}:${expected.line}`));
    await page.screenshot({ path: path.join(resultsDir, 'timeline-in-vscode-pinned.png') });

    await frame.locator('#go-to-source').click();
    await page.locator('.tab.active', { hasText: base }).waitFor({ timeout: 20_000 });
    const cursor = page.locator('.statusbar-item', { hasText: /^Ln \d+, Col \d+/ }).first();
    const position = await eventually('the cursor on the block\'s line', async () => {
      const t = (await cursor.innerText()).trim();
      return t.startsWith(`Ln ${expected.line},`) ? t : undefined;
    }).catch(async () => (await cursor.innerText()).trim());
    assert.ok(position.startsWith(`Ln ${expected.line},`), `${position} (expected line ${expected.line} of ${base})`);
    // The breadcrumbs name the folders of the mapped workspace file.
    const crumbs = (await page.locator('.breadcrumbs-control').first().innerText()).split(/\s+/).filter((c) => c.length > 0);
    const segments = path.relative(workspace, target).split(path.sep);
    assert.ok(segments.every((segment) => crumbs.includes(segment)), `${crumbs.join(' > ')} names ${segments.join('/')}`);
    await page.screenshot({ path: path.join(resultsDir, 'timeline-go-to-source.png') });
  }));
  let oomId = '';
  it('in a 300 px side bar: no overlapping labels and no NaN after wheel zooms (OOM snapshot)', withScreenshot('timeline-300px', () => page, async () => {
    const frame = await timelineFrame();
    const before = (await inspectPage(frame)).state.snapshotId;
    await openSnapshotFromPalette(page, oomSnapshot);
    // The timeline follows the newly active snapshot.
    oomId = await eventually('the OOM snapshot in the timeline', async () => {
      const i = await inspectPage(frame);
      return i.state.snapshotId !== undefined && i.state.snapshotId !== before && i.span && i.span.blockRecord.length > 0 ? i.state.snapshotId : undefined;
    }, 60_000);
    await sideBarWidth(300);
    const sidebar = (await page.locator('#workbench\\.parts\\.sidebar').boundingBox())!;
    assert.ok(Math.abs(sidebar.width - 300) <= 2, `the side bar is ${sidebar.width} px wide`);
    const chart = (await frame.locator('#chart').boundingBox())!;
    assert.ok(chart.width <= 300 && chart.width > 150, `the chart is ${chart.width} px wide`);
    const labels = async () => (await frame.evaluate(() => (globalThis as Hooks).__vramLensTimeline!.drawNow() as { drawnLabels: DrawnLabel[] })).drawnLabels;
    const first = await labels();
    assert.ok(first.some((l) => l.text.startsWith('peak')), JSON.stringify(first));
    assert.deepEqual(overlapping(first), [], 'labels of the whole timeline');
    await page.screenshot({ path: path.join(resultsDir, 'timeline-300px-oom.png') });
    // Wheel zooms over the chart, the pointer resting on it (its tooltip showing), checked after each.
    for (let k = 0; k < 6; k++) {
      const box = (await frame.locator('#chart').boundingBox())!;
      await page.mouse.move(box.x + box.width * (0.3 + 0.08 * k), box.y + box.height * (0.2 + 0.1 * k));
      await page.mouse.wheel(0, k < 4 ? -240 : 240);
      await page.waitForTimeout(1_200);
      const drawn = await labels();
      assert.deepEqual(overlapping(drawn), [], `labels after wheel ${k + 1}`);
      const text = await frame.evaluate<string>('document.body.innerText');
      assert.ok(!text.includes('NaN'), `NaN in the timeline after wheel ${k + 1}: ${text.slice(0, 400)}`);
    }
    const status = (await inspectPage(frame)).status;
    assert.ok(status.startsWith('peak ') && !status.includes('NaN'), status);
    await page.screenshot({ path: path.join(resultsDir, 'timeline-300px-oom-zoomed.png') });
  }));

  it('Show Line in Timeline from a hover of snapshot A selects A\'s block while B is shown', withScreenshot('timeline-show-line', () => page, async () => {
    assert.ok(oomId !== '', 'the OOM snapshot (B) was opened by the test before');
    const frame = await timelineFrame();
    // A (the fixture snapshot) annotates the editors again; the timeline follows it...
    await runCommand(page, 'VRAM Lens: Switch Active Snapshot...');
    const input = page.locator('.quick-input-widget input.input');
    await input.waitFor({ state: 'visible' });
    await input.fill(path.basename(fixtureSnapshot));
    await page.locator('.quick-input-list .monaco-list-row', { hasText: path.basename(fixtureSnapshot) }).first().waitFor();
    await page.keyboard.press('Enter');
    const aId = await eventually('snapshot A in the timeline', async () => {
      const id = (await inspectPage(frame)).state.snapshotId;
      return id !== undefined && id !== oomId ? id : undefined;
    }, 60_000);
    // ...and the timeline's own selector shows B (the editors stay annotated with A).
    // (Code run in the page as a string: the Node-side compiler has no DOM types.)
    await frame.evaluate(`{ const s = document.getElementById('snapshot'); s.value = ${JSON.stringify(oomId)}; s.dispatchEvent(new Event('change')); }`);
    await eventually('snapshot B in the timeline', async () => ((await inspectPage(frame)).state.snapshotId === oomId ? true : undefined), 30_000);

    // A's line 39 of model.py, and the allocation its hover link names (worked out here from A).
    const [device] = oracle(fixtureSnapshot);
    const line = oracleLine(device, 'cs336_basics/model.py', 39);
    const detail = lineDetail(session.analysis, session.device(0), line.file, 39, { maxSizes: 6, maxStacks: 3 });
    assert.ok(detail?.largest, 'line 39 has a largest allocation');
    await openWorkspaceFile(page, 'cs336_basics/model.py', 39);
    const text = page.locator('.view-line', { hasText: 'return x @ self.weight.T' }).first();
    const link = page.locator('.monaco-hover:not(.hidden) a', { hasText: 'in the timeline' }).first();
    await eventually('the hover\'s timeline link', async () => {
      const box = await text.boundingBox().catch(() => null);
      if (!box) return (await page.waitForTimeout(500), undefined);
      await page.mouse.move(box.x + 40, box.y + box.height / 2);
      await page.mouse.move(box.x + 60, box.y + box.height / 2);
      return (await link.isVisible().catch(() => false)) ? true : (await page.waitForTimeout(1_000), undefined);
    }, 40_000);
    await link.click();
    const shown = await eventually('A\'s block pinned in the timeline', async () => {
      const i = await inspectPage(frame);
      return i.state.snapshotId === aId && i.state.pinnedRecord === detail.largest!.record ? i : undefined;
    }, 60_000).catch(async () => inspectPage(frame));
    assert.equal(shown.state.snapshotId, aId, 'the timeline shows the snapshot of the hover');
    assert.equal(shown.state.pinnedRecord, detail.largest.record, 'the block the link names is pinned');
    assert.equal(await frame.evaluate<string>(`document.getElementById('snapshot').value`), aId);
    await page.screenshot({ path: path.join(resultsDir, 'timeline-show-line-of-a.png') });
  }));
});
