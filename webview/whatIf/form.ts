/**
 * The what-if form, DOM-free (tested in Node): what the user typed (a GPU's memory, options of
 * PYTORCH_CUDA_ALLOC_CONF, a memory fraction) checked as PyTorch and the CLI would, into the question
 * the page asks the host; the first problem names its field. The host checks the question again.
 */
import { AllocConfError, applyAllocConf, DEFAULT_SETTINGS } from '../../src/engine/allocator/settings';
import { errorMessage } from '../../src/engine/base/errors';
import { parseGpuMemory } from '../../src/engine/text/format';
import type { WhatIfQuestion, WhatIfState } from '../../src/protocol/whatIf';
import { MAX_ALLOC_CONF_LENGTH, MAX_CAPACITY_BYTES } from '../../src/guards/whatIf';

export type FormField = keyof WhatIfState;

export type FormCheck = { readonly ok: true; readonly question: WhatIfQuestion } | { readonly ok: false; readonly field: FormField; readonly message: string };

export const EMPTY_FORM: WhatIfState = { capacity: '', allocConf: '', memoryFraction: '' };

/** A saved form read back defensively (it may come from an older version of the page). */
export function restoreForm(saved: unknown): WhatIfState {
  if (typeof saved !== 'object' || saved === null) return EMPTY_FORM;
  const s = saved as Record<string, unknown>;
  const text = (v: unknown) => (typeof v === 'string' ? v.slice(0, MAX_ALLOC_CONF_LENGTH) : '');
  return { capacity: text(s.capacity), allocConf: text(s.allocConf), memoryFraction: text(s.memoryFraction) };
}

/** The question the form asks, or its first problem. */
export function checkForm(form: WhatIfState): FormCheck {
  const capacityText = form.capacity.trim();
  let capacityBytes: number | null = null;
  if (capacityText !== '') {
    const bytes = parseGpuMemory(capacityText);
    if (bytes === undefined || !(bytes > 0)) return { ok: false, field: 'capacity', message: `A size such as 12 GB (as GPUs are sold: 12 GiB), 24 GiB or 8589934592 (bytes), not '${capacityText}'.` };
    if (bytes > MAX_CAPACITY_BYTES) return { ok: false, field: 'capacity', message: 'That is more memory than any GPU has.' };
    capacityBytes = bytes;
  }
  const allocConf = form.allocConf.trim().replace(/^PYTORCH_CUDA_ALLOC_CONF\s*=\s*/, '');
  if (allocConf.length > MAX_ALLOC_CONF_LENGTH) return { ok: false, field: 'allocConf', message: `At most ${MAX_ALLOC_CONF_LENGTH} characters.` };
  if (allocConf !== '') {
    try {
      applyAllocConf(DEFAULT_SETTINGS, allocConf);
    } catch (e) {
      return { ok: false, field: 'allocConf', message: e instanceof AllocConfError ? `PyTorch would refuse this: ${e.message}.` : errorMessage(e) };
    }
  }
  const fractionText = form.memoryFraction.trim();
  let memoryFraction: number | null = null;
  if (fractionText !== '') {
    const value = Number(fractionText);
    if (!(value > 0 && value <= 1)) return { ok: false, field: 'memoryFraction', message: `A fraction in (0, 1] such as 0.5, not '${fractionText}'.` };
    if (capacityBytes === null) return { ok: false, field: 'memoryFraction', message: 'A memory fraction is a fraction of the GPU memory: enter that too.' };
    memoryFraction = value;
  }
  return { ok: true, question: { capacityBytes, allocConf, memoryFraction } };
}
