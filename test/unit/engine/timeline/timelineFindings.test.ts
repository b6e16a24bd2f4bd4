import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Evidence, Finding } from '../../../../src/engine/advice/finding';
import { eventAxis, timeAxis } from '../../../../src/engine/timeline/axis';
import { RULES } from '../../../../src/engine/advice/advise';
import type { AdviceRule } from '../../../../src/engine/advice/rule';
import { findingEventRanges, findingMarkers } from '../../../../src/engine/timeline/findingMarkers';

function finding(evidence: Evidence, rule: Finding['rule'] = 'out-of-memory'): Finding {
  return { rule, severity: 'warning', device: 0, title: `t ${rule}`, message: `m ${rule}`, evidence };
}

describe('advisor findings on the timeline', () => {
  it('reads ranges, single events and event lists from the evidence, and nothing else', () => {
    assert.deepEqual(findingEventRanges(finding({ firstEvent: 3, lastEvent: 9, peakBytes: 100 })), [[3, 9]]);
    assert.deepEqual(findingEventRanges(finding({ oomEvent: 7, requestedBytes: 512 })), [[7, 7]]);
    // A burst list; a repeated index counts once.
    assert.deepEqual(findingEventRanges(finding({ releaseBurstEvents: [2, 5, 5, 11], releaseBurstCount: 3 })), [[2, 2], [5, 5], [11, 11]]);
    // firstEvent without lastEvent is a point.
    assert.deepEqual(findingEventRanges(finding({ firstEvent: 4, allocCount: 9 })), [[4, 4]]);
    assert.deepEqual(findingEventRanges(finding({ peakBytes: 100, allocCount: 2, reservedPercent: 30 })), []);
    // Not an index: negative or fractional values.
    assert.deepEqual(findingEventRanges(finding({ peakEvent: -1, otherEvent: 2.5 })), []);
  });

  it('places a point where the state after its event begins, a range up to the end of its last event', () => {
    // 10 events: 11 states, state s spans [s, s + 1) on the event axis.
    const axis = eventAxis(11);
    const [oom, range] = findingMarkers([finding({ oomEvent: 7 }), finding({ firstEvent: 2, lastEvent: 4 }, 'growing-memory')], axis);
    assert.deepEqual({ x0: oom.x0, x1: oom.x1, first: oom.firstEvent, last: oom.lastEvent }, { x0: 8, x1: 8, first: 7, last: 7 });
    assert.equal(oom.message, 'm out-of-memory');
    assert.deepEqual({ x0: range.x0, x1: range.x1, rule: range.rule }, { x0: 3, x1: 6, rule: 'growing-memory' });
  });

  it('uses wall time on the time axis and leaves out events past the trace', () => {
    // Events at 100, 200, 400 µs: state s >= 1 begins at the time of event s - 1.
    const axis = timeAxis(new Float64Array([100, 200, 400]));
    const markers = findingMarkers([finding({ releaseBurstEvents: [1, 3] }, 'empty-cache-in-loop')], axis);
    assert.equal(markers.length, 1, 'event 3 does not exist in a 3-event trace');
    assert.equal(markers[0].x0, 200);
  });

  it('labels each marker with its rule\'s own label, for every rule of the advisor', () => {
    const axis = eventAxis(11);
    // Written out by hand: what the timeline's markers said before the labels moved into the rules.
    const expected: Record<Finding['rule'], string> = {
      'out-of-memory': 'OOM post-mortem',
      'empty-cache-in-loop': 'empty_cache',
      'growing-memory': 'growing memory',
      'in-place-arithmetic': 'in-place op',
      'inference-without-no-grad': 'no_grad?',
      'activation-checkpointing': 'checkpointing?',
      'optimizer-state': 'optimizer state',
      'mixed-precision': 'mixed precision?',
      fragmentation: 'fragmentation',
      'allocator-settings': 'allocator settings',
      'before-recording': 'before recording',
    };
    assert.deepEqual(RULES.map((r) => r.id).sort(), Object.keys(expected).sort(), 'every rule is listed here once');
    for (const rule of RULES) {
      const [marker] = findingMarkers([finding({ oomEvent: 2 }, rule.id)], axis);
      assert.equal(marker.label, expected[rule.id], rule.id);
    }
    assert.equal(new Set(RULES.map((r) => r.label)).size, RULES.length, 'no two rules share a label');
  });

  it('takes a new rule\'s label from the rule itself, with no list to edit', () => {
    const axis = eventAxis(11);
    // A planted rule (reusing an id, since RuleId is a closed union): its label, not the advisor's, names its marker.
    const planted: AdviceRule = { id: 'growing-memory', label: 'planted label', run: () => [] };
    const [marker] = findingMarkers([finding({ firstEvent: 1, lastEvent: 3 }, 'growing-memory')], axis, [...RULES.filter((r) => r.id !== planted.id), planted]);
    assert.equal(marker.label, 'planted label');
    // A finding of a rule the list does not have is named by its id.
    assert.equal(findingMarkers([finding({ oomEvent: 2 }, 'fragmentation')], axis, [planted])[0].label, 'fragmentation');
  });
});
