/**
 * The what-if panel in Chromium, answered by a host double that routes the page's messages through the
 * extension's own answers (src/extension/whatIf/whatIfRequests.ts) over corpus snapshots run
 * in-process as the worker runs them: the self-check, the table over GPU sizes, the form's checks, a
 * prediction, a line opened from the table; at 300 and 600 px. Screenshots in test-results/.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { snapshotFromBytes } from '../../src/engine/decode/load';
import { SnapshotSession } from '../../src/engine/session/session';
import { formatBytes } from '../../src/engine/text/format';
import type { WhatIfBackend, WhatIfSubject } from '../../src/extension/whatIf/whatIfRequests';
import { answerPredict, describeSubject } from '../../src/extension/whatIf/whatIfRequests';
import type { HostToWhatIf, WhatIfToHost } from '../../src/protocol/whatIf';
import type { QueryName } from '../../src/runtime/worker/methods';
import { dispatch } from '../../src/runtime/worker/methods';
import { corpusDir, corpusMissing, repoRoot } from '../helpers/corpus';
import type { PageHost } from './harness';
import { browserMissing, launchBrowser, openPage, startServer } from './harness';
import { existsSync } from 'node:fs';

const RESULTS = path.join(repoRoot, 'test-results');
const bundleMissing = existsSync(path.join(repoRoot, 'dist', 'webview', 'whatIf.js')) ? false : 'dist/webview/whatIf.js is missing (npm run build)';

/** Plays the extension host of the what-if panel, as WhatIfView does, over one in-process session. */
class WhatIfHost implements PageHost {
  page: Page | undefined;
  readonly received: WhatIfToHost[] = [];
  private readonly backend: WhatIfBackend;

  constructor(
    readonly session: SnapshotSession,
    public subject: WhatIfSubject,
    readonly local: ReadonlySet<string> = new Set(),
  ) {
    this.backend = {
      // Every call here is a query (`load` is the worker's own): `dispatch` answers it as the worker does.
      worker: () => (method, params) => Promise.resolve(dispatch(method as QueryName, params as never, { session: this.session, progress: () => undefined }) as never),
      mapped: (files) => Promise.resolve(files.filter((f) => this.local.has(f))),
    };
  }

  async send(message: HostToWhatIf): Promise<void> {
    await this.page?.evaluate((m) => window.postMessage(m, '*'), message as unknown as Record<string, unknown>);
  }

  async onMessage(message: WhatIfToHost): Promise<void> {
    this.received.push(message);
    if (message.type === 'ready' || message.type === 'selectDevice') {
      if (message.type === 'selectDevice') this.subject = { ...this.subject, device: message.device };
      const info = this.session.info();
      await this.send({
        type: 'target',
        target: { snapshotId: 's1', label: 'snapshot.pickle', device: this.subject.device, devices: info.devices.map((d) => ({ device: d.device, peakReservedBytes: d.peakReservedBytes })) },
      });
      const posts: Promise<void>[] = [];
      await describeSubject(this.subject, this.backend, (m) => posts.push(this.send(m)));
      await Promise.all(posts);
    } else if (message.type === 'predict') {
      await this.send(await answerPredict(message.requestId, message.question, this.subject, this.backend));
    }
  }
}

function session(name: string): SnapshotSession {
  const bytes = readFileSync(path.join(corpusDir, name));
  return new SnapshotSession(snapshotFromBytes(bytes), bytes.byteLength, {});
}

async function typeInto(page: Page, id: string, text: string): Promise<void> {
  const input = page.locator(`#${id} input`);
  await input.fill(text);
}

