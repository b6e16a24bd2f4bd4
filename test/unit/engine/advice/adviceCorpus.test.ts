/**
 * The advisor on real snapshots: which rule fires on which corpus file, with numbers checked
 * against the raw pickles (test/reference/snapshot_facts.py) or the spec oracle, and where each
 * rule must stay silent.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Finding, RuleId } from '../../../../src/engine/advice/finding';
import { corpusMissing, referenceAnalysis } from '../../../helpers/corpus';
import { MIN_SAVING_SHARE } from '../../../../src/engine/advice/rules/inPlaceArithmetic';
import { lineDetail } from '../../../../src/engine/analysis/lineDetail';
import { corpusAnalysis, corpusFindings, corpusPath, rawFacts } from '../../../helpers/adviceCorpus';

function findings(name: string, rule?: RuleId): Finding[] {
  return corpusFindings(name).filter((f) => rule === undefined || f.rule === rule);
}

function base(file: string | undefined): string | undefined {
  return file?.replace(/\\/g, '/').split('/').pop();
}

interface RefLine {
  file: string;
  line: number;
  liveAtPeakBytes: number;
}
interface RefDevice {
  device: number;
  peakEventIndex: number;
  peakBytes: number;
  peakReservedBytes: number;
  lines: RefLine[];
}

function reference(name: string): RefDevice[] {
  const file = corpusPath(name);
  return (referenceAnalysis([file])[file] as { devices: RefDevice[] }).devices;
}

describe('advice on the corpus', { skip: corpusMissing }, () => {
  it('out-of-memory: constructor-sun OOM on device 1 names models.py:181, the request, device_free and the top live lines', () => {
    const raw = rawFacts('constructor-sun-expandable-oom-4dev');
    const oom = raw[1].ooms[0];
    const [f, ...rest] = findings('constructor-sun-expandable-oom-4dev', 'out-of-memory');
    assert.equal(rest.length, 0, 'one OOM in the whole snapshot');
    assert.equal(raw.flatMap((d) => d.ooms).length, 1);
    assert.equal(f.device, 1);
    assert.equal(base(f.file), 'models.py');
    assert.equal(f.line, 181);
    assert.equal(f.evidence.oomEvent, oom.index);
    assert.equal(f.evidence.requestedBytes, oom.size);
    assert.equal(f.evidence.deviceFreeBytes, oom.device_free);
    // The OOM comes right after the peak (nothing is freed by an oom entry), so what was live is the oracle's live at peak.
    const ref = reference('constructor-sun-expandable-oom-4dev')[1];
    assert.equal(ref.peakEventIndex, oom.index - 1);
    const top = [...ref.lines].sort((a, b) => b.liveAtPeakBytes - a.liveAtPeakBytes).slice(0, 3);
    assert.deepEqual(
      f.related?.slice(0, 3).map((r) => `${base(r.file)}:${r.line}`),
      top.map((l) => `${base(l.file)}:${l.line}`),
    );
  });

  it('out-of-memory: silent on a training run that did not run out', () => {
    assert.deepEqual(findings('bcrafton-cs336', 'out-of-memory'), []);
  });

  it('fragmentation: zijiandu held 48% of its reserved memory unused (requested sizes); explained with the oracle\'s numbers', () => {
    const [f] = findings('zijiandu-attention-segments-only', 'fragmentation');
    const ref = reference('zijiandu-attention-segments-only')[0];
    assert.equal(f.evidence.reservedBytes, ref.peakReservedBytes);
    assert.equal(f.evidence.allocatedBytes, ref.peakBytes);
    assert.equal(f.evidence.cachedUnusedBytes, ref.peakReservedBytes - ref.peakBytes);
    assert.equal(f.evidence.cachedUnusedPercent, 48);
    assert.match(f.message, /expandable_segments:True/);
  });

  it('fragmentation: silent where segments are expandable and the gap is small (constructor-sun), or the gap is ordinary (bcrafton)', () => {
    assert.deepEqual(findings('constructor-sun-expandable-oom-4dev', 'fragmentation'), []);
    assert.deepEqual(findings('bcrafton-cs336', 'fragmentation'), []);
  });

  it('empty-cache-in-loop: maphsge4 released and re-reserved equal-size segments in dozens of bursts', () => {
    const raw = rawFacts('maphsge4-select-n-4dev-traces')[0];
    const [f] = findings('maphsge4-select-n-4dev-traces', 'empty-cache-in-loop');
    assert.equal(f.severity, 'information', 'the releases carry no stack, so the caller is unknown');
    assert.equal(f.evidence.segmentReleaseCount, raw.segmentReleases);
    assert.equal(f.evidence.reReservedSameSizeCount, raw.reReservedSameSize);
    assert.equal(f.evidence.releaseBurstCount, raw.releaseBursts.length);
    assert.deepEqual(f.evidence.releaseBurstEvents, raw.releaseBursts.slice(0, 5));
  });

  it('empty-cache-in-loop: silent for kkaitlyn111 2.7b, whose 742 releases come from one empty_cache() call', () => {
    const raw = rawFacts('kkaitlyn111-cs336-2.7b-forward')[0];
    assert.equal(raw.emptyCacheReleases, 742);
    assert.equal(raw.releaseBursts.length, 1);
    assert.deepEqual(findings('kkaitlyn111-cs336-2.7b-forward', 'empty-cache-in-loop'), []);
  });

  it('in-place-arithmetic: silent on wedsonlin\'s weight decay `p.data = p.data - lr * weight_decay * p.data` (optimizer.py:80): the in-place form would avoid one parameter per run, under 1% of the peak', () => {
    assert.deepEqual(findings('wedsonlin-cs336-medium-512-training', 'in-place-arithmetic'), []);
    // `p.data.sub_(...)` would still make `lr * weight_decay * p.data`; it avoids the result, one
    // block of the parameter's size per run. The largest block the line made, from its own details:
    const analysis = corpusAnalysis('wedsonlin-cs336-medium-512-training');
    const device = analysis.devices[0];
    const line = device.lines.find((l) => base(l.file) === 'optimizer.py' && l.line === 80);
    assert.ok(line, 'optimizer.py:80 allocated');
    const detail = lineDetail(analysis, device, line.file, line.line);
    assert.equal(detail.allocationSizes[0], 40_960_000, 'the largest parameter, 39.1 MiB');
    assert.ok(detail.allocationSizes[0] < MIN_SAVING_SHARE * device.peakBytes, 'below the rule\'s threshold');
    assert.ok(detail.allocationSizes[0] * 4 >= MIN_SAVING_SHARE * device.peakBytes, 'the four such blocks the line makes per run would not be: counting them all as saved once made it fire');
  });

  it('in-place-arithmetic: silent on a run whose arithmetic is compiled (kkaitlyn111 2.7b) or small (jaspersolt)', () => {
    assert.deepEqual(findings('kkaitlyn111-cs336-2.7b-forward', 'in-place-arithmetic'), []);
    assert.deepEqual(findings('jaspersolt-eor-nn', 'in-place-arithmetic'), []);
  });

  it('growing-memory: silent on every corpus snapshot (none leaks; constructor-sun ends mid-forward at an OOM)', () => {
    for (const name of ['constructor-sun-expandable-oom-4dev', 'bcrafton-cs336', 'nothanmin-cs336', 'zidongliu-decomfl', 'maphsge4-select-n-4dev-traces']) {
      assert.deepEqual(findings(name, 'growing-memory'), [], name);
    }
  });

  it('inference-without-no-grad: silent on kkaitlyn111 small forward, whose benchmark.py is not in the workspace (grad mode cannot be read) and whose frees do not prove grad mode', () => {
    assert.deepEqual(findings('kkaitlyn111-cs336-small-forward-uint64-line', 'inference-without-no-grad'), []);
  });

  it('inference-without-no-grad: silent on training runs, including one that died in its first forward (constructor-sun)', () => {
    for (const name of ['bcrafton-cs336', 'magma27-cs336-user-metadata', 'constructor-sun-expandable-oom-4dev', 'zidongliu-decomfl']) {
      assert.deepEqual(findings(name, 'inference-without-no-grad'), [], name);
    }
  });

  it('activation-checkpointing: magma27 and wedsonlin (activations > half the peak) rank the layer loop first', () => {
    for (const name of ['magma27-cs336-user-metadata', 'wedsonlin-cs336-medium-512-training']) {
      const found = findings(name, 'activation-checkpointing');
      assert.ok(found.length >= 1, name);
      assert.equal(`${base(found[0].file)}:${found[0].line}`, 'model.py:253', name);
      assert.ok(Number(found[0].evidence.activationLiveAtPeakBytes) >= 0.5 * Number(found[0].evidence.peakBytes));
      const bytes = found.map((f) => Number(f.evidence.candidateBytes));
      assert.deepEqual(bytes, [...bytes].sort((a, b) => b - a), 'ranked by bytes');
    }
  });

  it('activation-checkpointing: silent where the optimizer step holds the peak (bcrafton) or nothing trains (kkaitlyn111 forward)', () => {
    assert.deepEqual(findings('bcrafton-cs336', 'activation-checkpointing'), []);
    assert.deepEqual(findings('kkaitlyn111-cs336-small-forward-uint64-line', 'activation-checkpointing'), []);
  });

  it('optimizer-state: nothanmin holds a quarter or more of the peak in optimizer state', () => {
    for (const name of ['nothanmin-cs336']) {
      const [f] = findings(name, 'optimizer-state');
      assert.ok(f, name);
      assert.ok(Number(f.evidence.optimizerStateBytes) >= 0.25 * Number(f.evidence.peakBytes), name);
    }
  });

  it('optimizer-state: bcrafton\'s and wedsonlin\'s state predates recording (no stack allocated it): before-recording speaks instead', () => {
    // Their blocks from before recording are freed inside the optimizer; a free is no allocation, and
    // the analysis attributes them to no line (one truth), so neither does the advisor.
    for (const name of ['bcrafton-cs336', 'wedsonlin-cs336-medium-512-training']) {
      assert.deepEqual(findings(name, 'optimizer-state'), [], name);
      const [f] = findings(name, 'before-recording');
      const ref = reference(name)[0] as unknown as { peakBytes: number; peakBreakdown: { kind: string; bytes: number }[] };
      assert.equal(f.evidence.beforeRecordingBytes, ref.peakBreakdown.filter((b) => b.kind === 'beforeRecording').reduce((s, b) => s + b.bytes, 0), name);
      assert.equal(f.evidence.peakBytes, ref.peakBytes, name);
    }
  });

  it('optimizer-state: silent without an optimizer (magma27) or when it is small (jaspersolt)', () => {
    assert.deepEqual(findings('magma27-cs336-user-metadata', 'optimizer-state'), []);
    assert.deepEqual(findings('jaspersolt-eor-nn', 'optimizer-state'), []);
  });

  it('mixed-precision: magma27\'s activations dominate; silent where autocast frames show (maphsge4)', () => {
    const [f] = findings('magma27-cs336-user-metadata', 'mixed-precision');
    assert.equal(f.evidence.estimatedSavingBytes, Math.round(Number(f.evidence.activationLiveAtPeakBytes) / 2));
    assert.deepEqual(findings('maphsge4-select-n-4dev-traces', 'mixed-precision'), []);
  });

  it('says nothing about snapshots that hold nothing (empty, one trace entry)', () => {
    assert.deepEqual(findings('angelolmn-hitsbe-empty'), []);
    assert.deepEqual(findings('jogregoire-diffusion-tiny'), []);
  });
});
