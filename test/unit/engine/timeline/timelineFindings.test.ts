import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Evidence, Finding } from '../../../../src/engine/advice/finding';
import { eventAxis, timeAxis } from '../../../../src/engine/timeline/axis';
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
});
