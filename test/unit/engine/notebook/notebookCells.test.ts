/** Notebook cells as sources: ipykernel's cell names, the hash, the line offset, matching names to cells. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { NotebookCellIndex, cellName } from '../../../../src/engine/notebook/cellIndex';
import type { NotebookSource } from '../../../../src/engine/notebook/cellIndex';
import { cellLines, ipythonLineOffset } from '../../../../src/engine/notebook/cellLines';
import { isCellName, parseCellName } from '../../../../src/engine/notebook/cellNames';
import { NotebookFormatError, parseNotebook } from '../../../../src/engine/notebook/ipynb';
import type { NotebookCellSource } from '../../../../src/engine/notebook/ipynb';
import { IPYKERNEL_HASH_SEED, ipykernelCellHash, murmur2x86 } from '../../../../src/engine/notebook/murmur2';
import { LocalFiles, resolveRecordedPath, unmappedRoots } from '../../../../src/engine/paths/pathMapper';
import { cellLine, fileLabel, lineLabel } from '../../../../src/engine/paths/places';

/**
 * Printed by ipykernel 6.17.0's own `ipykernel.compiler.murmur2_x86(text, 0xC70F6907)` (Debian's
 * python3-ipykernel), not by our code: every tail length, UTF-8 of two and three bytes, CRLF.
 */
const IPYKERNEL_VECTORS: readonly [string, number][] = [
  ['', 3990065800],
  ['a', 2167009006],
  ['ab', 2805137849],
  ['abc', 3350977461],
  ['abcd', 804720481],
  ['abcde', 730143326],
  ['x = 1\ny = 2\n', 1929394121],
  ['print("héllo wörld ✓ 日本")', 727635378],
  ['a = 1\r\nb = 2\r\n', 812957348],
  ['\n\nimport torch\n', 365770996],
  ['é', 2171970256],
  ['日本語x', 2096751869],
];

const SYSTEM_PYTHON = '/usr/bin/python3';

function ipykernelHashes(texts: readonly string[]): number[] | undefined {
  const script = 'import json, sys\nfrom ipykernel.compiler import murmur2_x86, get_tmp_hash_seed\n' +
    'print(json.dumps([murmur2_x86(t, get_tmp_hash_seed()) for t in json.load(sys.stdin)]))';
  const run = spawnSync(SYSTEM_PYTHON, ['-c', script], { input: JSON.stringify(texts), encoding: 'utf8' });
  if (run.status !== 0) return undefined;
  return JSON.parse(run.stdout) as number[];
}

describe('murmur2 as ipykernel computes it', () => {
  it('gives the numbers ipykernel printed for every tail length, non-ASCII text and CRLF', () => {
    for (const [text, expected] of IPYKERNEL_VECTORS) assert.equal(ipykernelCellHash(text), expected, JSON.stringify(text));
    assert.equal(IPYKERNEL_HASH_SEED, 0xc70f6907);
  });

  it('agrees with the installed ipykernel on random texts', (t) => {
    let seed = 12345;
    const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
    const alphabet = ['a', 'Z', ' ', '\n', '\r\n', '\t', 'é', 'ß', '✓', '日', '😀', '#', '(', '"'];
    const texts: string[] = [];
    for (let i = 0; i < 300; i++) {
      let text = '';
      const length = next() % 70;
      for (let j = 0; j < length; j++) text += alphabet[next() % alphabet.length];
      texts.push(text);
    }
    const expected = ipykernelHashes(texts);
    if (!expected) {
      t.skip(`${SYSTEM_PYTHON} has no ipykernel (bash scripts/setup-notebook.sh installs it)`);
      return;
    }
    assert.deepEqual(texts.map(ipykernelCellHash), expected);
  });

  it('hashes bytes, not UTF-16 code units, and stays unsigned', () => {
    assert.equal(murmur2x86(new TextEncoder().encode('é'), IPYKERNEL_HASH_SEED), ipykernelCellHash('é'));
    for (const [text] of IPYKERNEL_VECTORS) assert.ok(ipykernelCellHash(text) >= 0 && ipykernelCellHash(text) <= 0xffffffff);
  });
});

describe('cell names', () => {
  it('reads ipykernel names on POSIX, macOS and Windows temporary folders', () => {
    assert.deepEqual(parseCellName('/tmp/ipykernel_114/3105878423.py'), { kind: 'ipykernel', hash: 3105878423, pid: 114 });
    assert.deepEqual(parseCellName('/var/folders/x1/T/ipykernel_77/12.py'), { kind: 'ipykernel', hash: 12, pid: 77 });
    assert.deepEqual(parseCellName('C:\\Users\\a\\AppData\\Local\\Temp\\ipykernel_9\\4294967295.py'), { kind: 'ipykernel', hash: 4294967295, pid: 9 });
  });

  it('reads IPython input names and the fixed name of IPYKERNEL_CELL_NAME', () => {
    assert.deepEqual(parseCellName('<ipython-input-7-0123456789ab>'), { kind: 'ipython-input', executionCount: 7, digest: '0123456789ab' });
    assert.deepEqual(parseCellName('<IPY-INPUT>'), { kind: 'fixed', name: '<IPY-INPUT>' });
  });

  it('refuses everything else', () => {
    for (const name of ['/tmp/ipykernel_1/x.py', '/tmp/ipykernel_1/4294967296.py', '/home/a/train.py', '<frozen runpy>', 'ipykernel_1/2.pyc', '<ipython-input-x-12>']) {
      assert.equal(isCellName(name), false, name);
    }
  });
});

