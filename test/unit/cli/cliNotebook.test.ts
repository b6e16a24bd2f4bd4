/**
 * `--notebook`: a snapshot whose frames are ipykernel cell names, read against notebooks on disk. The
 * expected cells and lines are written here from the notebook's own text, not from the matcher.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { main } from '../../../src/cli/main';
import { ipykernelCellHash } from '../../../src/engine/notebook/murmur2';
import { CELL_TEXTS_FORMAT } from '../../../src/engine/notebook/cellTexts';
import type { TestFrame } from '../../helpers/traceBuilder';
import { MiB, TraceBuilder, torch } from '../../helpers/traceBuilder';

async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(args, { out: (t) => (out += t), err: (t) => (err += t) });
  return { code, out, err };
}

/** The cells of the test notebook, as a frontend sends them (cell 0 is markdown). */
const CELLS = [
  { type: 'markdown', source: '# Training ✓' },
  { type: 'code', source: 'import torch\n\ndef make(n):\n    return torch.empty(n)\n' },
  { type: 'code', source: '\n\n# größer: 日本\nbig = make(8 << 20)\nsmall = torch.empty(1 << 20)' },
  { type: 'code', source: 'x = 1\r\ny = torch.empty(2 << 20)\r\n' },
] as const;

const pid = 31337;
const nameOf = (source: string) => `/tmp/ipykernel_${pid}/${ipykernelCellHash(source)}.py`;
const cellFrame = (cell: number, line: number, name = '<module>'): TestFrame => ({ filename: nameOf(CELLS[cell].source), line, name });

function notebookJson(cells: readonly { type: string; source: string }[]): string {
  return JSON.stringify({
    nbformat: 4,
    nbformat_minor: 5,
    metadata: {},
    cells: cells.map((c, i) => ({
      cell_type: c.type,
      metadata: {},
      source: c.source.split(/(?<=\n)/),
      ...(c.type === 'code' ? { execution_count: i, outputs: [] } : {}),
    })),
  });
}

function fixture(): { dir: string; snapshot: string; notebook: string } {
  const dir = mkdtempSync(path.join(tmpdir(), 'vl-cli-nb-'));
  mkdirSync(path.join(dir, 'nb'));
  const notebook = path.join(dir, 'nb', 'train.ipynb');
  writeFileSync(notebook, notebookJson(CELLS));
  // Frames as the kernel records them: cell 2 line 2 (`big = make(...)`, after the two blank lines
  // IPython drops) calls make() in cell 1 line 4; cell 2 line 3 and cell 3 line 2 allocate directly.
  const t = new TraceBuilder();
  const empty = torch('_tensor.py', 10, 'empty');
  t.alloc(8 * MiB, [empty, cellFrame(1, 4, 'make'), cellFrame(2, 2)]);
  t.alloc(1 * MiB, [empty, cellFrame(2, 3)]);
  t.alloc(2 * MiB, [empty, cellFrame(3, 2)]);
  const snapshot = path.join(dir, 'snap.pickle');
  writeFileSync(snapshot, t.pickle());
  return { dir, snapshot, notebook };
}

type Row = { file: string; cell?: number; line: number; recordedFile?: string; cellChanged?: boolean; allocBytes: number; liveAtPeakBytes: number };

