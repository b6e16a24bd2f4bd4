/** The self-check's verdict in the words every page uses (webview/shared/selfCheckText.ts). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SelfCheckDetails } from '../../../../src/engine/allocator/selfCheck';
import { selfCheckLines, settingsText } from '../../../../webview/shared/selfCheckText';

function details(patch: Partial<SelfCheckDetails> = {}, check: Partial<SelfCheckDetails['check']> = {}): SelfCheckDetails {
  return {
    device: 0,
    check: { allocations: 7591, atRecordedAddress: 7591, segmentEvents: 1, segmentEventsReproduced: 1, firstDeparture: null, ...check },
    settings: '',
    settingsRecorded: true,
    recordedOoms: 0,
    oomsReproduced: 0,
    emptyCacheCalls: 0,
    emptyCacheEvents: [],
    finalBlocks: 1041,
    finalBlocksMatching: 1041,
    inferredBlockSizes: 0,
    departures: 0,
    capacityBytes: null,
    capacitySource: null,
    peakReservedBytes: 0,
    reservedFreeAtPeakBytes: 0,
    cudaMallocs: 1,
    cudaFrees: 0,
    clean: true,
    ...patch,
  };
}

describe('the self-check in words', () => {
  it('a replay that never departs', () => {
    assert.deepEqual(selfCheckLines(details()), {
      ok: true,
      lines: [
        "The trace replayed with the recorded settings (PyTorch's defaults): 7,591 of 7,591 allocations at the address PyTorch recorded, 1 of 1 segment events reproduced, 1,041 of 1,041 blocks of the final state.",
        'The replay never departs from the recording: what it shows and predicts follows the rules that reproduce this very run.',
      ],
    });
  });

  it('where it departs, and why; OOMs and assumed settings named', () => {
    const v = selfCheckLines(
      details(
        { settings: 'expandable_segments:True', settingsRecorded: false, recordedOoms: 2, oomsReproduced: 1, finalBlocks: 0 },
        { atRecordedAddress: 7000, firstDeparture: { event: 1234, action: 'alloc', kind: 'address', reason: 'the replay put it at 0x10' } },
      ),
    );
    assert.equal(v.ok, false);
    assert.equal(v.lines[0], 'The trace replayed with the recorded settings (expandable_segments:True (assumed: this snapshot does not record its settings)): 7,000 of 7,591 allocations at the address PyTorch recorded, 1 of 1 segment events reproduced, 1 of 2 OOMs.');
    assert.equal(v.lines[1], 'It first departs at event 1,234 (alloc): the replay put it at 0x10. Figures past that point may differ from what PyTorch did.');
    assert.match(selfCheckLines(details({}, { firstDeparture: { event: -1, action: 'segments', kind: 'layout', reason: 'r' } })).lines[1], /^It first departs before the first event: r\./);
    assert.match(selfCheckLines(details({}, { firstDeparture: { event: 99, action: 'end', kind: 'finalState', reason: 'r' } })).lines[1], /^It first departs at the end: r\./);
  });

  it('a trace without allocations is not a pass', () => {
    const v = selfCheckLines(details({}, { allocations: 0, atRecordedAddress: 0 }));
    assert.equal(v.ok, false);
    assert.match(v.lines[1], /no allocation to check the replay against/);
    assert.equal(settingsText(''), "PyTorch's defaults");
  });
});
