/**
 * Each advice rule on a tiny hand-built trace that shows its pattern (the expected numbers are
 * known by construction), and on a near miss where it must stay silent.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Analysis } from '../../../../src/engine/analysis/analyze';
import { advise } from '../../../../src/engine/advice/advise';
import type { Finding } from '../../../../src/engine/advice/finding';
import type { AdviceRule } from '../../../../src/engine/advice/rule';
import { activationCheckpointing } from '../../../../src/engine/advice/rules/activationCheckpointing';
import { emptyCacheInLoop } from '../../../../src/engine/advice/rules/emptyCacheInLoop';
import { fragmentation } from '../../../../src/engine/advice/rules/fragmentation';
import { growingMemory } from '../../../../src/engine/advice/rules/growingMemory';
import { inferenceWithoutNoGrad } from '../../../../src/engine/advice/rules/inferenceWithoutNoGrad';
import { inPlaceArithmetic } from '../../../../src/engine/advice/rules/inPlaceArithmetic';
import { mixedPrecision } from '../../../../src/engine/advice/rules/mixedPrecision';
import { optimizerState } from '../../../../src/engine/advice/rules/optimizerState';
import { outOfMemory } from '../../../../src/engine/advice/rules/outOfMemory';
import type { LineTextProvider } from '../../../../src/engine/paths/sourceText';
import type { TestFrame } from '../../../helpers/traceBuilder';
import { CALL_IMPL, GiB, KiB, MiB, TraceBuilder, native, torch, user, userPath } from '../../../helpers/traceBuilder';

function run(rule: AdviceRule, analysis: Analysis, lineText?: LineTextProvider): Finding[] {
  return advise(analysis, { rules: [rule], lineText });
}

function source(files: Record<string, string[]>): LineTextProvider {
  return (file, line) => files[file]?.[line - 1];
}

function segment(blocks: { address: number; size: number; state: string }[]) {
  const total = blocks.reduce((s, b) => s + b.size, 0);
  return {
    device: 0,
    address: blocks[0].address,
    total_size: total,
    allocated_size: 0,
    active_size: 0,
    requested_size: 0,
    stream: 0,
    segment_type: 'large',
    segment_pool_id: [0, 0],
    is_expandable: false,
    frames: [],
    blocks: blocks.map((b) => ({ ...b, requested_size: b.size, frames: [] })),
  };
}

const BACKWARD: TestFrame[] = [
  native('torch::autograd::Engine::evaluate_function(std::shared_ptr<torch::autograd::GraphTask>&, torch::autograd::Node*)'),
  torch('autograd/graph.py', 825, '_engine_run_backward'),
  torch('_tensor.py', 626, 'backward'),
];

describe('rule: out-of-memory', () => {
  it('names the failing line, the request, what was live and the free device memory', () => {
    const b = new TraceBuilder();
    b.segmentAlloc(2 * GiB);
    const w = b.alloc(1 * GiB, [native('at::empty'), user('train.py', 5)]);
    const act = b.alloc(512 * MiB, [user('train.py', 6)]);
    b.oom(1 * GiB, 256 * MiB, [native('at::mm'), user('train.py', 7)]);
    const a = b.analysis([
      segment([
        { address: w, size: 1 * GiB, state: 'active_allocated' },
        { address: act, size: 512 * MiB, state: 'active_allocated' },
        { address: act + 512 * MiB, size: 512 * MiB, state: 'inactive' },
      ]),
    ]);
    const [f, ...rest] = run(outOfMemory, a);
    assert.equal(rest.length, 0);
    assert.equal(f.severity, 'error', 'the run failed');
    assert.equal(f.file, userPath('train.py'));
    assert.equal(f.line, 7);
    assert.deepEqual(f.evidence, {
      oomEvent: 3,
      requestedBytes: 1 * GiB,
      allocatedBytes: 1.5 * GiB,
      reservedBytes: 2 * GiB,
      cachedUnusedBytes: 512 * MiB,
      deviceFreeBytes: 256 * MiB,
      // 1 GiB asked, 512 MiB cached and 256 MiB free on the device: 256 MiB short.
      shortfallBytes: 256 * MiB,
      liveAtOomTopLineBytes: [1 * GiB, 512 * MiB],
    });
    assert.deepEqual(
      f.related?.map((r) => [r.line, r.message]),
      [
        [5, '1.0 GiB live at the OOM (1 block)'],
        [6, '512.0 MiB live at the OOM (1 block)'],
      ],
    );
    assert.match(f.message, /train\.py:7 asked for 1\.0 GiB while 1\.5 GiB was allocated and 2\.0 GiB reserved/);
    assert.match(f.message, /256\.0 MiB free/);
    assert.doesNotMatch(f.message, /fragmentation/);
  });

  it('stays silent when nothing ran out of memory', () => {
    const b = new TraceBuilder();
    b.free(b.alloc(1 * GiB, [user('train.py', 5)]));
    assert.deepEqual(run(outOfMemory, b.analysis([])), []);
  });
});

describe('rule: fragmentation', () => {
  function fragmented() {
    const b = new TraceBuilder();
    b.segmentAlloc(4 * GiB);
    const x = b.alloc(1 * GiB, [user('train.py', 5)]);
    const y = b.alloc(1 * GiB, [user('train.py', 6)]);
    const z = b.alloc(1 * GiB, [user('train.py', 7)]);
    b.free(x, [user('train.py', 8)]);
    b.free(z, [user('train.py', 8)]);
    b.oom(1.5 * GiB, 100 * MiB, [user('train.py', 9)]);
    return b.analysis([
      segment([
        { address: x, size: 768 * MiB, state: 'inactive' },
        { address: y, size: 1 * GiB, state: 'active_allocated' },
        { address: z, size: 768 * MiB, state: 'inactive' },
        { address: z + GiB, size: 768 * MiB, state: 'inactive' },
        { address: z + 2 * GiB, size: 768 * MiB, state: 'inactive' },
      ]),
    ]);
  }

  it('explains an OOM that the cache could have served had it been in one piece', () => {
    const a = fragmented();
    const [f] = run(fragmentation, a);
    assert.equal(f.severity, 'warning');
    assert.equal(f.evidence.cachedUnusedBytes, 3 * GiB);
    assert.equal(f.evidence.requestedBytes, 1.5 * GiB);
    assert.equal(f.evidence.largestFreeBlockBytes, 768 * MiB);
    assert.equal(f.evidence.freeBlockCount, 4);
    assert.match(f.message, /expandable_segments:True/);
    // The OOM finding points at it too.
    assert.match(run(outOfMemory, a)[0].message, /fragmentation may have caused this/);
  });

  it('stays silent when reserved is close to allocated', () => {
    const b = new TraceBuilder();
    b.segmentAlloc(1 * GiB);
    const x = b.alloc(900 * MiB, [user('train.py', 5)]);
    assert.deepEqual(
      run(fragmentation, b.analysis([segment([{ address: x, size: 900 * MiB, state: 'active_allocated' }, { address: x + GiB, size: 124 * MiB, state: 'inactive' }])])),
      [],
    );
  });
});

describe('rule: empty-cache-in-loop', () => {
  const EMPTY_CACHE = (line: number): TestFrame[] => [native('c10::cuda::CUDACachingAllocator::emptyCache()'), torch('cuda/memory.py', 218, 'empty_cache'), user('train.py', line)];

  function loop(iterations: number, emptyCacheEveryIteration: boolean) {
    const b = new TraceBuilder();
    for (let i = 0; i < iterations; i++) {
      b.segmentAlloc(64 * MiB);
      b.free(b.alloc(64 * MiB, [user('train.py', 10)]), [user('train.py', 11)]);
      if (emptyCacheEveryIteration || i === iterations - 1) b.segmentFree(64 * MiB, EMPTY_CACHE(12));
    }
    return b;
  }

  it('shows the sawtooth of releases and equal-size re-reservations, at the line that calls it', () => {
    const [f, ...rest] = run(emptyCacheInLoop, loop(3, true).analysis([]));
    assert.equal(rest.length, 0);
    assert.equal(f.severity, 'warning');
    assert.equal(f.file, userPath('train.py'));
    assert.equal(f.line, 12);
    assert.deepEqual(f.evidence, {
      segmentReleaseCount: 3,
      segmentReleasedBytes: 192 * MiB,
      reReservedSameSizeCount: 2,
      reReservedBytes: 128 * MiB,
      releaseBurstCount: 3,
      releaseBurstEvents: [4, 9, 14],
      releasesByEmptyCacheCount: 3,
    });
    assert.match(f.message, /empty_cache\(\) at train\.py:12 appears to run in a loop/);
  });

  it('stays silent for a single empty_cache() after the loop', () => {
    const b = new TraceBuilder();
    for (let i = 0; i < 3; i++) b.free(b.alloc(64 * MiB, [user('train.py', 10)]));
    b.segmentFree(64 * MiB, EMPTY_CACHE(20));
    b.segmentAlloc(64 * MiB);
    assert.deepEqual(run(emptyCacheInLoop, b.analysis([])), []);
  });
});

describe('rule: in-place-arithmetic', () => {
  /** p = p - lr * g: two temporaries the size of p and g, then the result, freed by the next line. */
  function optimizerStep(size: number, inner: TestFrame[] = [native('at::mul')]) {
    const b = new TraceBuilder();
    b.alloc(size, [user('opt.py', 3)]);
    b.alloc(size, [user('opt.py', 4)]);
    for (let step = 0; step < 2; step++) {
      const at = [...inner, user('opt.py', 10, 'step')];
      const t1 = b.alloc(size, at);
      const t2 = b.alloc(size, at);
      b.free(t1, [user('opt.py', 10, 'step')]);
      const result = b.alloc(size, at);
      b.free(t2, [user('opt.py', 10, 'step')]);
      b.free(result, [user('opt.py', 11, 'step')]);
    }
    return b.analysis();
  }

  const OPT = (statement: string) => source({ [userPath('opt.py')]: [...new Array<string>(9).fill(''), `        ${statement}`] });

  it('counts what the line made, avoids only the result of `p - lr * g`, and replays the trace for the peak', () => {
    const [f, ...rest] = run(inPlaceArithmetic, optimizerStep(64 * MiB), OPT('p = p - lr * g'));
    assert.equal(rest.length, 0);
    assert.equal(f.line, 10);
    // Per step, three operand-sized blocks, all freed by line 11: made by the line, but `p.sub_(lr * g)`
    // would still make the first two; it avoids the result (the last one made).
    assert.equal(f.evidence.temporaryCount, 6);
    assert.equal(f.evidence.replacedCount, 0);
    assert.equal(f.evidence.avoidableCount, 2);
    assert.equal(f.evidence.savedInOneExecutionBytes, 64 * MiB);
    // The peak (256 MiB) is first reached when the second block is made, before the result: the
    // line holds 128 MiB there (its table's figure), yet without the result the peak stays.
    assert.equal(f.evidence.peakBytes, 256 * MiB);
    assert.equal(f.evidence.lineLiveAtPeakBytes, 128 * MiB);
    assert.equal(f.evidence.peakSavingBytes, 0);
    assert.equal(f.severity, 'information', 'the peak would not drop');
    assert.match(f.message, /`p = p - lr \* g`/);
    // Old p is never freed (something else holds it), and the statement is not in a function.
    assert.equal(f.quickFixes, undefined);
    assert.match(f.message, /No quick fix is offered: `p` is a module-level \(global\) name/);
  });

  /** `x = x / s` three times: each execution makes the new x while the old one is live, then frees the old one. */
  function rebinding(size: number) {
    const b = new TraceBuilder();
    let x = b.alloc(size, [user('attn.py', 5, 'forward')]);
    for (let k = 0; k < 3; k++) {
      const next = b.alloc(size, [native('at::div'), user('attn.py', 10, 'forward')]);
      b.free(x, [user('attn.py', 10, 'forward')]);
      x = next;
      b.free(b.alloc(1 * MiB, [user('attn.py', 11, 'forward')]), [user('attn.py', 11, 'forward')]);
    }
    return b.analysis();
  }
  /** attn.py: the first x is `q @ k` on line 5, the statement on line 10. */
  const ATTN = (statement: string) =>
    source({ [userPath('attn.py')]: ['import math', 'import torch', '', 'def forward(q, k, d, w):', '    attention_scores = q @ k', '', '', '', '', `    ${statement}`, '    return attention_scores'] });

  it('finds `x = x / s`: one new block per execution replacing the old one of the same size', () => {
    const [f, ...rest] = run(inPlaceArithmetic, rebinding(64 * MiB), ATTN('attention_scores = attention_scores / math.sqrt(d)'));
    assert.equal(rest.length, 0);
    assert.equal(f.line, 10);
    assert.equal(f.evidence.replacedCount, 3);
    assert.equal(f.evidence.temporaryCount, 0);
    assert.equal(f.evidence.avoidableCount, 3);
    assert.equal(f.evidence.savedInOneExecutionBytes, 64 * MiB);
    // The peak (128 MiB) is each new block next to the old one; in place, never more than 65 MiB.
    assert.equal(f.evidence.peakBytes, 128 * MiB);
    assert.equal(f.evidence.peakAfterBytes, 65 * MiB);
    assert.equal(f.evidence.peakSavingBytes, 63 * MiB);
    assert.equal(f.severity, 'warning');
    assert.deepEqual(f.quickFixes?.map((q) => q.newText), ['attention_scores.div_(math.sqrt(d))']);
  });

  it('stays silent on a matrix product with the same memory pattern, and without the source', () => {
    assert.deepEqual(run(inPlaceArithmetic, rebinding(64 * MiB), ATTN('attention_scores = torch.matmul(attention_scores, w)')), []);
    assert.deepEqual(run(inPlaceArithmetic, rebinding(64 * MiB), ATTN('attention_scores = attention_scores @ w')), []);
    assert.deepEqual(run(inPlaceArithmetic, optimizerStep(64 * MiB), OPT('q = torch.matmul(p, g)')), []);
    assert.deepEqual(run(inPlaceArithmetic, optimizerStep(64 * MiB)), []);
  });

  it('stays silent for small tensors', () => {
    assert.deepEqual(run(inPlaceArithmetic, optimizerStep(256 * KiB), OPT('p = p - lr * g')), []);
  });

  it('stays silent when library Python code, not the line, made the blocks', () => {
    assert.deepEqual(run(inPlaceArithmetic, optimizerStep(64 * MiB, [native('at::gelu'), torch('nn/functional.py', 1700, 'gelu')]), OPT('p = p - lr * g')), []);
  });

  it('stays silent for results that outlive the next line', () => {
    const b = new TraceBuilder();
    b.alloc(64 * MiB, [user('m.py', 3)]);
    const kept = [b.alloc(64 * MiB, [user('m.py', 10)]), b.alloc(64 * MiB, [user('m.py', 10)])];
    b.free(b.alloc(1 * MiB, [user('m.py', 11)]));
    b.free(b.alloc(1 * MiB, [user('m.py', 12)]));
    for (const k of kept) b.free(k, [user('m.py', 13)]);
    assert.deepEqual(run(inPlaceArithmetic, b.analysis(), source({ [userPath('m.py')]: [...new Array<string>(9).fill(''), 'x = x * y'] })), []);
  });
});

