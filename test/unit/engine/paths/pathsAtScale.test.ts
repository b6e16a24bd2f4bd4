/**
 * Path mapping for snapshots that record very many folders (issue 24 item 3): unmapped folders group
 * in one pass with the same groups as the rule's plain statement, a found file places its folder (no
 * question about it), and files recorded on this machine are found by listing folders from the top.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import type { ListFolder } from '../../../../src/engine/paths/existingFiles';
import { existingFiles } from '../../../../src/engine/paths/existingFiles';
import { isInsideAny, mappedFolders, unmappedRoots } from '../../../../src/engine/paths/pathMapper';
import { seededRandom } from '../../../../src/engine/workloads/catalog';

/**
 * The grouping rule as the docs state it, written plainly (every file against every group): a file
 * joins the first group whose folder shares at least min(2, its depth, the group's depth) leading
 * folders with its own, and the group's folder becomes what they share.
 */
function referenceRoots(paths: readonly string[]): { root: string; files: string[] }[] {
  const segs = (p: string) => p.replace(/\\/g, '/').split('/').filter((s) => s !== '' && s !== '.');
  const windows = (p: string) => /^[a-zA-Z]:[\\/]/.test(p);
  const same = (a: string, b: string, w: boolean) => (w ? a.toLowerCase() === b.toLowerCase() : a === b);
  const shared = (a: string[], b: string[], w: boolean) => {
    let n = 0;
    while (n < a.length && n < b.length && same(a[n], b[n], w)) n++;
    return n;
  };
  const groups: { w: boolean; segments: string[]; files: string[] }[] = [];
  for (const p of [...new Set(paths)].filter((x) => !/\/ipykernel_\d+\/[^/]+\.py$/.test(x.replace(/\\/g, '/'))).sort()) {
    const w = windows(p);
    const folder = segs(p).slice(0, -1);
    if (folder.length === 0) continue;
    const g = groups.find((x) => x.w === w && shared(x.segments, folder, w) >= Math.min(2, folder.length, x.segments.length));
    if (g) {
      g.segments = g.segments.slice(0, shared(g.segments, folder, w));
      g.files.push(p);
    } else groups.push({ w, segments: folder, files: [p] });
  }
  return groups.map((g) => ({ root: g.w ? (g.segments.length === 1 ? `${g.segments[0]}\\` : g.segments.join('\\')) : `/${g.segments.join('/')}`, files: g.files }));
}

describe('unmappedRoots at scale', () => {
  it('groups as the plain rule does, on random trees with shallow files, Windows drives and mixed case', () => {
    const random = seededRandom(24);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(random() * xs.length)];
    for (let round = 0; round < 40; round++) {
      const paths: string[] = [];
      for (let i = 0; i < 60; i++) {
        const depth = 1 + Math.floor(random() * 4);
        const folders = Array.from({ length: depth }, () => pick(['w', 'a', 'b', 'home', 'proj', 'Proj', 'x']));
        const file = `${pick(['m', 'n', 'train'])}.py`;
        paths.push(random() < 0.25 ? `${pick(['C:', 'c:', 'D:'])}\\${folders.join('\\')}\\${file}` : `/${folders.join('/')}/${file}`);
      }
      assert.deepEqual(unmappedRoots(paths), referenceRoots(paths), `round ${round}: ${paths.slice(0, 5).join(', ')}`);
    }
  });

  it('groups 100,000 recorded folders (one file each) the same way', () => {
    const paths = Array.from({ length: 100_000 }, (_, i) => `/w/d${i}/m${i}.py`);
    paths.push('/w/train.py', '/data/runs/r1/x.py', '/data/runs/r2/y.py');
    const roots = unmappedRoots(paths);
    // /w/train.py sits one folder deep: it joins the first group under /w, which becomes /w itself.
    assert.equal(roots.length, 100_000 - 1 + 1 + 1);
    const w = roots.find((r) => r.root === '/w');
    assert.ok(w, 'the group of /w/train.py');
    assert.deepEqual(w.files, ['/w/d0/m0.py', '/w/train.py']);
    assert.deepEqual(roots.find((r) => r.root === '/data/runs')?.files, ['/data/runs/r1/x.py', '/data/runs/r2/y.py']);
    assert.equal(roots.filter((r) => r.root.startsWith('/w/d')).length, 99_999);
  });
});

describe('folders a found file places', () => {
  it('is the recorded folder above the segments the two paths share', () => {
    const folders = mappedFolders(
      new Map([
        ['/w/cs336_basics/model.py', '/home/me/ws/cs336-basics/cs336_basics/model.py'],
        ['/w/train.py', '/home/me/ws/train.py'],
        ['D:\\proj\\pkg\\x.py', 'C:\\work\\proj\\pkg\\x.py'],
      ]),
    );
    assert.deepEqual(folders.sort(), ['/w', 'D:\\'].sort());
    assert.ok(isInsideAny('/w', folders));
    assert.ok(isInsideAny('/w/d17', folders));
    assert.ok(!isInsideAny('/work', folders), 'a folder whose name only starts the same is not inside');
    assert.ok(!isInsideAny('/data/w', folders));
    assert.ok(isInsideAny('d:\\other', folders), 'drive letters compare case-insensitively');
  });
});

describe('existingFiles', () => {
  it('lists each existing folder once, and a missing top folder once, whatever lies under it', async () => {
    const tree: Record<string, Record<string, 'file' | 'folder'>> = {
      '/': { home: 'folder', etc: 'folder' },
      '/home/me': { 'a.py': 'file', pkg: 'folder', 'link.py': 'file' },
      '/home': { me: 'folder' },
      '/home/me/pkg': { 'b.py': 'file', sub: 'folder' },
    };
    const listed: string[] = [];
    const list: ListFolder = (folder) => {
      listed.push(folder);
      const entries = tree[folder];
      return Promise.resolve(entries ? new Map(Object.entries(entries)) : undefined);
    };
    const recorded = ['/home/me/a.py', '/home/me/pkg/b.py', '/home/me/pkg/c.py', '/home/me/pkg/sub/d.py', 'relative/x.py', 'D:\\x.py'];
    for (let i = 0; i < 100_000; i++) recorded.push(`/w/d${i}/m.py`);
    const found = await existingFiles(recorded, list, false);
    assert.deepEqual([...found].sort(), ['/home/me/a.py', '/home/me/pkg/b.py']);
    assert.deepEqual(listed.sort(), ['/', '/home', '/home/me', '/home/me/pkg', '/home/me/pkg/sub'].sort());
  });

  it('finds real files, through symbolic links, and not folders named like files', async (t) => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'vram-lens-exists-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    mkdirSync(path.join(dir, 'pkg', 'folder.py'), { recursive: true });
    writeFileSync(path.join(dir, 'pkg', 'model.py'), '');
    symlinkSync(path.join(dir, 'pkg'), path.join(dir, 'linked'));
    const list: ListFolder = async (folder) => {
      try {
        const out = new Map<string, 'file' | 'folder' | 'other'>();
        for (const e of await fs.readdir(folder)) {
          const s = await fs.stat(path.join(folder, e));
          out.set(e, s.isFile() ? 'file' : s.isDirectory() ? 'folder' : 'other');
        }
        return out;
      } catch {
        return undefined;
      }
    };
    const recorded = ['model.py', 'folder.py', 'absent.py'].flatMap((f) => [path.join(dir, 'pkg', f), path.join(dir, 'linked', f)]);
    const found = await existingFiles(recorded, list, false);
    assert.deepEqual([...found].sort(), [path.join(dir, 'linked', 'model.py'), path.join(dir, 'pkg', 'model.py')].sort());
  });
});
