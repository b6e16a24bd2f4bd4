/** Stale-source relocation: a recorded line outside the function its frame names (issue 10 item 5). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ranTextRelocator, relocator } from '../../../../src/engine/annotate/relocation';

// The file as it is now: two lines were added at the top since the recording, so every recorded line
// is two lines too high. 0-based line numbers in the comments.
const NOW = [
  'import torch', //                                      0
  'from config import get_model_config', //              1  (added)
  '# a comment added since the recording', //            2  (added)
  '', //                                                  3
  'def build(size):', //                                  4
  '    return torch.empty(size, device="cuda")', //       5
  '', //                                                  6
  'def run_memory_forward_fullstep(model, batch):', //   7
  '    config = get_model_config(model)', //              8
  '    out = model(batch)', //                            9
  '    return out.sum()', //                             10
  '', //                                                 11
  'x = build(4)', //                                     12
];

describe('relocator', () => {
  const relocate = relocator(NOW);

  it('keeps a line that is inside a function of the recorded name', () => {
    assert.deepEqual(relocate(9, 'run_memory_forward_fullstep'), { line: 9, kind: 'inside' });
    assert.deepEqual(relocate(5, 'build'), { line: 5, kind: 'inside' });
  });

  it('moves a line recorded just above its function into the function body', () => {
    // Recorded at 0-based line 6 (an empty line now, between the two functions), in run_memory_forward_fullstep:
    // the nearest code line of that function's body is line 8.
    assert.deepEqual(relocate(6, 'run_memory_forward_fullstep'), { line: 8, kind: 'relocated' });
    // Recorded at line 3 in `build`: one line above its def; its body starts at line 5.
    assert.deepEqual(relocate(3, 'build'), { line: 5, kind: 'relocated' });
  });

  it('moves a line recorded below its function onto the last line of the body', () => {
    assert.deepEqual(relocate(12, 'run_memory_forward_fullstep'), { line: 10, kind: 'relocated' });
  });

  it('says so when no function of that name is close by', () => {
    assert.deepEqual(relocate(9, 'train_step'), { line: 9, kind: 'notFound' });
    assert.deepEqual(relocator(NOW, 1)(0, 'run_memory_forward_fullstep'), { line: 0, kind: 'notFound' }, 'too far away');
  });

  it('does not check module-level or unnamed code', () => {
    assert.deepEqual(relocate(12, '<module>'), { line: 12, kind: 'inside' });
    assert.deepEqual(relocate(12, '<listcomp>'), { line: 12, kind: 'inside' });
    assert.deepEqual(relocate(12, undefined), { line: 12, kind: 'inside' });
  });
});

describe('ranTextRelocator (a notebook cell edited since it ran)', () => {
  const ran = ['x = torch.empty(8)', 'y = torch.empty(16)', 'z = x + y'];

  it('keeps a line that still reads the same where it was', () => {
    const relocate = ranTextRelocator(ran, ['x = torch.empty(8)', 'y = torch.empty(16)', 'z = x + y', 'print(z)']);
    assert.deepEqual([0, 1, 2].map(relocate), [0, 1, 2].map((line) => ({ line, kind: 'inside' })));
  });

  it('follows a line whose text moved (lines added above), to the nearest line that reads the same', () => {
    const relocate = ranTextRelocator(ran, ['import torch', '', 'x = torch.empty(8)', 'y = torch.empty(16)', 'z = x + y', 'y = torch.empty(16)']);
    assert.deepEqual(relocate(1), { line: 3, kind: 'relocated' });
    assert.deepEqual(relocate(2), { line: 4, kind: 'relocated' });
  });

  it('says a line no longer reads as it did (edited), and puts it where the lines around it went', () => {
    const edited = ranTextRelocator(ran, ['x = torch.empty(8)', 'y = torch.empty(32)', 'z = x + y']);
    assert.deepEqual(edited(1), { line: 1, kind: 'notFound' });
    // A line added on top and the second line edited: the first moves down one, the edited one follows it.
    const shifted = ranTextRelocator(ran, ['import torch', 'x = torch.empty(8)', 'y = torch.empty(32)', 'z = x + y']);
    assert.deepEqual([0, 1, 2].map(shifted), [
      { line: 1, kind: 'relocated' },
      { line: 2, kind: 'notFound' },
      { line: 3, kind: 'relocated' },
    ]);
    assert.deepEqual(shifted(7), { line: 8, kind: 'notFound' }, 'a line past the code that ran, below the last kept line');
  });

  it('keeps the order of repeated lines (a diff, not the nearest look-alike)', () => {
    const relocate = ranTextRelocator(['a = 1', 'b = f()', 'b = f()'], ['b = f()', 'a = 1', 'b = f()', 'b = f()']);
    assert.deepEqual([0, 1, 2].map(relocate), [
      { line: 1, kind: 'relocated' },
      { line: 2, kind: 'relocated' },
      { line: 3, kind: 'relocated' },
    ]);
  });
});
