/** The what-if panel's guards (src/guards/whatIf.ts): each direction's, and the host's check of a question. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openLine } from '../../../webview/shared/openLine';
import { checkedQuestion, isHostToWhatIf, isWhatIfToHost } from '../../../src/guards/whatIf';

describe('the what-if protocol', () => {
  it('guards each direction', () => {
    for (const type of ['ready', 'selectDevice', 'predict']) assert.equal(isWhatIfToHost({ type }), true, type);
    assert.equal(isWhatIfToHost(openLine({ file: 'a.py', line: 3 })), true);
    for (const type of ['target', 'check', 'table', 'prediction', 'error', 'empty']) {
      assert.equal(isHostToWhatIf({ type }), true, type);
      assert.equal(isWhatIfToHost({ type }), false, type);
    }
    assert.equal(isHostToWhatIf({ type: 'predict' }), false);
    assert.equal(isWhatIfToHost({ type: 'runCommand', command: 'workbench.action.terminal.new' }), false);
  });

  it('the host takes a question only with a positive capacity (or none), options as text, a fraction in (0, 1] (or none)', () => {
    assert.deepEqual(checkedQuestion({ capacityBytes: 8e9, allocConf: 'expandable_segments:True', memoryFraction: 0.5, extra: 1 }), {
      capacityBytes: 8e9,
      allocConf: 'expandable_segments:True',
      memoryFraction: 0.5,
    });
    assert.deepEqual(checkedQuestion({ capacityBytes: null, allocConf: '', memoryFraction: null }), { capacityBytes: null, allocConf: '', memoryFraction: null });
    const bad = [
      null,
      'x',
      { capacityBytes: 0, allocConf: '', memoryFraction: null },
      { capacityBytes: -1, allocConf: '', memoryFraction: null },
      { capacityBytes: Infinity, allocConf: '', memoryFraction: null },
      { capacityBytes: 2 ** 51, allocConf: '', memoryFraction: null },
      { capacityBytes: '8', allocConf: '', memoryFraction: null },
      { capacityBytes: null, allocConf: 7, memoryFraction: null },
      { capacityBytes: null, allocConf: 'x'.repeat(501), memoryFraction: null },
      { capacityBytes: null, allocConf: '', memoryFraction: 0 },
      { capacityBytes: null, allocConf: '', memoryFraction: 1.5 },
      { capacityBytes: null, allocConf: '' },
    ];
    for (const q of bad) assert.equal(checkedQuestion(q), undefined, JSON.stringify(q));
  });
});
