/**
 * The allocator replay and windows of a recording (issue 23 beside the allocator replay): the replay
 * starts from the segments PyTorch had when recording began and checks itself against every segment
 * event and address PyTorch recorded, so it needs the whole recording. A window that leaves events out
 * says so in words wherever the replay would be shown (the study, the CLI's line, the summary's
 * section through `userMessage`) and the advisor's replay-based rules stay quiet; a window that holds
 * every event is the whole recording and replays exactly as the full load does.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { allocatorOutOfWindow } from '../../../../src/engine/allocator/window';
import { userMessage } from '../../../../src/engine/base/errors';
import { SnapshotReader, snapshotFromBytes } from '../../../../src/engine/decode/load';
import { SnapshotSession } from '../../../../src/engine/session/session';
import { AllocatorStudy } from '../../../../src/engine/session/allocatorStudy';
import type { LoadWindow, Snapshot } from '../../../../src/engine/snapshot/model';
import { corpusDir, corpusMissing } from '../../../helpers/corpus';

/** A corpus file whose replay PyTorch's recorded addresses and segment events confirm (allocatorCorpus.test.ts). */
const FILE = 'hugepandacoder-octree-nca-torch23.pickle';

function load(pickle: Uint8Array, window: LoadWindow): Snapshot {
  const reader = new SnapshotReader({ expectedBytes: pickle.length, window });
  reader.feed(pickle);
  return reader.finish();
}

describe('the allocator replay on a window of the recording', { skip: corpusMissing }, () => {
  const bytes = corpusMissing ? new Uint8Array(0) : readFileSync(path.join(corpusDir, FILE));
  const full = corpusMissing ? undefined : snapshotFromBytes(bytes);

  it('a window that leaves events out: no replay, and a message that says why and what to do', () => {
    const events = full!.traces[0].length;
    const windowed = load(bytes, { axis: 'event', from: 100, to: 400 });
    assert.equal(windowed.traces[0].length, 300);
    const why = allocatorOutOfWindow(windowed, 0);
    assert.equal(
      why,
      `the caching allocator replay needs the whole recording, and this snapshot was loaded as a window of it (events 100 to 399 of ${events.toLocaleString('en-US')} on device 0): ` +
        "open the file again and load all of it to see the allocator's self-check, its view and its predictions",
    );
    const error = (() => {
      try {
        new AllocatorStudy(windowed, 0);
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    assert.ok(error instanceof Error, 'the study refuses a window');
    // Written for the user: `userMessage` passes it through as it is (the summary and the panels show it).
    assert.equal(userMessage(error), why.charAt(0).toUpperCase() + why.slice(1) + '.');
    // A window at the end leaves the start out too.
    assert.ok(allocatorOutOfWindow(load(bytes, { axis: 'event', from: events - 10 }), 0)?.includes(`events ${(events - 10).toLocaleString('en-US')} to ${(events - 1).toLocaleString('en-US')}`));
  });

  it("the advisor's findings of a window: none of the replay's, and no error", () => {
    const windowed = load(bytes, { axis: 'event', from: 100, to: 400 });
    const session = new SnapshotSession(windowed, bytes.length, {});
    const rules = session.advice().map((f) => f.rule);
    assert.ok(!rules.includes('allocator-settings') && !rules.includes('empty-cache-in-loop'), rules.join(', '));
    assert.throws(() => session.allocator(0), /needs the whole recording/);
  });

  it('a window that holds every event replays exactly as the whole file', () => {
    const all = load(bytes, { axis: 'event', from: 0 });
    assert.equal(all.traces[0].length, full!.traces[0].length);
    assert.equal(allocatorOutOfWindow(all, 0), undefined);
    assert.equal(allocatorOutOfWindow(full!, 0), undefined);
    const check = new AllocatorStudy(all, 0).check();
    assert.deepEqual(check, new AllocatorStudy(full!, 0).check());
    // The replay that this test compares is the one PyTorch confirms: every allocation at its address.
    assert.equal(check.check.atRecordedAddress, check.check.allocations);
    assert.ok(check.check.allocations > 1000);
  });
});
