/** The what-if form (webview/whatIf/form.ts): what the user typed, checked as PyTorch and the CLI would. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkForm, EMPTY_FORM, restoreForm } from '../../../../webview/whatIf/form';

const GiB = 2 ** 30;

describe('the what-if form', () => {
  it('an empty form asks about the recording as it was', () => {
    assert.deepEqual(checkForm(EMPTY_FORM), { ok: true, question: { capacityBytes: null, allocConf: '', memoryFraction: null } });
  });

  it('reads a GPU memory as people mean it (a GPU sold as "12 GB" has 12 GiB) and the options as PYTORCH_CUDA_ALLOC_CONF takes them', () => {
    const check = checkForm({ capacity: ' 12 GiB ', allocConf: 'PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True,max_split_size_mb:128', memoryFraction: '0.5' });
    assert.deepEqual(check, { ok: true, question: { capacityBytes: 12 * GiB, allocConf: 'expandable_segments:True,max_split_size_mb:128', memoryFraction: 0.5 } });
    // Issue 29: "12 GB" read as 10^9 bytes each gave 11.18 GiB, while the table's "12 GB" row is 12 GiB.
    const capacity = (text: string) => {
      const c = checkForm({ capacity: text, allocConf: '', memoryFraction: '' });
      return c.ok ? c.question.capacityBytes : undefined;
    };
    assert.equal(capacity('12 GB'), 12 * GiB);
    assert.equal(capacity('24GB'), 24 * GiB);
    assert.equal(capacity('12G'), 12 * GiB);
    assert.equal(capacity('12gb'), 12 * GiB);
    assert.equal(capacity('24576 MB'), 24 * GiB, 'nvidia-smi\'s MiB written as MB');
    assert.equal(capacity('1.5 TB'), 1.5 * 1024 * GiB);
    assert.equal(capacity('8589934592'), 8 * GiB, 'a plain number is bytes');
  });

  it('names the field of the first problem, in PyTorch\'s words where PyTorch would refuse', () => {
    const problem = (capacity: string, allocConf: string, memoryFraction: string) => {
      const c = checkForm({ capacity, allocConf, memoryFraction });
      return c.ok ? 'ok' : `${c.field}: ${c.message}`;
    };
    assert.match(problem('twelve', '', ''), /^capacity: A size such as 12 GB \(as GPUs are sold: 12 GiB\)/);
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
