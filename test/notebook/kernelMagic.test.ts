/**
 * `%%vram` and `%vram start` / `%vram stop` in a real Jupyter kernel, loaded by the very cell `Record in
 * Notebook Kernel...` inserts: with the stand-in torch, each recording is a snapshot in the folder the
 * extension watches whose allocations are 100% on the recorded cells' lines (read from the cells' text),
 * with the cells' texts beside it, and no recording left on afterwards; with the kernel's real CPU PyTorch,
 * nothing of ours imports torch before the cell does and the magic says plainly why nothing was recorded.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { CELL_TEXTS_FORMAT, parseCellTexts } from '../../src/engine/notebook/cellTexts';
import { ipykernelCellHash } from '../../src/engine/notebook/murmur2';
import { loadExtensionCell } from '../../src/extension/notebook/loadCell';
import { repoRoot } from '../helpers/corpus';
import type { TestCell } from './kernelHelpers';
import { cellRows, fakeTorch, kernelMissing, markerLine, notebookJson, runKernel } from './kernelHelpers';

const missing = kernelMissing();
const pythonDir = path.join(repoRoot, 'src', 'python');
const KiB = 1024;
const MiB = 1024 * KiB;

describe('%%vram in a real kernel (the stand-in torch)', { skip: missing }, () => {
  it('records one cell, then a span of cells, each into its own snapshot on its cells, and leaves recording off', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'vl-magic-'));
    const watched = path.join(dir, 'watched folder ✓');
    const cells: TestCell[] = [
      { type: 'code', source: loadExtensionCell(pythonDir, watched) },
      { type: 'code', source: 'import sys\nprint("torch imported:", "torch" in sys.modules)' },
      { type: 'code', source: 'import torch\ndef make(n):\n    return torch.empty(n)  # alloc-make\n' },
      { type: 'code', source: 'before = torch.empty(5 * 1024 * 1024)  # not recorded' },
      // Blank lines above the magic, non-ASCII in the body, a magic in the body, a last expression shown.
      { type: 'code', source: '\n%%vram\n# größer ✓\nx = torch.empty(8 * 1024 * 1024)  # alloc-x\n%time y = [make(1024 * 1024) for _ in range(2)]\nlen(y) + 40' },
      { type: 'code', source: 'import torch._fake as _f\nprint("recording after the cell:", _f.STATE.recording)' },
      { type: 'code', source: '%vram start' },
      { type: 'code', source: 'w = torch.empty(2 * 1024 * 1024)  # alloc-w\r\nv = make(3 * 1024)\r\n' },
      { type: 'code', source: 'del w\nu = torch.empty(64 * 1024)  # alloc-u' },
      { type: 'code', source: '%vram stop' },
      { type: 'code', source: '%vram status\nprint("recording after stop:", _f.STATE.recording)\nafter = torch.empty(7 * 1024 * 1024)' },
    ];
    const run = runKernel(
      cells.map((c) => c.source),
      { cwd: dir, env: { PYTHONPATH: fakeTorch } },
    );
    for (const [i, c] of run.cells.entries()) assert.equal(c.status, 'ok', `cell ${i}: ${JSON.stringify(c.error)}`);
    assert.match(run.cells[1].stdout, /torch imported: False/, 'loading the extension imports no torch');
    assert.equal(run.cells[4].result, '42', 'the cell shows its last expression');
    assert.match(run.cells[4].stdout, /CPU times/, 'a magic inside the recorded cell ran');
    assert.match(run.cells[4].stdout, /VRAM Lens: recorded cell \[5\]/);
    assert.match(run.cells[5].stdout, /recording after the cell: False/);
    assert.match(run.cells[10].stdout, /not recording\.\nrecording after stop: False/);

    const notebook = path.join(dir, 'magic.ipynb');
    writeFileSync(notebook, notebookJson(cells, run.cells.map((c) => c.executionCount)));
    const snapshots = readdirSync(watched).filter((f) => f.endsWith('.pickle')).sort();
    assert.equal(snapshots.length, 2, `one snapshot per recording: ${readdirSync(watched).join(', ')}`);
    const [one, span] = snapshots.map((f) => path.join(watched, f));
    assert.match(path.basename(one), /-cell-5\.pickle$/);
    assert.match(path.basename(span), /-cells-from-7-to-10\.pickle$/);

    // %%vram: the cell's own lines (blank lines above the magic and all), and make() in cell 2 for y.
    const at = (marker: string) => markerLine(cells, marker);
    const rows = await cellRows(one, notebook);
    assert.deepEqual(
      rows.map((l) => [l.file, l.cell, l.line, l.allocBytes]).sort(),
      [
        [notebook, at('alloc-make').cell, at('alloc-make').line, 2 * MiB],
        [notebook, at('alloc-x').cell, at('alloc-x').line, 8 * MiB],
      ].sort(),
      '100% of the cell\'s allocations on its lines, nothing from before it',
    );
    const spanRows = await cellRows(span, notebook);
    assert.deepEqual(
      spanRows.map((l) => [l.cell, l.line, l.allocBytes]).sort(),
      [
        [at('alloc-make').cell, at('alloc-make').line, 3 * KiB],
        [at('alloc-w').cell, at('alloc-w').line, 2 * MiB],
        [at('alloc-u').cell, at('alloc-u').line, 64 * KiB],
      ].sort(),
      'the span: the cells between start and stop, none before or after',
    );

    // The texts the cells ran with, beside each snapshot, under the names the kernel gave them.
    const texts = parseCellTexts(readFileSync(one + '.cells.json', 'utf8'));
    assert.equal((JSON.parse(readFileSync(one + '.cells.json', 'utf8')) as { format: string }).format, CELL_TEXTS_FORMAT);
    const bySource = new Map(texts.map((t) => [t.source, t.file]));
    for (const i of [2, 4]) {
      const file = bySource.get(cells[i].source);
      assert.ok(file?.endsWith(`${ipykernelCellHash(cells[i].source)}.py`), `cell ${i}'s text under its name: ${JSON.stringify(texts)}`);
    }
    assert.ok(existsSync(span + '.cells.json'));
  });
});

describe('%%vram with the kernel\'s real PyTorch (CPU-only: nothing to record)', { skip: missing }, () => {
  it('never imports torch before the cell does, says why nothing was recorded, and leaves recording off', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'vl-magic-real-'));
    const watched = path.join(dir, 'snapshots');
    const run = runKernel(
      [
        loadExtensionCell(pythonDir, watched),
        'import sys\nprint("torch imported:", "torch" in sys.modules)',
        '%%vram\nimport os, sys\nprint("torch before the cell imports it:", "torch" in sys.modules)\nimport torch\nx = torch.ones(4)\nprint(torch.__version__)',
        '%vram start',
        'y = torch.ones(8)',
        '%vram stop',
        '%vram status',
      ],
      { cwd: dir },
    );
    for (const [i, c] of run.cells.entries()) assert.equal(c.status, 'ok', `cell ${i}: ${JSON.stringify(c.error)}`);
    assert.match(run.cells[1].stdout, /torch imported: False/);
    assert.match(run.cells[2].stdout, /torch before the cell imports it: False/);
    const version = /^(\d+)\.(\d+)/m.exec(run.cells[2].stdout.split('\n').find((l) => /^\d+\.\d+/.test(l)) ?? '');
    assert.ok(version, run.cells[2].stdout);
    const why = Number(version[1]) >= 2 ? /was built without CUDA: there is no GPU memory to record/ : /cannot record memory history \(that needs PyTorch 2\.0 or newer\)/;
    assert.match(run.cells[2].stdout, why, `PyTorch ${version[0]}`);
    assert.match(run.cells[5].stdout, why);
    assert.match(run.cells[6].stdout, /VRAM Lens: not recording\./);
    assert.ok(!existsSync(watched) || readdirSync(watched).length === 0, 'no snapshot');
    console.log(`real PyTorch ${version[0]} in ipykernel ${run.ipykernel}`);
  });
});