describe('vram-lens analyze --notebook', () => {
  it('puts every cell frame on its cell: file = notebook, cell = index among all cells, line = line in the cell', async () => {
    const { snapshot, notebook } = fixture();
    const r = await run(['analyze', snapshot, '--json', '--notebook', notebook]);
    assert.equal(r.code, 0, r.err);
    const rows = (JSON.parse(r.out) as { devices: { lines: Row[]; peakBytes: number }[] }).devices[0].lines;
    const got = rows.map((l) => [l.file, l.cell, l.line, l.allocBytes]).sort((a, b) => Number(a[1]) - Number(b[1]) || Number(a[2]) - Number(b[2]));
    // Cell 1 line 4 is `return torch.empty(n)` (the 8 MiB's innermost user line); cell 2 line 4 is `big = ...`
    // (two blank lines on top: recorded line 2), which holds it inclusively only; line 5 `small`; cell 3 line 2 `y = ...`.
    assert.deepEqual(got, [
      [notebook, 1, 4, 8 * MiB],
      [notebook, 2, 4, 0],
      [notebook, 2, 5, 1 * MiB],
      [notebook, 3, 2, 2 * MiB],
    ]);
    assert.equal(rows.find((l) => l.cell === 2 && l.line === 4)?.liveAtPeakBytes, 0);
    assert.equal((rows.find((l) => l.cell === 2 && l.line === 4) as Record<string, unknown>).inclusiveLiveAtPeakBytes, 8 * MiB);
    const inner = rows.find((l) => l.cell === 2 && l.line === 5);
    assert.equal(inner?.recordedFile, nameOf(CELLS[2].source));
    const total = rows.reduce((s, l) => s + l.liveAtPeakBytes, 0);
    assert.equal(total, 11 * MiB, 'every live byte is on a cell');
  });

  it('names cell lines as people read them in the text summary', async () => {
    const { snapshot, dir } = fixture();
    const r = await run(['analyze', snapshot, '--notebook', dir]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /8\.0 MiB +1 +train\.ipynb, cell 2, line 4\n/);
    assert.match(r.out, /1\.0 MiB +1 +train\.ipynb, cell 3, line 5\n/);
    assert.match(r.out, /peak allocated .* at train\.ipynb, cell 4, line 2\)/);
    assert.doesNotMatch(r.out, /ipykernel_/);
  });

  it('without --notebook reads the spec as before (temporary file names)', async () => {
    const { snapshot } = fixture();
    const r = await run(['analyze', snapshot]);
    assert.match(r.out, new RegExp(`${ipykernelCellHash(CELLS[2].source)}\\.py:3`));
  });

  it('finds a cell edited since it ran through the texts written beside the snapshot, and says it changed', async () => {
    const { snapshot, dir } = fixture();
    const edited = CELLS.map((c, i) => (i === 3 ? { type: 'code', source: 'x = 1\ny = torch.empty(2 << 20)  # edited\nprint(y)' } : c));
    writeFileSync(path.join(dir, 'nb', 'train.ipynb'), notebookJson(edited));
    let r = await run(['analyze', snapshot, '--json', '--notebook', dir]);
    let rows = (JSON.parse(r.out) as { devices: { lines: Row[] }[] }).devices[0].lines;
    assert.equal(rows.find((l) => l.recordedFile === undefined && l.file === nameOf(CELLS[3].source))?.line, 2, "unknown text: left as recorded");
    writeFileSync(snapshot + '.cells.json', JSON.stringify({ format: CELL_TEXTS_FORMAT, cells: [{ file: nameOf(CELLS[3].source), source: CELLS[3].source }] }));
    r = await run(['analyze', snapshot, '--json', '--notebook', dir]);
    rows = (JSON.parse(r.out) as { devices: { lines: Row[] }[] }).devices[0].lines;
    const moved = rows.find((l) => l.recordedFile === nameOf(CELLS[3].source));
    assert.deepEqual([moved?.cell, moved?.line, moved?.cellChanged], [3, 2, true]);
  });

  it('refuses a notebook that cannot be read, naming it', async () => {
    const { snapshot, dir } = fixture();
    const bad = path.join(dir, 'bad.ipynb');
    writeFileSync(bad, '{"nbformat": 3}');
    const r = await run(['analyze', snapshot, '--notebook', bad]);
    assert.equal(r.code, 1);
    assert.match(r.err, /bad\.ipynb: nbformat 3/);
    const missing = await run(['analyze', snapshot, '--notebook', path.join(dir, 'none.ipynb')]);
    assert.match(missing.err, /none\.ipynb: no such file/);
    const searched = await run(['analyze', snapshot, '--notebook', dir]);
    assert.equal(searched.code, 0, 'a folder search skips what it cannot read');
    assert.match(searched.err, /skipped .*bad\.ipynb/);
  });
});

