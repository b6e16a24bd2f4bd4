/** Mapping paths recorded on another machine to files here. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LocalFiles, applyRootMappings, nextFolderToAsk, resolveRecordedPath, resolveRecordedPaths, unmappedRoots } from '../../../../src/engine/paths/pathMapper';
import { baseName, isWindowsPath, joinLocal, normaliseRecordedPath, pathSegments } from '../../../../src/engine/paths/recordedPath';

describe('recorded paths', () => {
  it('reads POSIX and Windows paths into the same segments', () => {
    assert.deepEqual(pathSegments('/home/alice/proj/model.py'), ['home', 'alice', 'proj', 'model.py']);
    assert.deepEqual(pathSegments('D:\\Dev\\proj\\model.py'), ['D:', 'Dev', 'proj', 'model.py']);
    assert.deepEqual(pathSegments('c:/x//y/./z.py'), ['c:', 'x', 'y', 'z.py']);
  });

  it('resolves `..` the way the recording process did (scripts/../pkg/x.py is pkg/x.py)', () => {
    assert.deepEqual(pathSegments('/home/lin/a2/scripts/../cs336_systems/nsys_profile.py'), ['home', 'lin', 'a2', 'cs336_systems', 'nsys_profile.py']);
    assert.equal(normaliseRecordedPath('/home/lin/a2/scripts/../x.py'), '/home/lin/a2/x.py');
    assert.equal(normaliseRecordedPath('D:\\a\\b\\..\\c.py'), 'D:\\a\\c.py');
    assert.deepEqual(pathSegments('C:\\..\\x.py'), ['C:', 'x.py'], '.. never climbs above a drive');
  });

  it('tells Windows paths apart', () => {
    assert.ok(isWindowsPath('d:\\ai\\main.py'));
    assert.ok(isWindowsPath('C:/x.py'));
    assert.ok(isWindowsPath('\\\\server\\share\\x.py'));
    assert.ok(!isWindowsPath('/home/x.py'));
    assert.ok(!isWindowsPath('relative/x.py'));
  });

  it('names files and joins local folders in their own separator style', () => {
    assert.equal(baseName('C:\\research\\cezo_fl\\client.py'), 'client.py');
    assert.equal(joinLocal('/ws/', ['a', 'b.py']), '/ws/a/b.py');
    assert.equal(joinLocal('C:\\ws', ['a', 'b.py']), 'C:\\ws\\a\\b.py');
  });
});

describe('resolveRecordedPath', () => {
  const local = new LocalFiles([
    '/ws/cs336-basics/cs336_basics/model.py',
    '/ws/cs336_basics/model.py',
    '/ws/cs336_systems/nsys_profile.py',
    '/ws/tests/model.py',
    '/ws/train.py',
    '/ws/a/util.py',
    '/ws/b/util.py',
  ]);

  it('picks the local file that shares the longest suffix, not any file of that name', () => {
    const r = resolveRecordedPath('/home/lin/cs336/assignment2-systems/cs336-basics/cs336_basics/model.py', local);
    assert.deepEqual(r, { kind: 'mapped', local: '/ws/cs336-basics/cs336_basics/model.py', via: 'suffix', matchedSegments: 3 });
  });

  it('matches after resolving `..` in the recorded path', () => {
    const r = resolveRecordedPath('/home/lin/cs336/a2/scripts/../cs336_systems/nsys_profile.py', local);
    assert.deepEqual(r, { kind: 'mapped', local: '/ws/cs336_systems/nsys_profile.py', via: 'suffix', matchedSegments: 2 });
  });

  it('maps Windows recordings case-insensitively to POSIX files', () => {
    const r = resolveRecordedPath('D:\\Dev\\assignment2-systems\\CS336-Basics\\cs336_basics\\Model.py', local);
    assert.equal(r.kind, 'mapped');
    assert.equal(r.kind === 'mapped' && r.local, '/ws/cs336-basics/cs336_basics/model.py');
  });

  it('keeps case on POSIX recordings (Model.py is not model.py there)', () => {
    assert.deepEqual(resolveRecordedPath('/home/x/Train.py', local), { kind: 'unmapped' });
  });

  it('accepts a lone file-name match when it is the only file of that name', () => {
    const r = resolveRecordedPath('/home/alice/proj/train.py', local);
    assert.deepEqual(r, { kind: 'mapped', local: '/ws/train.py', via: 'suffix', matchedSegments: 1 });
  });

  it('reports a tie as ambiguous rather than guessing', () => {
    const r = resolveRecordedPath('/home/alice/proj/c/util.py', local);
    assert.equal(r.kind, 'ambiguous');
    assert.deepEqual(r.kind === 'ambiguous' && [...r.candidates].sort(), ['/ws/a/util.py', '/ws/b/util.py']);
  });

  it('recognises the same path on the same machine as exact', () => {
    const r = resolveRecordedPath('/ws/train.py', local);
    assert.deepEqual(r, { kind: 'mapped', local: '/ws/train.py', via: 'exact', matchedSegments: 2 });
  });

  it('leaves unknown files unmapped', () => {
    assert.deepEqual(resolveRecordedPath('/home/alice/proj/other.py', local), { kind: 'unmapped' });
  });

  it('prefers a remembered root mapping, the longest one that applies', () => {
    const mappings = [
      { from: '/home/alice', to: '/elsewhere' },
      { from: '/home/alice/proj', to: '/ws' },
    ];
    assert.deepEqual(resolveRecordedPath('/home/alice/proj/a/util.py', local, mappings), {
      kind: 'mapped',
      local: '/ws/a/util.py',
      via: 'root',
      matchedSegments: 5,
    });
    assert.equal(applyRootMappings('/home/alice/other/x.py', mappings), '/elsewhere/other/x.py');
    assert.equal(applyRootMappings('/home/alicex/x.py', mappings), undefined, 'a mapping applies on folder boundaries only');
    assert.equal(applyRootMappings('D:\\PROJ\\pkg\\x.py', [{ from: 'd:\\proj', to: '/ws' }]), '/ws/pkg/x.py');
  });

  it('resolves a batch once per distinct path', () => {
    const all = resolveRecordedPaths(['/h/train.py', '/h/train.py', '/h/none.py'], local);
    assert.equal(all.size, 2);
    assert.equal(all.get('/h/none.py')?.kind, 'unmapped');
  });
});

describe('unmappedRoots', () => {
  it('asks once about the folder a project\'s files share', () => {
    const roots = unmappedRoots([
      '/root/KIVI-lmeval/models/cache_utils_V2.py',
      '/root/KIVI-lmeval/quant/myquant.py',
      '/root/KIVI-lmeval/test_memnew.py',
    ]);
    assert.deepEqual(roots, [
      {
        root: '/root/KIVI-lmeval',
        files: ['/root/KIVI-lmeval/models/cache_utils_V2.py', '/root/KIVI-lmeval/quant/myquant.py', '/root/KIVI-lmeval/test_memnew.py'],
      },
    ]);
  });

  it('keeps unrelated trees and Windows drives apart, and skips notebook cells', () => {
    const roots = unmappedRoots([
      'C:\\research\\DeComFL\\cezo_fl\\client.py',
      'C:\\research\\DeComFL\\cezo_fl\\server.py',
      '/mnt/mcx/select_n/validate_old.py',
      '/opt/other/x.py',
      '/tmp/ipykernel_114/3105878423.py',
    ]);
    assert.deepEqual(
      roots.map((r) => [r.root, r.files.length]),
      [
        ['/mnt/mcx/select_n', 1],
        ['/opt/other', 1],
        ['C:\\research\\DeComFL\\cezo_fl', 2],
      ],
    );
  });
});

describe('issue 29: a copied sample, and one answer per declined folder', () => {
  it('a mapping of a whole recorded file maps that file (Open Sample -> Copy to Workspace): the copy, whatever its name', () => {
    const mappings = [{ from: 'media/samples/similarity.py', to: '/ws/similarity_1.py' }];
    assert.equal(applyRootMappings('media/samples/similarity.py', mappings), '/ws/similarity_1.py');
    // It wins over the suffix match with the bundled copy, which shares more segments.
    const local = new LocalFiles(['/ext/vram-lens/media/samples/similarity.py']);
    assert.deepEqual(resolveRecordedPath('media/samples/similarity.py', local, mappings), { kind: 'mapped', local: '/ws/similarity_1.py', via: 'root', matchedSegments: 3 });
    // Other files of the folder are not mapped by it.
    assert.equal(applyRootMappings('media/samples/train_step.py', mappings), undefined);
    // A folder mapping still maps what is under it.
    assert.equal(applyRootMappings('/home/a/proj/m.py', [{ from: '/home/a/proj', to: '/ws' }]), '/ws/m.py');
  });

  it('after "Not on This Machine" for a folder, nothing under it is asked about (Go to Peak Line asked about a subfolder)', () => {
    const unmapped = ['/home/lin/cs336/assignment2-systems/cs336_systems/a.py', '/home/lin/cs336/assignment2-systems/cs336_systems/b.py', '/opt/x/y.py'];
    const declined = ['/home/lin/cs336/assignment2-systems'];
    assert.equal(nextFolderToAsk(unmapped, { declined, asked: [], placed: [] })?.root, '/opt/x');
    assert.equal(nextFolderToAsk(unmapped.slice(0, 2), { declined, asked: [], placed: [] }), undefined);
    // Before, only the folder itself was skipped: its subfolder was asked about.
    assert.equal(nextFolderToAsk(unmapped.slice(0, 2), { declined: [], asked: [], placed: [] })?.root, '/home/lin/cs336/assignment2-systems/cs336_systems');
  });

  it('folders asked about once are not asked again; the one with the most files comes first', () => {
    const unmapped = ['/r0/a/x.py', '/r0/a/y.py', '/r1/b/x.py'];
    assert.equal(nextFolderToAsk(unmapped, { declined: [], asked: [], placed: [] })?.root, '/r0/a');
    assert.equal(nextFolderToAsk(unmapped, { declined: [], asked: ['/r0/a'], placed: [] })?.root, '/r1/b');
    assert.equal(nextFolderToAsk(unmapped, { declined: [], asked: [], placed: ['/r0'] })?.root, '/r1/b');
  });
});
