/** The hover's markdown: figures a user reads, links that work, and snapshot text that cannot inject links. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LineDetail } from '../../../../src/engine/analysis/lineDetail';
import type { LineFigures } from '../../../../src/engine/analysis/lines';
import { COLUMN_GAP, hoverMarkdown } from '../../../../src/extension/editor/hoverMarkdown';
import { escapeMarkdown } from '../../../../src/engine/text/plainText';
import { peakBreakdownClause } from '../../../../src/extension/editor/peakBreakdownText';

const MiB = 2 ** 20;
const figures: LineFigures = {
  file: '/home/a/proj/model.py',
  line: 39,
  lineId: 0,
  allocCount: 3,
  allocBytes: 48 * MiB,
  freedBytes: 0,
  peakWhileAllocatingBytes: 900 * MiB,
  liveAtPeakBytes: 16 * MiB,
  inclusiveAllocBytes: 48 * MiB,
  inclusivePeakWhileAllocatingBytes: 900 * MiB,
  inclusiveLiveAtPeakBytes: 32 * MiB,
  reservedGrowthBytes: 0,
  deviceCallCount: 0,
};
const evilName = 'f](command:workbench.action.terminal.new)[x';
const detail: LineDetail = {
  file: figures.file,
  line: 39,
  allocationSizes: [32 * MiB, 8 * MiB],
  allocationCount: 3,
  liveBlockSizes: [16 * MiB],
  liveBlockCount: 1,
  largest: { record: 7, allocEvent: 120, bytes: 32 * MiB, self: true },
  stacks: [
    {
      bytes: 48 * MiB,
      count: 3,
      frames: [
        { filename: '/venv/lib/python3.11/site-packages/torch/nn/functional.py', line: 100, name: 'linear', user: false },
        { filename: '/home/a/proj/model.py', line: 39, name: 'forward', user: true },
        { filename: '/home/a/proj/<train>.py', line: 5, name: evilName, user: true },
      ],
    },
  ],
  stackCount: 1,
};

function render(isMapped: (file: string) => boolean = () => true): string {
  return hoverMarkdown({ snapshotId: 's1', snapshotLabel: 'run_*1*.pickle', device: 0, peakBytes: 1024 * MiB, figures, detail, stale: false, isMapped });
}

describe('hoverMarkdown', () => {
  it('gives self and inclusive figures with shares of the peak', () => {
    const md = render();
    // Each figure after a gap of no-break spaces (issue 29: VS Code draws hover tables without padding, and
    // the columns ran together), written here as `_`.
    const rows = md.split('\n').filter((l) => l.startsWith('| ')).map((l) => l.replaceAll(COLUMN_GAP, '_'));
    assert.equal(COLUMN_GAP, '&nbsp;&nbsp;&nbsp;&nbsp;');
    // Every per-line figure of the registry, labelled by it, each self figure beside its inclusive form.
    assert.deepEqual(rows, [
      '| | _this line | _with its calls |',
      '| live at peak (share of 1.0 GiB) | _16.0 MiB · 1.6% | _32.0 MiB · 3.1% |',
      '| allocated | _48.0 MiB | _48.0 MiB |',
      '| allocations | _3 |  |',
      '| freed | _— |  |',
      '| peak while allocating | _900.0 MiB | _900.0 MiB |',
    ]);
    assert.ok(md.includes('**Allocations**, largest first: 32.0 MiB, 8.0 MiB, … and 1 more'), md);
  });

  it("shows the allocator's figures (beyond the contract) only on a line where they are above zero; the contract's always", () => {
    const rowsOf = (f: LineFigures) =>
      hoverMarkdown({ snapshotId: 's1', snapshotLabel: 'a', device: 0, peakBytes: 1024 * MiB, figures: f, detail: undefined, stale: false, isMapped: () => false })
        .split('\n')
        .filter((l) => l.startsWith('| ') && !l.startsWith('| |'))
        .map((l) => l.split(' | ')[0].slice(2));
    const contract = ['live at peak (share of 1.0 GiB)', 'allocated', 'allocations', 'freed', 'peak while allocating'];
    assert.deepEqual(rowsOf(figures), contract, 'no segment made: no allocator rows');
    const grew = hoverMarkdown({
      snapshotId: 's1',
      snapshotLabel: 'a',
      device: 0,
      peakBytes: 1024 * MiB,
      figures: { ...figures, reservedGrowthBytes: 20 * MiB, deviceCallCount: 1 },
      detail: undefined,
      stale: false,
      isMapped: () => false,
    });
    assert.ok(grew.includes(`| reserved grown | ${COLUMN_GAP}20.0 MiB |  |`), grew);
    assert.ok(grew.includes(`| cudaMalloc/cudaFree calls | ${COLUMN_GAP}1 |  |`), grew);
    // An empty_cache() line: calls, no growth. A contract figure at zero keeps its row (freed: —).
    assert.deepEqual(rowsOf({ ...figures, deviceCallCount: 4 }), [...contract, 'cudaMalloc/cudaFree calls']);
    assert.deepEqual(rowsOf({ ...figures, allocCount: 0, allocBytes: 0, inclusiveAllocBytes: 0 }), contract);
  });

  it('links user frames to the file, folds library frames, and links the timeline with the largest allocation', () => {
    const md = render();
    const timeline = /\[Show its largest allocation \(32\.0 MiB\) in the timeline\]\(command:vramLens\.showLineInTimeline\?([^)]+)\)/.exec(md);
    assert.ok(timeline, md);
    assert.deepEqual(JSON.parse(decodeURIComponent(timeline[1])), [
      { file: '/home/a/proj/model.py', line: 39, snapshotId: 's1', device: 0, allocEvent: 120, record: 7 },
    ]);
    assert.ok(md.includes('*1 library frame*'), md);
    const frameLinks = [...md.matchAll(/\(command:vramLens\.openFrame\?([^ )]+)/g)].map((m) => JSON.parse(decodeURIComponent(m[1])) as unknown);
    assert.deepEqual(frameLinks, [[{ file: '/home/a/proj/model.py', line: '39' }], [{ file: '/home/a/proj/<train>.py', line: '5' }]]);
  });

  it('never lets snapshot text open a link of its own', () => {
    const md = render();
    // A link target is `](command:...`; escaped text reads `\\](command:...` and is not a link.
    const commands = [...md.matchAll(/(?<!\\)\]\(command:([\w.]+)/g)].map((m) => m[1]);
    assert.ok(md.includes('command:workbench'), 'the text is there, as text');
    assert.deepEqual([...new Set(commands)].sort(), ['vramLens.openFrame', 'vramLens.showLineInTimeline']);
    assert.ok(md.includes(escapeMarkdown(evilName)));
    assert.ok(md.includes('run\\_\\*1\\*\\.pickle'), 'the snapshot name is escaped');
    assert.ok(!md.includes('<train>'), 'angle brackets are escaped');
  });

  it('says where the figures went when the file changed since the recording', () => {
    const base = { snapshotId: 's1', snapshotLabel: 'x', device: 0, peakBytes: 1024 * MiB, figures, detail: undefined, stale: false, isMapped: () => true };
    const moved = hoverMarkdown({ ...base, relocation: { kind: 'relocated', functionName: 'run_step', shownLine: 40 } });
    assert.ok(moved.includes('line 39 is no longer in `run\\_step`; these figures are shown on line 41'), moved);
    const lost = hoverMarkdown({ ...base, relocation: { kind: 'notFound', functionName: 'run_step', shownLine: 38 } });
    assert.ok(lost.includes('Line 39 was recorded in `run\\_step`, and no function of that name is close by'), lost);
  });

  it('on the line that reached the peak, names what else the peak holds, largest first', () => {
    const md = hoverMarkdown({
      snapshotId: 's1',
      snapshotLabel: 'x',
      device: 0,
      peakBytes: 1024 * MiB,
      figures,
      detail: undefined,
      stale: false,
      isMapped: () => true,
      isPeakLine: true,
      peakBreakdown: [
        { kind: 'beforeRecording', label: '', bytes: 100 * MiB },
        { kind: 'backward', label: 'AccumulateGrad', bytes: 256 * MiB },
        { kind: 'annotation', label: 'Optimizer.step#AdamW.step', bytes: 0 },
      ],
    });
    assert.ok(
      md.includes('- gradients \\(AccumulateGrad\\): 256.0 MiB · 25%\n- allocated before recording began: 100.0 MiB · 9.8%'),
      md,
    );
    assert.ok(!md.includes('AdamW'), 'empty buckets are left out');
  });

  it('leaves the allocator and unwinder frames out of stacks', () => {
    const withAllocator: LineDetail = {
      ...detail,
      stacks: [
        {
          bytes: MiB,
          count: 1,
          frames: [
            { filename: '??', line: 0, name: 'torch::unwind::unwind()', user: false },
            { filename: '??', line: 0, name: 'torch::CapturedTraceback::gather(bool, bool, bool)', user: false },
            { filename: '??', line: 0, name: 'c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator::malloc(...)', user: false },
            { filename: '/home/a/proj/model.py', line: 39, name: 'forward', user: true },
          ],
        },
      ],
    };
    const md = hoverMarkdown({ snapshotId: 's1', snapshotLabel: 'x', device: 0, peakBytes: 1024 * MiB, figures, detail: withAllocator, stale: false, isMapped: () => true });
    const stackLine = md.split('\n').find((l) => l.startsWith('1. '))!;
    assert.ok(!stackLine.includes('library frame'), stackLine);
    assert.ok(stackLine.includes('forward model\\.py:39'), stackLine);
  });

  it('shows frames of files not found here as text', () => {
    const md = render(() => false);
    assert.ok(!md.includes('vramLens.openFrame'), md);
    assert.ok(md.includes('forward model\\.py:39'), md);
  });
});

describe('peakBreakdownClause', () => {
  it('names the two largest buckets for a notification, as plain text', () => {
    const clause = peakBreakdownClause(
      [
        { kind: 'annotation', label: 'Optimizer.step#AdamW.step', bytes: 64 * MiB },
        { kind: 'backward', label: 'AccumulateGrad', bytes: 256 * MiB },
        { kind: 'beforeRecording', label: '', bytes: 128 * MiB },
        { kind: 'noFrames', label: '', bytes: 0 },
      ],
      1024 * MiB,
    );
    assert.equal(clause, 'besides your lines, the peak holds gradients (AccumulateGrad) 256.0 MiB · 25%, allocated before recording began 128.0 MiB · 13% and 1 more');
    // A label from the snapshot cannot form a link in a notification (notificationText splits "](").
    const hostile = peakBreakdownClause([{ kind: 'annotation', label: '[x](command:workbench.action.terminal.sendSequence)', bytes: MiB }], MiB);
    assert.ok(!hostile.includes(']('), hostile);
    assert.equal(peakBreakdownClause([], 1), '');
  });
});

describe('hoverMarkdown on a notebook cell', () => {
  const cellFile = '/tmp/ipykernel_4242/3105878423.py';
  const places = { [cellFile]: { notebook: '/ws/nb/train.ipynb', cell: 6, lineOffset: 2, changed: true } };
  const cellFigures: LineFigures = { ...figures, file: cellFile, line: 3 };
  const cellDetail: LineDetail = {
    ...detail,
    file: cellFile,
    line: 3,
    stacks: [{ bytes: 48 * MiB, count: 3, frames: [{ filename: cellFile, line: 3, name: '<module>', user: true }] }],
  };
  const base = { snapshotId: 's1', snapshotLabel: 'cell.pickle', device: 0, peakBytes: 1024 * MiB, figures: cellFigures, detail: cellDetail, stale: false, isMapped: () => true, places };

  it('names the cell and the line within it (the blank lines IPython dropped counted), never the temporary file', () => {
    const md = hoverMarkdown(base);
    // Recorded line 3 of code that ran with two blank lines on top: line 5 of the 7th cell.
    assert.ok(md.startsWith(`**VRAM Lens** · train\\.ipynb, cell 7, line 5 · device 0`), md.split('\n')[0]);
    assert.match(md, /\\<module\\> train\\.ipynb, cell 7, line 5\]\(command:vramLens\.openFrame\?/, 'the frame links to the cell');
    assert.doesNotMatch(md.replace(/\(command:[^)]*\)/g, ''), /ipykernel_|3105878423/, 'the temporary name only inside the link target');
  });

  it('says when the cell changed since it ran', () => {
    const moved = hoverMarkdown({ ...base, relocation: { kind: 'relocated', functionName: '<module>', shownLine: 8 } });
    assert.match(moved, /The cell changed since it ran: the code of its line 5 is now on line 9/);
    const lost = hoverMarkdown({ ...base, relocation: { kind: 'notFound', functionName: '<module>', shownLine: 4 } });
    assert.match(lost, /The cell changed since it ran: its line 5 no longer reads as it did/);
  });
});