describe('rule: growing-memory', () => {
  const forward = (line: number): TestFrame[] => [native('at::addmm'), user('model.py', line, 'forward'), CALL_IMPL];

  /** An evaluation loop; `leak` keeps each iteration's activation alive (the graph held by `total`). */
  function evalLoop(leak: boolean, iterations = 5) {
    const b = new TraceBuilder();
    b.alloc(16 * MiB, [user('model.py', 5, '__init__'), CALL_IMPL, user('eval.py', 3)]);
    for (let i = 0; i < iterations; i++) {
      const x = b.alloc(1 * MiB, [user('eval.py', 10)]);
      const act = b.alloc(4 * MiB, [...forward(20), user('eval.py', 11)]);
      b.free(b.alloc(8 * MiB, [...forward(21), user('eval.py', 11)]), [user('eval.py', 11)]);
      b.free(b.alloc(512, [native('at::mse_loss'), user('eval.py', 12)]), [user('eval.py', 12)]);
      b.free(x, [user('eval.py', 10)]);
      if (!leak) b.free(act, [user('eval.py', 10)]);
    }
    return b.analysis();
  }
  const evalSource = source({
    [userPath('eval.py')]: ['', '', 'model = Model().cuda()', '', '', '', '', '', 'for x, y in loader:', '    x = x.cuda()', '    out = model(x)', '    total += criterion(out, y)'],
  });

  it('points at the line whose memory grows each iteration, with a fix for the accumulation below the loop line', () => {
    const [f, ...rest] = run(growingMemory, evalLoop(true), evalSource);
    assert.equal(rest.length, 0);
    assert.equal(f.severity, 'warning');
    assert.equal(f.file, userPath('model.py'));
    assert.equal(f.line, 20);
    assert.deepEqual(f.evidence, {
      neverFreedCount: 5,
      neverFreedBytes: 20 * MiB,
      iterationCount: 5,
      bytesPerIteration: 4 * MiB,
      firstEvent: 2,
      lastEvent: 42,
    });
    assert.deepEqual(
      f.related?.map((r) => [r.file, r.line]),
      [[userPath('eval.py'), 11]],
    );
    assert.deepEqual(
      f.quickFixes?.map((q) => [q.line, q.newText]),
      [
        [12, 'criterion(out, y).item()'],
        [12, 'criterion(out, y).detach()'],
      ],
    );
  });

  it('stays silent when each iteration frees what it made', () => {
    assert.deepEqual(run(growingMemory, evalLoop(false)), []);
  });

  it('stays silent for one forward pass whose layers are all still live when the trace ends', () => {
    const b = new TraceBuilder();
    for (let layer = 0; layer < 6; layer++) {
      b.alloc(4 * MiB, [...forward(20), user('model.py', 40, 'forward'), CALL_IMPL, user('eval.py', 11)]);
      b.free(b.alloc(8 * MiB, [...forward(21), user('model.py', 40, 'forward'), CALL_IMPL, user('eval.py', 11)]));
    }
    assert.deepEqual(run(growingMemory, b.analysis()), []);
  });

  it('in training, counts iterations between backward passes and fixes `losses.append(loss)`', () => {
    const train = (keepLoss: boolean) => {
      const b = new TraceBuilder();
      for (let i = 0; i < 4; i++) {
        const act = b.alloc(4 * MiB, [...forward(20), user('train.py', 11)]);
        const loss = b.alloc(512, [native('at::nll_loss'), user('train.py', 12)]);
        const grad = b.alloc(4 * MiB, [...BACKWARD, user('train.py', 13)]);
        b.free(act, [...BACKWARD, user('train.py', 13)]);
        b.free(grad, [user('train.py', 14)]);
        if (!keepLoss) b.free(loss, [user('train.py', 12)]);
      }
      return b.analysis();
    };
    const text = source({ [userPath('train.py')]: ['', '', '', '', '', '', '', '', '', '', '    out = model(x)', '    losses.append(criterion(out, y))'] });
    const [f, ...rest] = run(growingMemory, train(true), text);
    assert.equal(rest.length, 0);
    assert.equal(f.line, 12);
    assert.equal(f.evidence.iterationCount, 4);
    assert.equal(f.quickFixes?.[0].newText, 'criterion(out, y).item()');
    assert.deepEqual(run(growingMemory, train(false), text), []);
  });
});

