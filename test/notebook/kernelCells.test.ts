/**
 * Notebook cells in a real Jupyter kernel (ipykernel from Debian, started by jupyter_client): the file
 * names the kernel gives the cells it runs (asked of the kernel's own compiler, not computed here) map to
 * the right cells, for multi-line cells, blank lines on top, non-ASCII text, CRLF line ends and a line
 * magic; and a snapshot recorded in that kernel (the stand-in torch) puts 100% of its allocations on the
 * notebook's cells, every line where the cell's text says it is. `npm run test:notebook` runs it against
 * each kernel `bash scripts/setup-notebook.sh` installed.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { before, describe, it } from 'node:test';
import { NotebookCellIndex } from '../../src/engine/notebook/cellIndex';
import { parseNotebook } from '../../src/engine/notebook/ipynb';
import type { KernelRun, TestCell } from './kernelHelpers';
import { cli, fakeTorch, kernelMissing, markerLine, notebookJson, runKernel } from './kernelHelpers';

const missing = kernelMissing();

const KiB = 1024;
const MiB = 1024 * KiB;

/** The notebook: what each allocating line allocates is written beside it (`# alloc-NAME`). */
function cells(snapshot: string): TestCell[] {
  return [
    { type: 'markdown', source: '# VRAM Lens in a kernel ✓\nCells below allocate on the stand-in device.' },
    { type: 'code', source: 'import torch\ntorch.cuda.memory._record_memory_history(max_entries=100000)' },
    { type: 'code', source: 'def make(n):\n    """Allocates n bytes."""\n    return torch.empty(n)  # alloc-make\n' },
    { type: 'markdown', source: 'Blank lines on top, and text that is not ASCII:' },
    { type: 'code', source: '\n\n# größer — 日本語 ✓\na = make(1 * 1024 * 1024)\nb = torch.empty(2 * 1024 * 1024)  # alloc-b «b»\n' },
    { type: 'code', source: 'c = torch.empty(3 * 1024 * 1024)  # alloc-c\r\nd = [make(64 * 1024) for _ in range(3)]\r\n' },
    { type: 'code', source: '%time e = torch.empty(4 * 1024 * 1024)  # alloc-e' },
    { type: 'code', source: 'for i in range(2):\n    keep = torch.empty(1024)  # alloc-loop\nprint("done", i)' },
    { type: 'code', source: `torch.cuda.memory._dump_snapshot(${JSON.stringify(snapshot)})` },
  ];
}

/** Bytes each marked line allocates itself (its innermost frame of the notebook), read from the cells above. */
const EXPECTED: Readonly<Record<string, number>> = {
  'alloc-make': 1 * MiB + 3 * 64 * KiB, // a = make(1 MiB); d = three make(64 KiB)
  'alloc-b': 2 * MiB,
  'alloc-c': 3 * MiB,
  'alloc-e': 4 * MiB, // %time compiles its statement as `<timed exec>` (library code): the cell's line holds it
  'alloc-loop': 2 * KiB,
};

describe(`a notebook run in a real kernel`, { skip: missing }, () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'vl-nb-kernel-'));
  const snapshot = path.join(dir, 'kernel.pickle');
  const notebookCells = cells(snapshot);
  const notebook = path.join(dir, 'train.ipynb');
  let run: KernelRun;

  before(() => {
    const code = notebookCells.filter((c) => c.type === 'code');
    run = runKernel(
      code.map((c) => c.source),
      { cwd: dir, env: { PYTHONPATH: fakeTorch } },
    );
    // The notebook as a frontend saves it after running: execution counts on its code cells.
    let k = 0;
    writeFileSync(notebook, notebookJson(notebookCells, notebookCells.map((c) => (c.type === 'code' ? run.cells[k++].executionCount : null))));
  });

  it('runs every cell without an error', () => {
    for (const [i, c] of run.cells.entries()) assert.equal(c.status, 'ok', `cell ${i}: ${JSON.stringify(c.error)} ${c.stderr}`);
    assert.match(run.cells[4].stdout, /^CPU times/m, '%time ran');
    console.log(`kernel: ipykernel ${run.ipykernel}, IPython ${run.ipython}, Python ${run.python}`);
  });

  it('maps every file name the kernel gave a cell to that cell', () => {
    const index = new NotebookCellIndex([{ path: notebook, cells: parseNotebook(notebookJson(notebookCells)) }]);
    const codeIndices = notebookCells.flatMap((c, i) => (c.type === 'code' ? [i] : []));
    const byCount = new Map(run.cells.map((c, k) => [c.executionCount, codeIndices[k]]));
    const names = Object.entries(run.names).filter(([, count]) => byCount.has(count));
    assert.equal(names.length, codeIndices.length, `one name per cell run: ${JSON.stringify(run.names)}`);
    for (const [name, count] of names) {
      assert.match(name, /[\\/]ipykernel_\d+[\\/]\d+\.py$/, 'an ipykernel cell name');
      const found = index.resolve(name);
      assert.equal(found?.cell, byCount.get(count), `${name} (execution count ${count})`);
      assert.equal(found?.changed, false);
    }
  });

  it('puts 100% of the recorded allocations on the notebook cells, each on its line', async () => {
    const r = await cli(['analyze', snapshot, '--json', '--notebook', notebook]);
    assert.equal(r.code, 0, r.err);
    type Row = { file: string; cell?: number; line: number; allocBytes: number; liveAtPeakBytes: number };
    const device = (JSON.parse(r.out) as { devices: { lines: Row[]; peakBytes: number; peakBreakdown: { bytes: number }[] }[] }).devices[0];
    const selfRows = device.lines.filter((l) => l.allocBytes > 0);
    const total = Object.values(EXPECTED).reduce((s, b) => s + b, 0);
    assert.equal(selfRows.reduce((s, l) => s + l.allocBytes, 0), total, 'every byte allocated has a line');
    for (const l of selfRows) assert.equal(l.file, notebook, `${l.file}:${l.line} is a cell of the notebook`);
    for (const [marker, bytes] of Object.entries(EXPECTED)) {
      const at = markerLine(notebookCells, marker);
      const row = selfRows.find((l) => l.cell === at.cell && l.line === at.line);
      assert.equal(row?.allocBytes, bytes, `${marker}: cell ${at.cell}, line ${at.line}`);
    }
    assert.equal(device.peakBreakdown.reduce((s, b) => s + b.bytes, 0), 0, 'nothing at the peak is outside the cells');
  });

  it('names cells in the summary, never the temporary files', async () => {
    const r = await cli(['analyze', snapshot, '--notebook', dir]);
    assert.equal(r.code, 0, r.err);
    const c = markerLine(notebookCells, 'alloc-c');
    assert.match(r.out, new RegExp(`3\\.0 MiB .* train\\.ipynb, cell ${c.cell + 1}, line ${c.line}\\n`));
    assert.doesNotMatch(r.out, /ipykernel_|\.py:/);
  });
});
