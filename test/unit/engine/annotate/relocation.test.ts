/** Stale-source relocation: a recorded line outside the function its frame names (issue 10 item 5). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { relocator } from '../../../../src/engine/annotate/relocation';

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
