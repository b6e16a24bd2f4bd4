/** The timeline host's pure parts: the rows it sends, source paths mapped by the shared path mapper, and the page's CSP. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LineFigures } from '../../../../src/engine/analysis/lines';
import { LocalFiles, resolveRecordedPath } from '../../../../src/engine/paths/pathMapper';
import { TIMELINE_PAGE } from '../../../../src/extension/timeline/html';
import { commonSuffixLength, isWindowsPath, pathSegments } from '../../../../src/engine/paths/recordedPath';
import { contentSecurityPolicy, webviewDocument } from '../../../../src/extension/shared/webviewDocument';
import { lineRow } from '../../../../src/extension/timeline/rows';

describe('timeline view: the lines table', () => {
  it('sends lines with numbers (2^64-1 included) and their palette colour', () => {
    const figures = { file: 'model.py', line: 18446744073709551615n, lineId: 4, allocCount: 1, allocBytes: 2, freedBytes: 0, peakWhileAllocatingBytes: 3 } as unknown as LineFigures;
    const r = lineRow({ ...figures, liveAtPeakBytes: 1, inclusiveAllocBytes: 0, inclusivePeakWhileAllocatingBytes: 0, inclusiveLiveAtPeakBytes: 1 });
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
