/** The pinned block's "N more frames" control and the allocator frames the core skipped. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { answerTimelineRequest, ALL_FRAMES_LIMIT, MAX_FRAMES } from '../../../../src/extension/timeline/timelineRequests';
import type { BlockDetail } from '../../../../src/engine/timeline/types';
import { allocatorFramesSkipped, moreFrames } from '../../../../webview/timeline/controls/stackFrames';

const detail = (frames: number, totalFrames: number, extra: object = {}): BlockDetail => ({ frames: Array.from({ length: frames }, () => ({ file: 'a.py', line: 1, name: 'f', user: true })), totalFrames, ...extra }) as unknown as BlockDetail;

describe('the pinned block\'s frames', () => {
  it('counts the frames not yet shown', () => {
    assert.equal(moreFrames(detail(12, 40)), 28);
    assert.equal(moreFrames(detail(3, 3)), 0);
  });

  it('reads the skipped allocator frames only when the core sends a count', () => {
    assert.equal(allocatorFramesSkipped(detail(1, 1)), 0);
    assert.equal(allocatorFramesSkipped(detail(1, 1, { hiddenFrames: 5 })), 5);
    assert.equal(allocatorFramesSkipped(detail(1, 1, { hiddenFrames: 'x' })), 0);
  });

  it('asks the worker for the whole stack only when the page expands it', async () => {
    const asked: number[] = [];
    const call = (method: string, args: { maxFrames?: number }) => {
      if (method === 'timelineBlock') asked.push(args.maxFrames!);
      return Promise.resolve({ record: 0 });
    };
    const backend = { worker: () => call, adviceEnabled: () => false };
    for (const allFrames of [undefined, true]) {
      await answerTimelineRequest(
        { type: 'block', requestId: 1, target: { snapshotId: 's', device: 0 }, record: 0, ...(allFrames ? { allFrames } : {}) },
        backend as never,
      );
    }
    assert.deepEqual(asked, [MAX_FRAMES, ALL_FRAMES_LIMIT]);
  });
});
