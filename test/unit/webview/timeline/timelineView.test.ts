/**
 * The pure parts of the timeline view and its host: zoom and pan arithmetic, axis ticks, the saved
 * UI state, the lines table's filter and order, path matching, the page's CSP, and the message
 * checks. Expected values are worked out in the comments.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LineFigures } from '../../../../src/engine/analysis/lines';
import { LocalFiles, resolveRecordedPath } from '../../../../src/engine/paths/pathMapper';
import { commonSuffixLength, isWindowsPath, pathSegments } from '../../../../src/engine/paths/recordedPath';
import { TIMELINE_PAGE } from '../../../../src/extension/timeline/html';
import { contentSecurityPolicy, webviewDocument } from '../../../../src/extension/webviewDocument';
import { lineRow } from '../../../../src/extension/timeline/rows';
import { compareRows, rowPasses } from '../../../../webview/timeline/lineFilter';
import type { LineRow } from '../../../../src/protocol/timeline';
import { INITIAL_STATE, restoreState } from '../../../../webview/timeline/state';
import { binaryLabel, byteTicks, eventTicks, formatDuration, timeTicks } from '../../../../webview/timeline/ticks';
import { clampViewport, pan, zoom } from '../../../../webview/timeline/viewport';

const GiB = 1024 ** 3;
const MiB = 1024 ** 2;

describe('timeline view: zoom and pan', () => {
  const domain = { start: 0, end: 1000, minWidth: 4 };
  it('zooms around the anchor and keeps it in place', () => {
    // Window [200, 600), anchor at a quarter (x = 300); zoom x2 -> width 200, 300 stays at a quarter: [250, 450).
    assert.deepEqual(zoom({ x0: 200, x1: 600 }, 2, 0.25, domain), { x0: 250, x1: 450 });
  });
  it('stays inside the domain, moving the window rather than shrinking it', () => {
    // Zooming out x4 from [0, 200) around the middle wants [-300, 500): moved to [0, 800).
    assert.deepEqual(zoom({ x0: 0, x1: 200 }, 0.25, 0.5, domain), { x0: 0, x1: 800 });
    // Panning right by half of [800, 1000) would pass the end: held at [800, 1000).
    assert.deepEqual(pan({ x0: 800, x1: 1000 }, 0.5, domain), { x0: 800, x1: 1000 });
    assert.deepEqual(pan({ x0: 100, x1: 300 }, -0.25, domain), { x0: 50, x1: 250 });
  });
  it('never zooms narrower than the minimum width nor wider than the domain', () => {
    assert.deepEqual(zoom({ x0: 10, x1: 14 }, 10, 0.5, domain), { x0: 10, x1: 14 });
    assert.deepEqual(clampViewport({ x0: -50, x1: 5000 }, domain), { x0: 0, x1: 1000 });
  });
});

describe('timeline view: axis ticks', () => {
  it('puts byte ticks on powers of two, labelled in the largest unit', () => {
    // max 1.06 GiB over about 5 intervals: 217 MiB each, rounded up to 256 MiB.
    assert.deepEqual(
      byteTicks(0, 1.06 * GiB, 5).map((t) => t.label),
      ['0', '256 MiB', '512 MiB', '768 MiB', '1 GiB'],
    );
    assert.equal(binaryLabel(1.25 * GiB), '1.25 GiB');
    assert.equal(binaryLabel(1536), '1.5 KiB');
    assert.equal(byteTicks(0, 12 * GiB, 6)[1].value, 2 * GiB);
    assert.equal(byteTicks(0, 3 * MiB, 3).at(-1)?.label, '3 MiB');
    // A zoomed y range [10.3 GiB, 11.4 GiB) over about 4 intervals: 282 MiB each -> 512 MiB, from 10.5 GiB.
    assert.deepEqual(
      byteTicks(10.3 * GiB, 11.4 * GiB, 4).map((t) => t.label),
      ['10.5 GiB', '11 GiB'],
    );
  });
  it('labels events compactly and wall time relative to the first event', () => {
    // [0, 22333) in about 4 intervals: 5583 each -> step 10000.
    assert.deepEqual(
      eventTicks(0, 22333, 4).map((t) => t.label),
      ['0', '10k', '20k'],
    );
    // [3300, 3480) in about 4 intervals: 45 each -> step 50, written out in full (3.35k would read 3.4k).
    assert.deepEqual(
      eventTicks(3300, 3480, 4).map((t) => t.label),
      ['3,300', '3,350', '3,400', '3,450'],
    );
    // Time from 1000 µs to 3.5 s later in about 3 intervals: step 2 s (1.17 s rounded up to 2).
    assert.deepEqual(
      timeTicks(1000, 1000 + 3_500_000, 1000, 3).map((t) => [t.value, t.label]),
      [
        [1000, '0 s'],
        [2_001_000, '2 s'],
      ],
    );
    assert.equal(formatDuration(1500), '1.5 ms');
    assert.equal(formatDuration(250), '250 µs');
  });
});

describe('timeline view: saved state', () => {
  it('restores what was saved and drops what does not make sense', () => {
    assert.deepEqual(restoreState(undefined), INITIAL_STATE);
    assert.deepEqual(restoreState('junk'), INITIAL_STATE);
    const saved = { ...INITIAL_STATE, snapshotId: 's2', device: 1, axis: 'time', x0: 5, x1: 9, pinnedRecord: 12, filterFile: 'model', sortKey: 'allocBytes' };
    assert.deepEqual(restoreState(JSON.parse(JSON.stringify(saved))), saved);
    const broken = restoreState({ x0: 9, x1: 5, axis: 'sideways', sortKey: 'size', pinnedRecord: 1.5, minBytes: 'x' });
    assert.deepEqual([broken.x0, broken.x1, broken.axis, broken.sortKey, broken.pinnedRecord, broken.minBytes], [undefined, undefined, 'event', 'liveAtPeakBytes', undefined, 0]);
  });
});

const row = (id: number, file: string, line: number, live: number, incl: number, alloc: number): LineRow => ({
  id,
  file,
  line,
  color: 0,
  allocCount: 1,
  allocBytes: alloc,
  peakBytes: 0,
  liveAtPeakBytes: live,
  inclusiveLiveAtPeakBytes: incl,
});

describe('timeline view: the lines table', () => {
  const rows = [row(0, '/p/model.py', 10, 100, 100, 500), row(1, '/p/train.py', 3, 0, 400, 50), row(2, '/p/model.py', 2, 300, 300, 300)];
  it('filters by file (any case), by the stack filter ids, and by bytes live at the peak', () => {
    const pass = (f: Partial<Parameters<typeof rowPasses>[1]>) =>
      rows.filter((r) => rowPasses(r, { file: '', stackIds: undefined, minBytes: 0, ...f })).map((r) => r.id);
    assert.deepEqual(pass({ file: 'MODEL' }), [0, 2]);
    assert.deepEqual(pass({ stackIds: new Set([1, 2]) }), [1, 2]);
    // Self or inclusive: train.py:3 has 0 self but 400 inclusive.
    assert.deepEqual(pass({ minBytes: 300 }), [1, 2]);
  });
  it('sorts by a figure (ties by allocated bytes) or by file and line', () => {
    assert.deepEqual([...rows].sort(compareRows('liveAtPeakBytes', true)).map((r) => r.id), [2, 0, 1]);
    assert.deepEqual([...rows].sort(compareRows('allocBytes', false)).map((r) => r.id), [1, 2, 0]);
    assert.deepEqual([...rows].sort(compareRows('line', false)).map((r) => r.id), [2, 0, 1]);
  });
  it('sends lines with numbers (2^64-1 included) and their palette colour', () => {
    const figures = { file: 'model.py', line: 18446744073709551615n, lineId: 4, allocCount: 1, allocBytes: 2, freedBytes: 0, peakBytes: 3 } as unknown as LineFigures;
    const r = lineRow({ ...figures, liveAtPeakBytes: 1, inclusiveAllocBytes: 0, inclusivePeakBytes: 0, inclusiveLiveAtPeakBytes: 1 });
    assert.equal(r.line, 18446744073709552000);
    // FNV-1a of "model.py:18446744073709551615" is 360304158; mod 12 = 6 (the exact digits, not the rounded number).
    assert.equal(r.color, 6);
  });
});

describe('timeline host: source paths (the shared path mapper)', () => {
  const shared = (a: string, b: string): number => commonSuffixLength(pathSegments(a), pathSegments(b), isWindowsPath(a) || isWindowsPath(b));
  it('counts the trailing path segments two paths share, with either slash', () => {
    assert.equal(shared('/root/proj/src/model.py', '/home/me/proj/src/model.py'), 3);
    assert.equal(shared('C:\\work\\proj\\model.py', '/srv/proj/model.py'), 2);
    assert.equal(shared('/a/model.py', '/a/train.py'), 0);
  });
  it('picks the workspace file with the longest common suffix, and none on ties (the user is asked instead)', () => {
    const candidates = new LocalFiles(['/ws/old/model.py', '/ws/proj/src/model.py', '/ws/other/src/model.py', '/ws/x/train.py']);
    assert.deepEqual(resolveRecordedPath('/root/proj/src/model.py', candidates), { kind: 'mapped', local: '/ws/proj/src/model.py', via: 'suffix', matchedSegments: 3 });
    assert.equal(resolveRecordedPath('/elsewhere/model.py', candidates).kind, 'ambiguous');
    assert.equal(resolveRecordedPath('/elsewhere/eval.py', candidates).kind, 'unmapped');
  });
});

describe('timeline host: the page', () => {
  const page = webviewDocument(TIMELINE_PAGE, {
    cspSource: 'https://file+.vscode-resource.vscode-cdn.net',
    nonce: 'abc123==',
    scriptUri: 'https://x/dist/webview/timeline.js?a="b"',
    styleUris: ['https://x/media/timeline.css'],
    codiconUri: 'https://x/dist/codicons/codicon.css',
  });
  it('allows no inline code: scripts only with the nonce, styles and fonts from the webview source', () => {
    const csp = contentSecurityPolicy('https://src', 'n0nce', TIMELINE_PAGE.dataImages);
    assert.equal(csp, "default-src 'none'; img-src https://src data:; style-src https://src; font-src https://src; script-src 'nonce-n0nce'");
    assert.ok(page.includes(`content="default-src 'none'`));
    const scripts = page.match(/<script[^>]*>/g) ?? [];
    assert.deepEqual(scripts, ['<script nonce="abc123==" src="https://x/dist/webview/timeline.js?a=&quot;b&quot;">']);
    assert.ok(!/\sstyle=/.test(page), 'no inline style attributes');
    assert.ok(!/\son[a-z]+=/.test(page), 'no inline event handlers');
  });
});