describe('rule: inference-without-no-grad', () => {
  const RELEASE: TestFrame[] = [
    native('c10::TensorImpl::~TensorImpl()'),
    native('torch::autograd::SavedVariable::reset_data()'),
    native('torch::autograd::generated::MulBackward0::release_variables()'),
    native('torch::autograd::deleteNode(torch::autograd::Node*)'),
  ];
  /** Two requests through a 4-layer model; `kept` activations of every layer stay live until the output is dropped. */
  function inference(options: { kept: boolean; releaseFrames?: boolean; decorated?: boolean }) {
    const b = new TraceBuilder();
    b.alloc(64 * MiB, [user('model.py', 5, '__init__'), user('infer.py', 3)]);
    const call = options.decorated ? [torch('utils/_contextlib.py', 115, 'decorate_context'), user('infer.py', 10, 'predict')] : [user('infer.py', 10)];
    const layer = [native('at::mm'), user('model.py', 20, 'forward'), CALL_IMPL, user('model.py', 40, 'forward'), CALL_IMPL, ...call];
    for (let request = 0; request < 2; request++) {
      const acts: number[] = [];
      for (let l = 0; l < 4; l++) {
        acts.push(b.alloc(32 * MiB, layer));
        if (!options.kept && acts.length > 1) b.free(acts.shift()!, [user('model.py', 40, 'forward')]);
      }
      const out = b.alloc(1 * MiB, [native('at::mm'), user('model.py', 42, 'forward'), CALL_IMPL, ...call]);
      for (const a of acts) b.free(a, options.releaseFrames ? [...RELEASE, user('infer.py', 11)] : [user('infer.py', 11)]);
      b.free(out, [user('infer.py', 11)]);
    }
    return b.analysis();
  }

  /** infer.py: line 10 calls the model; `header` goes at its top (line 2), `around` is the line 9 before the call. */
  const INFER = (header = '', around = '') =>
    source({ [userPath('infer.py')]: ['import torch', header, '', '', '', '', '', '', around, `${around === '' ? '' : '    '}out = model(batch)`, 'del out'] });

  it('suggests inference_mode where a forward-only run keeps every layer\'s activations, with the fix', () => {
    const [f, ...rest] = run(inferenceWithoutNoGrad, inference({ kept: true }), INFER());
    assert.match(f.message, /The source shows no torch\.no_grad\(\)/);
    assert.deepEqual(f.quickFixes?.map((q) => [q.line, q.endLine, q.newText]), [[10, 10, 'with torch.inference_mode():\n    out = model(batch)']]);
    assert.equal(rest.length, 0);
    assert.equal(f.severity, 'information');
    assert.equal(f.file, userPath('infer.py'));
    assert.equal(f.line, 10);
    assert.equal(f.evidence.activationLiveAtPeakBytes, 129 * MiB);
    assert.equal(f.evidence.linesWithSeveralCallsLiveCount, 1);
    assert.match(f.message, /torch\.inference_mode\(\)/);
  });

  it('warns when frees show autograd graph nodes releasing saved tensors (grad mode was on)', () => {
    const [f] = run(inferenceWithoutNoGrad, inference({ kept: true, releaseFrames: true }));
    assert.equal(f.fix, undefined, 'no source: the frees alone are the evidence, and there is no fix to offer');
    assert.equal(f.severity, 'warning');
    assert.equal(f.evidence.graphReleaseFreeCount, 8, 'four activations freed by graph release in each of two requests');
  });

  it('stays silent when activations are freed layer by layer (no_grad behaviour)', () => {
    assert.deepEqual(run(inferenceWithoutNoGrad, inference({ kept: false }), INFER()), []);
  });

  it('stays silent without the source of the model call (and no frees proving grad mode was on)', () => {
    assert.deepEqual(run(inferenceWithoutNoGrad, inference({ kept: true })), []);
  });

  it('stays silent when the script turns gradients off: set_grad_enabled(False) at its top, or a with block', () => {
    assert.deepEqual(run(inferenceWithoutNoGrad, inference({ kept: true }), INFER('torch.set_grad_enabled(False)')), []);
    assert.deepEqual(run(inferenceWithoutNoGrad, inference({ kept: true }), INFER('', 'with torch.no_grad():')), []);
    assert.deepEqual(run(mixedPrecision, inference({ kept: true }), INFER('torch.set_grad_enabled(False)')), [], 'nor calls that memory activations');
    assert.equal(run(inferenceWithoutNoGrad, inference({ kept: true }), INFER('torch.set_grad_enabled(True)')).length, 1);
  });

  it('stays silent under a no_grad/inference_mode decorator', () => {
    assert.deepEqual(run(inferenceWithoutNoGrad, inference({ kept: true, decorated: true })), []);
  });
});

