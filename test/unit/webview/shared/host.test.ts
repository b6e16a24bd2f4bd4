/**
 * One host-message path and one "open a line" message for every page: read off the pages' sources,
 * since the pages run in a browser. Every page listens to its host only through `onHostMessage`
 * (webview/shared/host.ts), and opens a line only with `openLine` (webview/shared/openLine.ts).
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { repoRoot } from '../../../helpers/corpus';

const webview = path.join(repoRoot, 'webview');
const sources = readdirSync(webview, { recursive: true })
  .map(String)
  .filter((f) => f.endsWith('.ts'))
  .map((f) => ({ file: f.split(path.sep).join('/'), text: readFileSync(path.join(webview, f), 'utf8') }));
const pages = readdirSync(webview, { withFileTypes: true })
  .filter((d) => d.isDirectory() && d.name !== 'shared')
  .map((d) => d.name);

describe('webview pages: one host-message path', () => {
  it('finds the pages', () => {
    assert.deepEqual(pages.sort(), ['compare', 'summary', 'timeline', 'whatIf']);
  });

  it('listens to the host only in webview/shared/host.ts, and every page through onHostMessage with its guard', () => {
    const listeners = sources.filter((s) => /addEventListener\(\s*['"]message['"]|\bonmessage\s*=/.test(s.text)).map((s) => s.file);
    assert.deepEqual(listeners, ['shared/host.ts']);
    for (const page of pages) {
      const main = sources.find((s) => s.file === `${page}/main.ts`)!;
      assert.match(main.text, new RegExp(`onHostMessage\\(\\s*'${page}',\\s*isHostTo\\w+,`), page);
    }
  });

  it('opens a line only with the one openLine message', () => {
    // No page writes the message by hand (or an older shape of it): each builds it with openLine(at).
    const byHand = sources.filter((s) => s.file !== 'shared/openLine.ts' && /type:\s*'(openLine|openSource)'/.test(s.text)).map((s) => s.file);
    assert.match(sources.find((s) => s.file === 'shared/openLine.ts')!.text, /type: 'openLine'/, 'the builder is where the message is written');
    assert.deepEqual(byHand, []);
    const users = sources.filter((s) => /\bopenLine\(\{|post\(openLine\(|\bopenLine\(at\)/.test(s.text)).map((s) => s.file.split('/')[0]);
    assert.deepEqual([...new Set(users)].sort(), ['compare', 'summary', 'timeline', 'whatIf']);
  });
});
