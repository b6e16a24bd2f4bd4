/** The what-if form (webview/whatIf/form.ts): what the user typed, checked as PyTorch and the CLI would. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkForm, EMPTY_FORM, restoreForm } from '../../../../webview/whatIf/form';

const GiB = 2 ** 30;

describe('the what-if form', () => {
  it('an empty form asks about the recording as it was', () => {
    assert.deepEqual(checkForm(EMPTY_FORM), { ok: true, question: { capacityBytes: null, allocConf: '', memoryFraction: null } });
  });

  it('reads a GPU memory as people write it (GiB binary, GB decimal) and the options as PYTORCH_CUDA_ALLOC_CONF takes them', () => {
    const check = checkForm({ capacity: ' 12 GiB ', allocConf: 'PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True,max_split_size_mb:128', memoryFraction: '0.5' });
    assert.deepEqual(check, { ok: true, question: { capacityBytes: 12 * GiB, allocConf: 'expandable_segments:True,max_split_size_mb:128', memoryFraction: 0.5 } });
    const decimal = checkForm({ capacity: '24GB', allocConf: '', memoryFraction: '' });
    assert.deepEqual(decimal.ok && decimal.question.capacityBytes, 24e9);
  });

  it('names the field of the first problem, in PyTorch\'s words where PyTorch would refuse', () => {
    const problem = (capacity: string, allocConf: string, memoryFraction: string) => {
      const c = checkForm({ capacity, allocConf, memoryFraction });
      return c.ok ? 'ok' : `${c.field}: ${c.message}`;
    };
    assert.match(problem('twelve', '', ''), /^capacity: A size such as 12 GiB/);
    assert.match(problem('0', '', ''), /^capacity:/);
    assert.match(problem('-3 GiB', '', ''), /^capacity:/);
    assert.match(problem('4096 TiB', '', ''), /^capacity: That is more memory than any GPU has/);
    assert.match(problem('', 'expandable_segments:Maybe', ''), /^allocConf: PyTorch would refuse this: expandable_segments takes True or False/);
    assert.match(problem('', 'max_split_size_mb:10', ''), /^allocConf: PyTorch would refuse this: max_split_size_mb must be >= 20/);
    assert.match(problem('', 'x'.repeat(501), ''), /^allocConf: At most 500 characters/);
    assert.match(problem('8 GiB', '', '1.5'), /^memoryFraction: A fraction in \(0, 1\]/);
    assert.match(problem('8 GiB', '', '0'), /^memoryFraction:/);
    assert.match(problem('', '', '0.5'), /^memoryFraction: A memory fraction is a fraction of the GPU memory/);
    assert.equal(problem('8 GiB', 'garbage_collection_threshold:0.6', '1'), 'ok');
  });

  it('reads a saved form back defensively', () => {
    assert.deepEqual(restoreForm(undefined), EMPTY_FORM);
    assert.deepEqual(restoreForm({ capacity: '8 GiB', allocConf: 7, memoryFraction: null }), { capacity: '8 GiB', allocConf: '', memoryFraction: '' });
    assert.equal(restoreForm({ capacity: 'x'.repeat(10_000) }).capacity.length, 500);
  });
});