describe('rule: activation-checkpointing', () => {
  /** Training: four blocks, each with an attention submodule; activations freed by backward. */
  function training(withBackward: boolean) {
    const b = new TraceBuilder();
    b.alloc(64 * MiB, [user('model.py', 5, '__init__'), user('train.py', 3)]);
    const block = [user('model.py', 60, 'forward'), CALL_IMPL, user('train.py', 10)];
    const acts: number[] = [];
    for (let l = 0; l < 4; l++) {
      acts.push(b.alloc(64 * MiB, [native('at::bmm'), user('model.py', 15, 'forward'), CALL_IMPL, user('model.py', 30, 'forward'), CALL_IMPL, ...block]));
      acts.push(b.alloc(32 * MiB, [native('at::mm'), user('model.py', 31, 'forward'), CALL_IMPL, ...block]));
    }
    for (const a of acts) b.free(a, withBackward ? [...BACKWARD, user('train.py', 11)] : [user('train.py', 11)]);
    return b.analysis();
  }

  it('ranks module calls by the activation bytes made inside them and live at the peak', () => {
    const findings = run(activationCheckpointing, training(true));
    assert.equal(findings.length, 1, 'nested candidates are one finding');
    const [f] = findings;
    assert.equal(f.line, 60);
    assert.equal(f.evidence.candidateBytes, 384 * MiB);
    assert.deepEqual(f.evidence.nestedCandidateBytes, [256 * MiB], 'model.py:30 runs inside model.py:60');
    assert.deepEqual(f.evidence.separateCandidateBytes, []);
    assert.equal(f.evidence.activationLiveAtPeakBytes, 384 * MiB);
    assert.match(f.message, /384\.0 MiB \(8 blocks\) under the module call at model\.py:60; inside model\.py:60, 256\.0 MiB \(4 blocks\) under the module call at model\.py:30 \(nested calls: the figures contain one another and do not add up\)/);
    assert.match(f.message, /recomput/);
  });

  it('stays silent for a run without backward', () => {
    assert.deepEqual(run(activationCheckpointing, training(false)), []);
  });
});

