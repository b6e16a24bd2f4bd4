/**
 * The timeline's allocator view in Chromium, fed by the host double from corpus snapshots: reserved
 * memory by segment (each segment in its line's colour, stacked up to the reserved memory), the
 * allocator's lines, a moment chosen by a click and its segment map (blocks by address, their
 * rounding waste), an OOM explained, the self-check, at 300 and 600 px; screenshots in test-results/.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { snapshotFromBytes } from '../../src/engine/decode/load';
import { SnapshotSession } from '../../src/engine/session/session';
import type { AllocatorSpan } from '../../src/engine/timeline/allocatorSpan';
import type { SegmentMapView } from '../../src/engine/session/allocatorStudy';
import type { AllocatorFacts } from '../../src/protocol/timeline';
import { lineColor } from '../../src/engine/timeline/colors';
import { corpusDir, corpusMissing, repoRoot } from '../helpers/corpus';
import type { LoadedForTest } from './harness';
import { browserMissing, bundleMissing, HostDouble, launchBrowser, openPage, startServer } from './harness';

const RESULTS = path.join(repoRoot, 'test-results');

interface AllocatorInspection {
  span: AllocatorSpan | undefined;
  facts: AllocatorFacts | undefined;
  map: SegmentMapView | undefined;
  drawnMap: { segments: number; rects: number; rows: number; parts: Record<string, number> } | undefined;
  check: string;
  figures: string;
  oom: string;
}
interface Hooks {
  __vramLensTimeline: {
    drawNow(): { segments: { rects: number; addresses: number[]; colors: number[] }; yMax: number } | undefined;
    inspect(): { state: { moment?: number; mode: string }; status: string };
    inspectAllocator(): AllocatorInspection;
    segmentMapPoint(segment: number, block: number): { x: number; y: number } | undefined;
    pixel(x: number, y: number): number[];
  };
  __cspViolations: string[];
}

const hooks = <T>(page: Page, f: (h: Hooks) => T) => page.evaluate(f as (h: unknown) => T, undefined as unknown);
const inspectAllocator = (page: Page) => page.evaluate(() => (globalThis as unknown as Hooks).__vramLensTimeline.inspectAllocator());
const drawNow = (page: Page) => page.evaluate(() => (globalThis as unknown as Hooks).__vramLensTimeline.drawNow());

function load(name: string, device?: number, id = 's1'): LoadedForTest {
  const bytes = readFileSync(path.join(corpusDir, name));
  const session = new SnapshotSession(snapshotFromBytes(bytes), bytes.byteLength, {});
  const info = session.info();
  const chosen = device ?? [...info.devices].sort((a, b) => b.peakBytes - a.peakBytes)[0].device;
  return { id, label: name, session, device: chosen };
}

/** Waits until the allocator span covers the block span shown. */
async function allocatorSettled(page: Page, timeout = 30_000): Promise<AllocatorInspection> {
  await page.waitForFunction(
    () => {
      const h = (globalThis as unknown as { __vramLensTimeline?: { inspect(): { span?: { x0: number; x1: number } }; inspectAllocator(): { span?: { x0: number; x1: number } } } }).__vramLensTimeline;
      const w = h?.inspect().span;
      const a = h?.inspectAllocator().span;
      return !!w && !!a && a.x0 === w.x0 && a.x1 === w.x1;
    },
    undefined,
    { timeout, polling: 50 },
  );
  return inspectAllocator(page);
}


/** The palette of the dark test theme, in order. */
function palette(): string[] {
  const css = readFileSync(path.join(repoRoot, 'test', 'browser', 'themes', 'dark.css'), 'utf8');
  return Array.from({ length: 12 }, (_, i) => new RegExp(`--vscode-vramLens-timeline-palette${i + 1}:\\s*(#[0-9a-fA-F]{6})`).exec(css)?.[1]?.toLowerCase() ?? '');
}

const skip = browserMissing || bundleMissing || corpusMissing;

