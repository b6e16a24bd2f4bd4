/**
 * Compare Snapshots offers files, not only loaded snapshots (issue 29, item 5: it listed only loaded
 * snapshots, with no Browse..., and a typed path gave an empty list): recent Profile VRAM runs' snapshots
 * (newest first), the workspace's .pickle/.pkl files, and a typed path to load. The picker that shows them
 * and loads the chosen file is driven in code-server (test/e2e/ui/firstHour.ui.test.ts).
 */
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { MAX_FILES_PER_KIND, fileChoices, typedPath } from '../../../../src/extension/compare/sideChoices';

describe('Compare Snapshots: the files a side can be', () => {
  it('recent runs first (newest first, ranks named), then the workspace\'s snapshot files; none loaded or offered twice', () => {
    const runs = [
      // Local times, as the picker shows them.
      { path: '/runs/a/snapshot.pickle', run: 'train.py', startedAt: new Date(2026, 0, 1, 9, 30).getTime() },
      { path: '/runs/b/rank1.pickle', run: 'ddp.py', startedAt: new Date(2026, 0, 2, 10, 0).getTime(), rank: 1 },
      { path: '/runs/c/snapshot.pickle', run: 'old.py', startedAt: new Date(2025, 11, 1).getTime() },
    ];
    const workspace = ['/ws/z.pkl', '/ws/notes.txt', '/ws/a/b.pickle', '/runs/a/snapshot.pickle', '/ws/loaded.pickle', '/ws/big.pickle.gz'];
    const choices = fileChoices(runs, workspace, new Set(['/runs/c/snapshot.pickle', '/ws/loaded.pickle']), (f) => path.relative('/ws', f));
    assert.deepEqual(
      choices.map((c) => [c.kind, c.label, c.description]),
      [
        ['run', 'ddp.py (rank 1)', 'profiled 2026-01-02 10:00'],
        ['run', 'train.py', 'profiled 2026-01-01 09:30'],
        ['workspace', 'b.pickle', 'a/b.pickle'],
        ['workspace', 'big.pickle.gz', 'big.pickle.gz'],
        ['workspace', 'z.pkl', 'z.pkl'],
      ],
    );
  });

  it('at most a few dozen of each kind', () => {
    const many = Array.from({ length: 100 }, (_, i) => `/ws/s${String(i).padStart(3, '0')}.pickle`);
    assert.equal(fileChoices([], many, new Set()).length, MAX_FILES_PER_KIND);
  });

  it('a typed path is offered for loading: absolute, ~/, or relative with a folder; a bare name only filters the list', () => {
    assert.equal(typedPath('/data/runs/x.pickle', '/ws', '/home/u'), '/data/runs/x.pickle');
    assert.equal(typedPath(' "/data/my runs/x.pickle" ', '/ws', '/home/u'), '/data/my runs/x.pickle');
    assert.equal(typedPath('~/snaps/x.pkl', '/ws', '/home/u'), '/home/u/snaps/x.pkl');
    assert.equal(typedPath('results/x.pickle', '/ws', '/home/u'), '/ws/results/x.pickle');
    assert.equal(typedPath('x.pickle', '/ws', '/home/u'), undefined);
    assert.equal(typedPath('train', '/ws', '/home/u'), undefined);
    assert.equal(typedPath('', '/ws', '/home/u'), undefined);
  });
});