describe('rule: optimizer-state', () => {
  const ADAM = (line: number): TestFrame[] => [
    native('at::zeros_like'),
    torch('optim/adam.py', line, '_init_group'),
    torch('optim/adam.py', 220, 'step'),
    torch('optim/optimizer.py', 485, 'wrapper'),
    user('train.py', 20),
  ];

  function steps(stateful: boolean) {
    const b = new TraceBuilder();
    for (let p = 0; p < 4; p++) b.alloc(64 * MiB, [user('model.py', 5, '__init__'), user('train.py', 3)]);
    for (let step = 0; step < 2; step++) {
      b.free(b.alloc(32 * MiB, [user('train.py', 12)]), [user('train.py', 13)]);
      if (stateful && step === 0) for (let p = 0; p < 8; p++) b.alloc(64 * MiB, ADAM(100));
      for (let p = 0; p < 4; p++) b.free(b.alloc(64 * MiB, ADAM(300)));
    }
    return b.analysis();
  }

  it('measures state that outlives the step, not the step\'s temporaries', () => {
    const [f, ...rest] = run(optimizerState, steps(true));
    assert.equal(rest.length, 0);
    assert.equal(f.file, userPath('train.py'));
    assert.equal(f.line, 20);
    assert.equal(f.evidence.optimizerStateBytes, 512 * MiB);
    assert.equal(f.evidence.optimizerStateBlockCount, 8);
    assert.match(f.message, /8-bit optimizer/);
  });

  it('stays silent for an optimizer without state (plain SGD)', () => {
    assert.deepEqual(run(optimizerState, steps(false)), []);
  });
});