describe('ipythonLineOffset', () => {
  it('counts the blank lines IPython drops from the top of a cell', () => {
    assert.equal(ipythonLineOffset('x = 1\n'), 0);
    assert.equal(ipythonLineOffset('\n\nx = 1\n'), 2);
    assert.equal(ipythonLineOffset('  \n\t\n  x = 1\n'), 2, 'whitespace-only lines go; the indented first line stays');
    assert.equal(ipythonLineOffset('\r\n\r\nx = 1'), 2);
    assert.equal(ipythonLineOffset('\r\rx'), 2, 'a lone \\r ends a line for the compiler too');
    assert.equal(ipythonLineOffset('\n\n'), 0, 'an all-blank cell is left as it is');
    assert.equal(ipythonLineOffset(''), 0);
    assert.equal(ipythonLineOffset('\f\nx'), 1, 'form feed: a splitlines boundary, not a compiler line');
  });

  it('splits cell text into editor lines', () => {
    assert.deepEqual(cellLines('a\r\nb\nc\rd'), ['a', 'b', 'c', 'd']);
  });
});

describe('parseNotebook', () => {
  it('reads nbformat 4 cells: lists and strings of source, kinds, execution counts', () => {
    const cells = parseNotebook(
      JSON.stringify({
        nbformat: 4,
        nbformat_minor: 5,
        metadata: {},
        cells: [
          { cell_type: 'markdown', metadata: {}, source: ['# Title\n', 'text'] },
          { cell_type: 'code', metadata: {}, execution_count: 3, outputs: [], source: ['import torch\n', 'x = torch.empty(8)'] },
          { cell_type: 'code', metadata: {}, execution_count: null, outputs: [], source: 'y = 1' },
          { cell_type: 'raw', metadata: {}, source: [] },
        ],
      }),
    );
    assert.deepEqual(cells, [
      { index: 0, kind: 'markdown', source: '# Title\ntext' },
      { index: 1, kind: 'code', source: 'import torch\nx = torch.empty(8)', executionCount: 3 },
      { index: 2, kind: 'code', source: 'y = 1' },
      { index: 3, kind: 'raw', source: '' },
    ]);
  });

  it('refuses what is not an nbformat 4 notebook, saying why', () => {
    assert.throws(() => parseNotebook('{'), NotebookFormatError);
    assert.throws(() => parseNotebook('[]'), /not an object/);
    assert.throws(() => parseNotebook('{"nbformat": 3, "worksheets": []}'), /nbformat 3/);
    assert.throws(() => parseNotebook('{"nbformat": 4, "cells": [{"cell_type": "code", "source": 5}]}'), /cell 1/);
  });

  it('reads a file that starts with a byte order mark', () => {
    assert.equal(parseNotebook('\ufeff{"nbformat": 4, "cells": []}').length, 0);
  });
});

function code(index: number, source: string, extra: Partial<NotebookCellSource> = {}): NotebookCellSource {
  return { index, kind: 'code', source, ...extra };
}

function cellFile(source: string, pid = 4242): string {
  return `/tmp/ipykernel_${pid}/${ipykernelCellHash(source)}.py`;
}