describe('the allocator view in Chromium', { skip, timeout: 300_000 }, () => {
  let browser: Browser;
  let server: Server;
  let origin: string;

  before(async () => {
    ({ server, origin } = await startServer());
    browser = await launchBrowser();
    mkdirSync(RESULTS, { recursive: true });
  });

  after(async () => {
    await browser?.close();
    server?.close();
  });

  it('draws reserved memory by segment in the colour of the line that made each, up to the reserved memory', async () => {
    const s = load('wedsonlin-cs336-medium-512-training.pickle');
    const host = new HostDouble([s], s.id);
    const page = await openPage(browser, origin, host, { width: 600, height: 900, state: { mode: 'allocator' } });
    const a = await allocatorSettled(page);
    const w = a.span!;
    // The stack of segments reaches the reserved memory the replay says, at every step.
    const expected = s.session.allocatorSpan(s.device, { axis: 'event', x0: w.x0, x1: w.x1, columns: w.columns, budget: 2000 })!;
    assert.deepEqual(Array.from(w.reserved), Array.from(expected.reserved));
    const stats = (await drawNow(page))!;
    assert.ok(stats.segments.rects > 0, 'segments drawn');
    assert.deepEqual(new Set(stats.segments.addresses), new Set(Array.from(expected.pieceAddress)));
    // Each segment's colour is its line's (the line of the allocation that made it; worked out here from the trace).
    const trace = s.session.snapshot.traces[s.device];
    const index = s.session.analysis.lineIndex;
    const pal = palette();
    for (let j = 0; j < expected.pieceSize.length; j++) {
      const from = expected.pieceFromEvent[j];
      const id = from >= 0 ? index.selfLine[trace.stack[from]] : -1;
      const k = stats.segments.addresses.indexOf(expected.pieceAddress[j]);
      if (id < 0) assert.ok(stats.segments.colors[k] < 0);
      else {
        const l = index.lines[id];
        // The ten largest lines get distinct colours; the others their hash.
        assert.ok(stats.segments.colors[k] >= 0 && pal[stats.segments.colors[k]] !== '', `${l.file}:${l.line}`);
        if (stats.segments.colors[k] !== lineColor(l.file, l.line)) assert.ok(stats.segments.colors[k] < 12);
      }
    }
    assert.match(a.check, /7,591 of 7,591 allocations at the address PyTorch recorded/);
    assert.match(a.check, /never departs/);
    assert.deepEqual(await hooks(page, () => (globalThis as unknown as Hooks).__cspViolations), []);
    await page.screenshot({ path: path.join(RESULTS, 'allocator-view-600.png') });
    await page.close();
  });

  it('a click chooses a moment: its segment map, by address, with the blocks in their lines\' colours and their rounding waste', async () => {
    const s = load('wedsonlin-cs336-medium-512-training.pickle');
    const host = new HostDouble([s], s.id);
    const page = await openPage(browser, origin, host, { width: 600, height: 1000, state: { mode: 'allocator' } });
    await allocatorSettled(page);
    await drawNow(page);
    const box = (await page.locator('#chart').boundingBox())!;
    await page.mouse.click(box.x + box.width * 0.6, box.y + box.height * 0.5);
    await page.waitForFunction(() => (globalThis as unknown as Hooks).__vramLensTimeline.inspectAllocator().drawnMap !== undefined, undefined, { timeout: 30_000 });
    const a = await inspectAllocator(page);
    const state = (await hooks(page, () => (globalThis as unknown as Hooks).__vramLensTimeline.inspect())).state;
    assert.ok(state.moment !== undefined);
    const map = a.map!;
    assert.equal(map.event, state.moment - 1);
    // The map is the replay's at that moment (the core's own segment map, asked here directly).
    const mine = s.session.allocator(s.device).segmentMap(map.event, s.session.analysis.lineIndex, 5000);
    assert.equal(map.reservedBytes, mine.reservedBytes);
    assert.equal(map.segments.length, mine.segments.length);
    assert.ok(a.drawnMap!.rects >= map.segments.reduce((n, seg) => n + seg.blocks.length, 0) - 1, 'every block drawn');
    assert.match(a.figures, /reserved in \d+ segments?/);
    assert.match(a.figures, /rounding waste/);
    // Hover a block of the user's code: its line, its bytes asked and its waste; a click opens its line.
    const si = map.segments.findIndex((seg) => seg.blocks.some((b) => b.line >= 0 && b.size > map.reservedBytes / 400));
    assert.ok(si >= 0, 'a visible block with a line');
    const bi = map.segments[si].blocks.findIndex((b) => b.line >= 0 && b.size > map.reservedBytes / 400);
    const at = (await page.evaluate(([x, y]) => (globalThis as unknown as Hooks).__vramLensTimeline.segmentMapPoint(x, y), [si, bi]))!;
    const mapBox = (await page.locator('#segment-map').boundingBox())!;
    await page.mouse.move(mapBox.x + at.x, mapBox.y + at.y);
    const tip = page.locator('#map-tooltip');
    await tip.waitFor({ state: 'visible' });
    const block = map.segments[si].blocks[bi];
    const line = map.lines.find((l) => l.id === block.line)!;
    assert.match((await tip.textContent())!, new RegExp(`${path.basename(line.file).replace('.', '\\.')}:${line.line}`));
    await page.mouse.click(mapBox.x + at.x, mapBox.y + at.y);
    await page.waitForFunction(() => true);
    const opened = host.ofType('openLine').at(-1);
    assert.deepEqual(opened && { file: opened.file, line: opened.line }, { file: line.file, line: line.line });
    await page.locator('#allocator-panel').screenshot({ path: path.join(RESULTS, 'allocator-segment-map-600.png') });
    await page.close();
  });

  it('an OOM: what was asked, what the cache held, its largest free block and the cause; at 300 px', async () => {
    const s = load('constructor-sun-expandable-oom-4dev.pickle', 1);
    const host = new HostDouble([s], s.id);
    const page = await openPage(browser, origin, host, { width: 300, height: 1100, state: { mode: 'allocator' } });
    await allocatorSettled(page);
    const button = page.locator('#alloc-ooms vscode-button').first();
    await button.waitFor();
    await button.click();
    await page.waitForFunction(() => (globalThis as unknown as Hooks).__vramLensTimeline.inspectAllocator().oom !== '', undefined, { timeout: 30_000 });
    const a = await inspectAllocator(page);
    const [explained] = s.session.allocator(1).ooms(s.session.analysis.lineIndex);
    assert.equal(a.map!.event, explained.event);
    assert.match(a.oom, /Out of memory at event 421/);
    assert.match(a.oom, /4\.9 GiB asked/);
    assert.match(a.oom, new RegExp(`largest free block ${explained.largestFreeBytes === 0 ? '0 B' : '[0-9.]+ [KMG]iB'}`));
    assert.match(a.oom, explained.cause === 'capacity' ? /Cause: capacity/ : /Cause: fragmentation/);
    // Nothing spills out of a 300 px panel.
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `no horizontal overflow (${overflow} px)`);
    await page.screenshot({ path: path.join(RESULTS, 'allocator-oom-300.png'), fullPage: true });
    await page.close();
  });

  it('switching the view back and forth keeps the zoom and asks for the allocator only when it shows', async () => {
    const s = load('nothanmin-cs336.pickle');
    const host = new HostDouble([s], s.id);
    const page = await openPage(browser, origin, host, { width: 440, height: 900 });
    await page.waitForFunction(() => !!(globalThis as unknown as Hooks).__vramLensTimeline?.inspect().status, undefined, { timeout: 30_000 });
    assert.equal(host.ofType('allocatorSpan').length, 0, 'the block view asks nothing of the allocator');
    await page.locator('#mode').evaluate((e) => {
      (e as HTMLElement & { value: string }).value = 'allocator';
      e.dispatchEvent(new Event('change'));
    });
    const a = await allocatorSettled(page);
    assert.ok(a.span!.pieceSize.length > 0);
    assert.ok(host.ofType('allocatorFacts').length === 1);
    const stats = (await drawNow(page))!;
    assert.ok(stats.segments.rects > 0);
    assert.ok(await page.locator('#allocator-panel').isVisible());
    await page.locator('#mode').evaluate((e) => {
      (e as HTMLElement & { value: string }).value = 'blocks';
      e.dispatchEvent(new Event('change'));
    });
    assert.ok(!(await page.locator('#allocator-panel').isVisible()));
    await page.close();
  });
});
