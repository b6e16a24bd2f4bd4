/** The function names of recorded lines come from the snapshot's frames (for relocation). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildLineIndex } from '../../../../src/engine/analysis/lineIndex';
import { lineFunctionNames } from '../../../../src/engine/annotate/recordedFunctions';
import type { Snapshot } from '../../../../src/engine/snapshot/model';

describe('lineFunctionNames', () => {
  it('names each user line by the function of its frames; library frames have no line', () => {
    const frames = [
      { filename: '/p/train.py', line: 12, name: 'step' },
      { filename: '/usr/lib/python3/site-packages/torch/nn/modules/module.py', line: 1, name: '_call_impl' },
      { filename: '/p/train.py', line: 30, name: '<module>' },
      { filename: '/p/train.py', line: 12, name: 'step' },
    ];
    const snapshot = { frames, stacks: [[0, 1, 2]] } as unknown as Snapshot;
    const index = buildLineIndex(snapshot, (f) => !f.filename.includes('site-packages'));
    assert.deepEqual(
      index.lines.map((l, id) => [l.file, l.line, lineFunctionNames(snapshot, index)[id]]),
      [
        ['/p/train.py', 12, 'step'],
        ['/p/train.py', 30, '<module>'],
      ],
    );
  });
});
