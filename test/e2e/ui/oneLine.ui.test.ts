/**
 * One truth per figure, read off the real workbench (code-server + Chromium): the bytes one line
 * holds at the peak read the same in the editor's hover, the advisor's finding, the snapshot
 * summary and the timeline's tooltip; and the rest of the peak is named by the same buckets in the
 * summary and in the timeline's legend.
 *
 * The snapshot: nothanmin-cs336 (corpus), whose optimizer-state finding names `adapters.py:887`
 * and its bytes. The expected figure comes from the Python oracle (test/reference/spec_reference.py,
 * an independent reading of the contract), never from the extension. The workspace gets a stand-in
 * `cs336_systems/adapters.py` written here (the recorded line numbers and function names, none of
 * the recorded program's code), so the recorded path maps to a file to hover.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Frame, Page } from 'playwright-core';
import { snapshotFromBytes } from '../../../src/engine/decode/load';
import { SnapshotSession } from '../../../src/engine/session/session';
import { corpusDir, missingPrerequisite, resultsDir } from '../codeServer';
import type { OracleDevice } from '../expected';
import { binary, oracle, oracleLine } from '../expected';
import type { UiWorkbench } from '../uiWorkbench';
import { openUiWorkbench, openWorkspaceFile } from '../uiWorkbench';
import { eventually, openSnapshotFromPalette, runCommand, withScreenshot } from '../workbench';

const SNAPSHOT = path.join(corpusDir, 'nothanmin-cs336.pickle');
const FILE = 'cs336_systems/adapters.py';
const LINE = 887;
const CODE = 'state["exp_avg"] = torch.zeros_like(p)';

interface Hooks {
  __vramLensTimeline?: {
    drawNow(): unknown;
    inspect(): { status: string; span?: { blockRecord: ArrayLike<number> } };
    pointOf(record: number): { x: number; y: number; height: number } | undefined;
  };
}

/** A stand-in for the recorded file: line 887 inside `def step` (the recorded frame's function), the rest comments. */
function standInSource(): string {
  const lines = Array.from({ length: 900 }, (_, i) => `# line ${i + 1}: a stand-in written by the VRAM Lens UI test`);
  lines[0] = '"""A stand-in for the recorded adapters.py: its line numbers, not its code."""';
  lines[LINE - 5] = 'class AdamW:';
  lines[LINE - 4] = '    def step(self, closure=None):';
  lines[LINE - 3] = '        for p in self.params:';
  lines[LINE - 2] = '            state = self.state[p]';
  lines[LINE - 1] = `            ${CODE}`;
  lines[LINE] = '            state["exp_avg_sq"] = torch.zeros_like(p)';
  lines[LINE + 1] = '        return None';
  return `${lines.join('\n')}\n`;
}

/** "3.6 GiB"-style figures after `prefix` in `text` (all of them). */
function figuresAfter(text: string, prefix: RegExp): string[] {
  const re = new RegExp(`${prefix.source}\\s*(\\d+(?:\\.\\d)? (?:B|KiB|MiB|GiB|TiB))`, 'g');
  return [...text.matchAll(re)].map((m) => m[1]);
}