describe('NotebookCellIndex', () => {
  const train: NotebookSource = {
    path: '/ws/train.ipynb',
    cells: [
      { index: 0, kind: 'markdown', source: 'import torch' },
      code(1, 'import torch', { executionCount: 1 }),
      code(2, '\n\nx = torch.empty(1024)\ny = torch.empty(2048)', { executionCount: 2 }),
      code(3, 'z = 1\r\nw = torch.empty(8)\r\n', { executionCount: 5 }),
    ],
  };

  it('finds the cell whose text hashes to the name, by its index among all cells', () => {
    const index = new NotebookCellIndex([train]);
    assert.deepEqual(index.resolve(cellFile('import torch')), {
      notebook: '/ws/train.ipynb',
      cell: 1,
      lineOffset: 0,
      ranSource: 'import torch',
      changed: false,
      match: 'text',
    });
    const second = index.resolve(cellFile('\n\nx = torch.empty(1024)\ny = torch.empty(2048)'));
    assert.equal(second?.cell, 2);
    assert.equal(second?.lineOffset, 2);
  });

  it('finds a CRLF cell whichever line ends the frontend sent', () => {
    const index = new NotebookCellIndex([train]);
    assert.equal(index.resolve(cellFile('z = 1\r\nw = torch.empty(8)\r\n'))?.cell, 3);
    assert.equal(index.resolve(cellFile('z = 1\nw = torch.empty(8)\n'))?.cell, 3);
  });

  it('finds a cell edited since it ran by the text it ran with, and says it changed', () => {
    const edited: NotebookSource = { path: '/ws/e.ipynb', cells: [code(0, 'a = torch.empty(9)\nb = 2', { ranSources: ['a = torch.empty(8)'] })] };
    const found = new NotebookCellIndex([edited]).resolve(cellFile('a = torch.empty(8)'));
    assert.deepEqual(found, { notebook: '/ws/e.ipynb', cell: 0, lineOffset: 0, ranSource: 'a = torch.empty(8)', changed: true, match: 'ran' });
  });

  it('matches a text known to have run to the cell that kept most of its lines', () => {
    const nb: NotebookSource = { path: '/ws/n.ipynb', cells: [code(0, 'import os'), code(1, 'model = make()\nout = model(x)\nloss = out.sum()\nprint(loss)')] };
    const ran = 'model = make()\nout = model(x)\nloss = out.mean()';
    const index = new NotebookCellIndex([nb], [ran, 'unrelated = 1']);
    const found = index.resolve(cellFile(ran));
    assert.equal(found?.cell, 1);
    assert.equal(found?.match, 'similar');
    assert.equal(found?.changed, true);
    assert.equal(index.resolve(cellFile('unrelated = 1')), undefined, 'no cell keeps half of its lines');
    assert.equal(index.knownText(cellFile('unrelated = 1')), 'unrelated = 1');
    assert.equal(index.resolve(cellFile('never = ran')), undefined);
  });

  it('matches <ipython-input-N-…> names by execution count', () => {
    const index = new NotebookCellIndex([train]);
    assert.equal(index.resolve('<ipython-input-5-0123456789ab>')?.cell, 3);
    assert.equal(index.resolve('<ipython-input-4-0123456789ab>'), undefined);
  });

  it('gives identical cells to the first notebook given (open notebooks are given first)', () => {
    const other: NotebookSource = { path: '/ws/other.ipynb', cells: [code(0, 'import torch')] };
    assert.equal(new NotebookCellIndex([other, train]).resolve(cellFile('import torch'))?.notebook, '/ws/other.ipynb');
    assert.equal(new NotebookCellIndex([train, other]).resolve(cellFile('import torch'))?.notebook, '/ws/train.ipynb');
  });

  it('leaves markdown cells and unknown names alone', () => {
    const index = new NotebookCellIndex([{ path: '/ws/m.ipynb', cells: [{ index: 0, kind: 'markdown', source: 'x' }] }]);
    assert.ok(index.isEmpty);
    assert.equal(index.resolve(cellFile('x')), undefined);
    assert.equal(index.resolve('/home/a/train.py'), undefined);
    assert.equal(index.resolve('<IPY-INPUT>'), undefined);
  });
});

describe('cells in the path mapping', () => {
  const index = new NotebookCellIndex([{ path: '/ws/train.ipynb', cells: [code(0, 'x = 1'), code(1, 'y = torch.empty(4)')] }]);
  const local = new LocalFiles(['/ws/train.py', '/ws/12.py']);

  it('maps a cell name to its cell and files as before', () => {
    const r = resolveRecordedPath(cellFile('y = torch.empty(4)'), local, [], index);
    assert.equal(r.kind, 'cell');
    assert.equal(r.kind === 'cell' && r.cell.cell, 1);
    assert.equal(resolveRecordedPath('/home/a/train.py', local, [], index).kind, 'mapped');
  });

  it('never maps a cell name to a file named like it, and never asks where its folder is', () => {
    assert.deepEqual(resolveRecordedPath('/tmp/ipykernel_1/12.py', local, [], index), { kind: 'unmapped' });
    assert.deepEqual(resolveRecordedPath('/tmp/ipykernel_1/12.py', local), { kind: 'unmapped' });
    assert.deepEqual(
      unmappedRoots(['/tmp/ipykernel_1/12.py', '/home/a/proj/x.py', '<ipython-input-1-ab>']).map((r) => r.root),
      ['/home/a/proj'],
    );
  });
});

describe('line labels', () => {
  const places = { '/tmp/ipykernel_1/12.py': { notebook: '/ws/nb/train.ipynb', cell: 6, lineOffset: 2, changed: false } };

  it('names a cell line as people read it, a file line as before', () => {
    assert.equal(lineLabel('/tmp/ipykernel_1/12.py', 1, places), 'train.ipynb, cell 7, line 3');
    assert.equal(lineLabel('/home/a/model.py', 39n, places), 'model.py:39');
    assert.equal(fileLabel('/tmp/ipykernel_1/12.py', places), 'train.ipynb, cell 7');
    assert.equal(cellLine(places['/tmp/ipykernel_1/12.py'], '4'), 6);
    assert.equal(cellName('a.ipynb', 0), 'a.ipynb, cell 1');
  });

  it('reads only a place of its own (a recorded file may be called `constructor`)', () => {
    assert.equal(lineLabel('constructor', 3, places), 'constructor:3');
    assert.equal(lineLabel('__proto__', 3, places), '__proto__:3');
  });
});