describe('the what-if panel in Chromium', { skip: browserMissing || bundleMissing || corpusMissing, timeout: 300_000 }, () => {
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

  it('shows the self-check and the table over GPU sizes: fits, or the line where it runs out (opened on click)', async () => {
    const s = session('nothanmin-cs336.pickle');
    const table = s.allocator(0).table(s.analysis.lineIndex);
    const files = new Set(table.rows.flatMap((r) => r.cells.flatMap((c) => (c.oom?.file ? [c.oom.file] : []))));
    const host = new WhatIfHost(s, { snapshotId: 's1', device: 0 }, files);
    const page = await openPage(browser, origin, host, { path: '/whatif', width: 600, height: 1100 });
    await page.locator('.gpu-table').waitFor({ timeout: 60_000 });
    assert.match((await page.locator('#check').textContent())!, /6,488 of 6,488 allocations at the address PyTorch recorded/);
    // Rows are the GPU sizes, columns the settings, as the core's table has them.
    const header = await page.locator('.gpu-table thead th').allTextContents();
    // Each column's label, then its peak replayed with no memory limit (issue 29: the heading says so).
    assert.deepEqual(header.slice(1).map((h) => h.split('no limit: peak')[0]), table.rows.map((r) => r.label));
    assert.ok(header.slice(1).every((h) => h.includes('no limit: peak')), header.join(' | '));
    const rows = await page.locator('.gpu-table tbody tr').all();
    assert.equal(rows.length, 7);
    // nothanmin began recording with 14.9 GiB allocated (22 GiB reserved): the core says 8 GiB cannot hold it.
    assert.equal(table.rows[0].cells[0].fits, false);
    assert.equal(table.rows[0].cells[0].start?.outcome, 'allocated');
    for (let i = 0; i < rows.length; i++) {
      const cells = await rows[i].locator('td').allTextContents();
      const titles = await rows[i].locator('td').evaluateAll((tds) => tds.map((td) => td.getAttribute('title') ?? ''));
      table.rows.forEach((row, k) => {
        const cell = row.cells[i];
        if (cell.fits === null) assert.equal(cells[k], 'unknown');
        else if (cell.fits) assert.equal(cells[k], 'fits');
        else assert.match(cells[k], cell.oom?.file ? new RegExp(`OOM at ${path.basename(cell.oom.file).replace('.', '\\.')}:${cell.oom.line}`) : /OOM/);
        if (cell.start?.outcome === 'allocated') assert.match(titles[k], /^Does not fit: .* was already allocated before recording began/);
      });
    }
    // A line in the table opens through the one openLine message.
    const oomCell = table.rows.flatMap((r) => r.cells).find((c) => c.oom?.file);
    assert.ok(oomCell, 'the table has a line where it runs out');
    await page.locator('.gpu-table .line-link').first().click();
    const opened = host.received.filter((m) => m.type === 'openLine').at(-1);
    assert.deepEqual(opened && { file: opened.file, line: opened.line }, { file: oomCell.oom!.file, line: oomCell.oom!.line });
    await page.screenshot({ path: path.join(RESULTS, 'what-if-600.png'), fullPage: true });
    await page.close();
  });

  it('checks the form, then predicts: peak reserved, reserved but free at it, cudaMallocs and the first OOM under the capacity', async () => {
    const s = session('wedsonlin-cs336-medium-512-training.pickle');
    const host = new WhatIfHost(s, { snapshotId: 's1', device: 0 });
    const page = await openPage(browser, origin, host, { path: '/whatif', width: 300, height: 1400 });
    await page.locator('#check p').first().waitFor({ timeout: 60_000 });
    // Refused before anything is asked: a size that is not one, options PyTorch would refuse, a fraction without a capacity.
    await typeInto(page, 'capacity', 'twelve');
    await page.locator('#predict').click();
    assert.match((await page.locator('#form-error').textContent())!, /A size such as 12 GB \(as GPUs are sold: 12 GiB\)/);
    await typeInto(page, 'capacity', '');
    await typeInto(page, 'alloc-conf', 'expandable_segments:Maybe');
    await page.locator('#predict').click();
    assert.match((await page.locator('#form-error').textContent())!, /PyTorch would refuse this: expandable_segments takes True or False/);
    await typeInto(page, 'alloc-conf', '');
    await typeInto(page, 'fraction', '0.5');
    await page.locator('#predict').click();
    assert.match((await page.locator('#form-error').textContent())!, /enter that too/);
    assert.equal(host.received.filter((m) => m.type === 'predict').length, 0, 'nothing asked');
    // 8 GiB with expandable segments: it runs out (the table says so too); the figures are the core's.
    await typeInto(page, 'fraction', '');
    await typeInto(page, 'capacity', '8 GiB');
    await typeInto(page, 'alloc-conf', 'expandable_segments:True');
    await page.locator('#predict').click();
    await page.locator('#result .figures').waitFor({ timeout: 60_000 });
    const expected = s.allocator(0).whatIf({ allocConf: 'expandable_segments:True', capacity: 8 * 2 ** 30 }, s.analysis.lineIndex);
    assert.ok(expected.replayed, 'wedsonlin began with 11.7 GiB reserved in cached segments it can release on 8 GiB');
    const text = (await page.locator('#result').textContent())!;
    assert.match(text, new RegExp(`Peak reserved: ${formatBytes(expected.peakReservedBytes).replace('.', '\\.')}`));
    assert.match(text, new RegExp(`${formatBytes(expected.reservedFreeAtPeakBytes).replace('.', '\\.')} of it reserved but not allocated`));
    assert.match(text, new RegExp(`cudaMalloc calls: ${expected.cudaMallocs.toLocaleString('en-US')}`));
    assert.ok(expected.oom, 'it runs out on 8 GiB');
    assert.match(text, new RegExp(`First out-of-memory error at event ${expected.oom.event.toLocaleString('en-US')}`));
    assert.match(text, /expandable_segments:True on a GPU of 8\.00 GiB/);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
    assert.ok(overflow <= 0, `no horizontal overflow at 300 px (${overflow} px)`);
    await page.screenshot({ path: path.join(RESULTS, 'what-if-300.png'), fullPage: true });
    await page.close();
  });
});