describe('one line\'s bytes in hover, advice, summary and timeline (code-server + Chromium)', { skip: missingPrerequisite() ?? false, timeout: 300_000 }, () => {
  let workbench: UiWorkbench | undefined;
  let page: Page;
  let device: OracleDevice & { readonly peakBreakdown: readonly { kind: string; label: string; bytes: number }[] };
  let session: SnapshotSession;

  before(async () => {
    [device] = oracle(SNAPSHOT) as (typeof device)[];
    const bytes = readFileSync(SNAPSHOT);
    session = new SnapshotSession(snapshotFromBytes(bytes), bytes.byteLength, {});
    workbench = await openUiWorkbench({
      name: 'one-line',
      timelineHooks: true,
      prepare: ({ workspace }) => {
        mkdirSync(path.join(workspace, 'cs336_systems'), { recursive: true });
        writeFileSync(path.join(workspace, FILE), standInSource());
      },
    });
    page = workbench.page;
  });

  after(async () => {
    await workbench?.close();
  });

  async function timelineFrame(): Promise<Frame> {
    return eventually(
      'the timeline webview',
      async () => {
        for (const frame of page.frames()) if (await frame.locator('#chart').count().catch(() => 0)) return frame;
        return undefined;
      },
      60_000,
    );
  }

  it('adapters.py:887 reads the same bytes everywhere; the summary\'s buckets are the timeline legend\'s', withScreenshot('one-line', () => page, async () => {
    const line = oracleLine(device, FILE, LINE);
    assert.ok(line.liveAtPeakBytes > 0, 'the line holds bytes at the peak');
    const expected = binary(line.liveAtPeakBytes);
    const seen: Record<string, string[]> = {};

    await openSnapshotFromPalette(page, SNAPSHOT);
    await page.locator('.statusbar-item', { hasText: 'peak · cuda:0' }).waitFor({ timeout: 90_000 });

    // 1. The editor: the hover of line 887, with the advisor's finding on that line.
    await openWorkspaceFile(page, FILE, LINE);
    const code = page.locator('.view-line', { hasText: CODE }).first();
    const hoverText = await eventually(
      'the hover of line 887 with its figures and the finding',
      async () => {
        const box = await code.boundingBox().catch(() => null);
        if (!box) return undefined;
        await page.mouse.move(box.x + 120, box.y + box.height / 2);
        await page.mouse.move(box.x + 140, box.y + box.height / 2);
        await page.waitForTimeout(1_500);
        const text = (await page.locator('.monaco-hover:not(.hidden)').allInnerTexts()).join('\n');
        if (text.includes('live at peak') && text.includes('Optimizer state')) return text;
        await page.mouse.move(5, 5);
        return undefined;
      },
      90_000,
    );
    // The hover's figures table: "live at peak (share of ...) | this line | with its calls".
    seen.hover = figuresAfter(hoverText, /live at peak \(share of [^)]*\)/).slice(0, 1);
    // The finding names each line of the optimizer state with its bytes: "(adapters.py:887 3.6 GiB, ...)".
    seen.advice = figuresAfter(hoverText, /adapters\.py:887/).slice(0, 1);
    await page.screenshot({ path: path.join(resultsDir, 'one-line-hover.png') });
    await page.mouse.move(5, 5);

    // 2. The snapshot summary: the row of adapters.py:887 (live at peak is its first figure), and the named rest of the peak.
    await runCommand(page, 'VRAM Lens: Show Snapshot Summary');
    const summary = page.locator('iframe.webview.ready').last().contentFrame().locator('#active-frame').contentFrame();
    await summary.locator('h1', { hasText: path.basename(SNAPSHOT) }).waitFor({ timeout: 30_000 });
    const row = summary.locator('table.lines tbody tr', { hasText: `adapters.py:${LINE}` }).first();
    seen.summary = [((await row.locator('td.num').first().innerText()) ?? '').trim()];
    // (Code run in the page as a string: the Node-side compiler has no DOM types.)
    const summaryBuckets = (await summary.locator('section.breakdown tbody tr').allInnerTexts()).map((t) => t.split('\t').map((c) => c.trim()));
    await page.screenshot({ path: path.join(resultsDir, 'one-line-summary.png') });

    // 3. The timeline: hover a block of line 887 (its largest, found from the snapshot here, not from the page).
    await runCommand(page, 'VRAM Lens: Open Timeline');
    const frame = await timelineFrame();
    const sidebar = (await page.locator('#workbench\\.parts\\.sidebar').boundingBox())!;
    await page.mouse.move(sidebar.x + sidebar.width + 1, sidebar.y + 300);
    await page.mouse.down();
    await page.mouse.move(sidebar.x + 900, sidebar.y + 300, { steps: 8 });
    await page.mouse.up();
    await eventually('a drawn summary', async () => {
      const i = await frame.evaluate(() => (globalThis as Hooks).__vramLensTimeline?.inspect());
      return i?.span && i.span.blockRecord.length > 0 ? true : undefined;
    }, 90_000);
    const blocks = session.timeline.lineBlocksFor(0, oracleLine(device, FILE, LINE).file, LINE, 1);
    assert.ok(blocks && blocks.blocks.length > 0, 'line 887 has blocks');
    const record = blocks.blocks[0].record;
    // Its blocks are thin at full height: zoom memory (Ctrl+wheel over the block) until it is tall enough to point at.
    const chart = frame.locator('#chart');
    const point = await eventually(
      'the block of line 887 tall enough to point at',
      async () => {
        const box = (await chart.boundingBox())!;
        const p = await frame.evaluate((r) => {
          const hooks = (globalThis as Hooks).__vramLensTimeline!;
          hooks.drawNow();
          return hooks.pointOf(r);
        }, record);
        if (p && p.height >= 4) return { x: box.x + p.x, y: box.y + p.y };
        await page.mouse.move(box.x + (p?.x ?? box.width / 2), box.y + (p?.y ?? box.height - 30));
        await page.keyboard.down('Control');
        await page.mouse.wheel(0, -300);
        await page.keyboard.up('Control');
        await page.waitForTimeout(1_200);
        return undefined;
      },
      90_000,
    );
    await page.mouse.move(point.x, point.y);
    const tooltip = await eventually('the tooltip of the block', async () => {
      const t = (await frame.locator('#tooltip').innerText().catch(() => '')) ?? '';
      return t.includes(`adapters.py:${LINE} holds`) ? t : undefined;
    }, 30_000);
    seen.timeline = figuresAfter(tooltip, /adapters\.py:887 holds/);
    await page.screenshot({ path: path.join(resultsDir, 'one-line-timeline.png') });

    // The same figure on every surface, and it is the oracle's.
    for (const [surface, figures] of Object.entries(seen)) assert.deepEqual(figures, [expected], `${surface}: ${JSON.stringify(figures)} (expected ${expected})`);
    assert.deepEqual(Object.keys(seen).sort(), ['advice', 'hover', 'summary', 'timeline']);

    // The buckets: every name and bytes in the summary's rest of the peak is in the timeline's legend
    // (an entry per kind, its buckets in its title), and both are the oracle's peak breakdown.
    const legend = await frame.evaluate<{ kind: string; text: string; title: string }[]>(
      `[...document.querySelectorAll('#legend-buckets .legend-bucket')].map((e) => ({ kind: e.dataset.kind ?? '', text: e.textContent.trim(), title: e.title }))`,
    );
    const legendBuckets = legend.flatMap((e) => e.title.split('\n'));
    assert.ok(summaryBuckets.length > 0, 'the summary names the rest of the peak');
    assert.equal(summaryBuckets.length, device.peakBreakdown.length, 'the summary lists every bucket of the oracle');
    for (const [name, bytes] of summaryBuckets) assert.ok(legendBuckets.includes(`${name}: ${bytes}`), `${name} ${bytes} in the legend: ${JSON.stringify(legend)}`);
    for (const b of device.peakBreakdown) assert.ok(summaryBuckets.some(([, bytes]) => bytes === binary(b.bytes)), `${b.kind} ${b.label} ${binary(b.bytes)} in the summary`);
    const kinds = [...new Set(device.peakBreakdown.map((b) => b.kind))].sort();
    assert.deepEqual(legend.map((e) => e.kind).sort(), kinds, 'one legend entry per bucket kind at the peak');
    for (const kind of kinds) {
      const total = device.peakBreakdown.filter((b) => b.kind === kind).reduce((s, b) => s + b.bytes, 0);
      assert.ok(legend.find((e) => e.kind === kind)!.text.endsWith(`${binary(total)} at the peak`), `${kind}: ${JSON.stringify(legend)}`);
    }
  }));

  it('the summary\'s links open adapters.py at their lines: the one openLine every page sends', withScreenshot('one-line-open', () => page, async () => {
    await page.mouse.move(5, 5);
    const cursor = page.locator('.statusbar-item', { hasText: /^Ln \d+, Col \d+/ }).first();
    // Two links in turn, so that the cursor is moved by each (the first test left it on line 887).
    for (const line of [115, LINE]) {
      // The summary, still open from the test before: its tab.
      await page.locator('.tab', { hasText: path.basename(SNAPSHOT) }).first().click();
      // The summary's frame (the timeline's webview is open beside it).
      const summary = await eventually(
        'the summary webview',
        async () => {
          for (const frame of page.frames()) if (await frame.locator('table.lines a.line-link').count().catch(() => 0)) return frame;
          return undefined;
        },
        30_000,
      );
      await summary.locator('table.lines tbody tr a.line-link', { hasText: new RegExp(`^adapters\\.py:${line}$`) }).first().click();
      await page.locator('.tab.active', { hasText: path.basename(FILE) }).waitFor({ timeout: 20_000 });
      const position = await eventually(`the cursor on line ${line}`, async () => {
        const t = (await cursor.innerText()).trim();
        return t.startsWith(`Ln ${line},`) ? t : undefined;
      }).catch(async () => (await cursor.innerText()).trim());
      assert.ok(position.startsWith(`Ln ${line},`), `${position} (expected line ${line})`);
    }
  }));
});