describe('rule: mixed-precision', () => {
  function forwardOnly(autocast: boolean, activation: number) {
    const b = new TraceBuilder();
    b.alloc(64 * MiB, [user('model.py', 5, '__init__'), user('run.py', 3)]);
    const amp = autocast ? [torch('amp/autocast_mode.py', 44, 'decorate_autocast')] : [];
    const acts = [0, 1, 2].map(() => b.alloc(activation, [native('at::mm'), user('model.py', 20, 'forward'), CALL_IMPL, ...amp, user('run.py', 10)]));
    for (const a of acts) b.free(a, [user('run.py', 11)]);
    return b.analysis();
  }

  it('estimates the halving when activations dominate and autocast is not seen', () => {
    const [f] = run(mixedPrecision, forwardOnly(false, 128 * MiB));
    assert.equal(f.evidence.activationLiveAtPeakBytes, 384 * MiB);
    assert.equal(f.evidence.estimatedSavingBytes, 192 * MiB);
    assert.equal(f.line, 10);
  });

  it('stays silent when autocast frames are present, or activations are small', () => {
    assert.deepEqual(run(mixedPrecision, forwardOnly(true, 128 * MiB)), []);
    assert.deepEqual(run(mixedPrecision, forwardOnly(false, 16 * MiB)), []);
  });
});