describe('vram-lens advise and diff --notebook', () => {
  it('diff pairs a cell with itself across two kernels, whatever name each run gave it', async () => {
    const { snapshot, dir } = fixture();
    // A second run: another kernel (pid), the same cells, cell 3 allocating twice as much.
    const other = (cell: number, line: number, name = '<module>'): TestFrame => ({ filename: `/tmp/ipykernel_999/${ipykernelCellHash(CELLS[cell].source)}.py`, line, name });
    const t = new TraceBuilder();
    const empty = torch('_tensor.py', 10, 'empty');
    t.alloc(8 * MiB, [empty, other(1, 4, 'make'), other(2, 2)]);
    t.alloc(1 * MiB, [empty, other(2, 3)]);
    t.alloc(4 * MiB, [empty, other(3, 2)]);
    const second = path.join(dir, 'second.pickle');
    writeFileSync(second, t.pickle());
    const r = await run(['diff', snapshot, second, '--json', '--notebook', dir]);
    assert.equal(r.code, 0, r.err);
    const report = JSON.parse(r.out) as { lines: { file: string; cell?: number; line: number; match: string; delta: { allocBytes: number } }[] };
    assert.deepEqual(
      report.lines.map((l) => [l.cell, l.line, l.match, l.delta.allocBytes]),
      [[3, 2, 'line', 2 * MiB]],
      'only cell 3 changed, paired by cell and line',
    );
    const text = await run(['diff', snapshot, second, '--notebook', dir]);
    assert.match(text.out, /train\.ipynb, cell 4, line 2/);
  });

  it('advise reads the code that ran in a cell and names its lines by cell', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'vl-cli-nb-'));
    // A loop that keeps what it allocates (the growing-memory rule's case) in a cell with a blank line on
    // top: recorded line 4 is cell line 5, `    keep.append(torch.empty(1 << 20))`.
    const source = '\nimport torch\nkeep = []\nfor i in range(6):\n    keep.append(torch.empty(1 << 20))\n';
    const notebook = path.join(dir, 'loop.ipynb');
    writeFileSync(notebook, notebookJson([{ type: 'code', source }]));
    const t = new TraceBuilder();
    for (let i = 0; i < 6; i++) {
      // Each iteration: a temporary on the `for` line, freed; the kept block, never freed.
      const temporary = t.alloc(64, [torch('_tensor.py', 10, 'empty'), { filename: nameOf(source), line: 3, name: '<module>' }]);
      t.alloc(1 * MiB, [torch('_tensor.py', 10, 'empty'), { filename: nameOf(source), line: 4, name: '<module>' }]);
      t.free(temporary);
    }
    const snap = path.join(dir, 'loop.pickle');
    writeFileSync(snap, t.pickle());
    const r = await run(['advise', snap, '--notebook', dir]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /\[growing-memory\] Memory from loop\.ipynb, cell 1, line 5 grows/);
    assert.match(r.out, /quick fix at loop\.ipynb, cell 1, line 5: Accumulate torch\.empty\(1 << 20\)\.item\(\)/, 'the fix was read from the cell');
    assert.doesNotMatch(r.out, /ipykernel_/);
    const json = await run(['advise', snap, '--json', '--notebook', dir]);
    type Placed = { file: string; cell: number; line: number; endLine?: number; newText?: string };
    const [finding] = (JSON.parse(json.out) as { findings: (Placed & { rule: string; quickFixes: Placed[] })[] }).findings;
    assert.deepEqual([finding.rule, finding.file, finding.cell, finding.line], ['growing-memory', notebook, 0, 5]);
    const fix = finding.quickFixes[0];
    assert.deepEqual([fix.file, fix.cell, fix.line, fix.endLine], [notebook, 0, 5, 5]);
    assert.match(fix.newText ?? '', /torch\.empty\(1 << 20\)\.item\(\)/);
  });
});
