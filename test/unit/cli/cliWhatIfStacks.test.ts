/**
 * `vram-lens whatif` reads a file without its trace's stacks first (`Snapshot.stacksNotRead`: faster to
 * decode) and again with them only when the replay needs one (an allocation that fails names its line;
 * memory released before an allocation is told apart by stacks); a question likely to name a line (a
 * capacity, the GPU table) reads them at once. Whatever it prints must be what it prints from the file
 * read with its stacks at once: every corpus snapshot, asked every kind of question, read lazily, at
 * once, and as a user runs it.
 */
import assert from 'node:assert/strict';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { whatifCommand, whatifOptions } from '../../../src/cli/commands/whatif';
import type { WhatifReadOptions } from '../../../src/cli/commands/whatif';
import { parseArgs } from '../../../src/cli/args';
import { buildLineIndex } from '../../../src/engine/analysis/lineIndex';
import { selfCheck } from '../../../src/engine/allocator/selfCheck';
import { StacksNotReadError } from '../../../src/engine/snapshot/errors';
import { STACK_NOT_READ, devicesOf } from '../../../src/engine/snapshot/model';
import { openSnapshot } from '../../../src/runtime/input/snapshotFile';
import { corpusDir, corpusFiles, corpusMissing } from '../../helpers/corpus';

async function whatif(argv: string[], read: WhatifReadOptions): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const args = parseArgs(argv, whatifOptions.valued, whatifOptions.flags);
  const code = await whatifCommand(args, { out: (t) => (out += t), err: (t) => (err += t) }, read);
  return { code, out, err };
}

/** Questions of every kind: the JSON and the text, the GPU table, capacities small enough to run out (a line is named), other settings. */
const QUESTIONS: readonly string[][] = [
  ['--json'],
  [],
  ['--table', '--json'],
  ['--capacity', '1GiB', '--json'],
  ['--capacity', '4GiB'],
  ['--alloc-conf', 'expandable_segments:True', '--json'],
  ['--capacity', '2GiB', '--alloc-conf', 'max_split_size_mb:64', '--table'],
];

describe('vram-lens whatif reads stacks only when it needs them', { skip: corpusMissing }, () => {
  for (const file of corpusFiles()) {
    const name = path.basename(file);
    it(`${name}: every question answered as from the file read with its stacks`, async () => {
      for (const question of QUESTIONS) {
        const lazily = await whatif([file, ...question], { stacks: 'lazily' });
        const always = await whatif([file, ...question], { stacks: 'always' });
        assert.deepStrictEqual(lazily, always, `whatif ${name} ${question.join(' ')}`);
        // As a user runs it: stacks at once for a question likely to name a line, else lazily.
        assert.deepStrictEqual(await whatif([file, ...question], {}), always, `whatif ${name} ${question.join(' ')} (auto)`);
      }
    });
  }

  it('the first read keeps no stack, and what needs one says so: a line for an OOM, a release before an allocation', async () => {
    const oomFile = path.join(corpusDir, 'constructor-sun-expandable-oom-4dev.pickle');
    const snapshot = await openSnapshot({ kind: 'file', path: oomFile }, { stacks: false }).then((l) => l.snapshot);
    assert.equal(snapshot.stacksNotRead, true);
    for (const t of snapshot.traces) assert.ok(t.stack.every((s) => s === STACK_NOT_READ), `device ${t.device}: every stack unread`);
    assert.throws(() => buildLineIndex(snapshot, () => true), StacksNotReadError);
    // The OOM's line is named in the answer, so this question was answered from a second read with stacks.
    const answer = JSON.parse((await whatif([oomFile, '--device', '1', '--json'], { stacks: 'lazily' })).out) as { devices: { oom: { file: string | null } }[] };
    assert.match(String(answer.devices[0].oom.file), /models\.py$/);

    // A trace where PyTorch released segments (segment_free) before allocations: the self-check tells an
    // empty_cache() call from a release by the allocation itself by their stacks.
    const releases = path.join(corpusDir, 'kkaitlyn111-cs336-2.7b-forward.pickle');
    const unread = (await openSnapshot({ kind: 'file', path: releases }, { stacks: false })).snapshot;
    const read = (await openSnapshot({ kind: 'file', path: releases })).snapshot;
    assert.equal(read.stacksNotRead, undefined);
    const devices = devicesOf(read);
    assert.ok(devices.some((d) => throwsUnread(() => selfCheck(unread, d))), 'some device of this snapshot needs a stack in its self-check');
    for (const d of devices) if (!throwsUnread(() => selfCheck(unread, d))) assert.deepStrictEqual(selfCheck(unread, d), selfCheck(read, d));
  });
});

function throwsUnread(run: () => unknown): boolean {
  try {
    run();
    return false;
  } catch (e) {
    if (e instanceof StacksNotReadError) return true;
    throw e;
  }
}
