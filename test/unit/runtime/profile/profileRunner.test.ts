/**
 * The runner's Cancel logic with stand-in processes: SIGINT first, SIGKILL of the whole group only
 * after the grace period, and more time while a snapshot is being written.
 */
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { describe, it } from 'node:test';
import type { ProfileCommand } from '../../../../src/runtime/profile/command';
import type { ChildLike, ConnectionHandlers, RunnerHost, StopSignal } from '../../../../src/runtime/profile/runner';
import { ProfileRun, descendantsOf } from '../../../../src/runtime/profile/runner';

class FakeChild extends EventEmitter implements ChildLike {
  readonly pid = 4242;
  readonly stdout = new EventEmitter();
  readonly stderr = new EventEmitter();
}

function fakeHost(platform: NodeJS.Platform = 'linux', workers: number[] = []) {
  const signals: [StopSignal, boolean, number][] = [];
  const targets: number[] = [];
  const touched: string[] = [];
  const child = new FakeChild();
  let connection: ConnectionHandlers | undefined;
  const started = Date.now();
  const host: RunnerHost = {
    platform,
    spawn: () => child,
    signal: (pid, signal, group) => {
      signals.push([signal, group, Date.now() - started]);
      targets.push(pid);
      if (signal === 'SIGKILL') setImmediate(() => child.emit('close', null, 'SIGKILL'));
    },
    listen: (_address, onConnection) => {
      connection = onConnection();
      return Promise.resolve({ close: () => undefined });
    },
    touch: (file) => touched.push(file),
    descendants: (pid) => (pid === child.pid ? workers : []),
  };
  const send = (record: object) => connection!.onData(new TextEncoder().encode(`${JSON.stringify(record)}\n`));
  return { host, child, signals, targets, touched, send, closeChannel: () => connection!.onEnd() };
}

const command = (distributed = false): ProfileCommand => ({ command: 'python', args: [], cwd: '/', env: {}, distributed });
const timeouts = { graceMs: 60, dumpGraceMs: 300, drainMs: 50 };
const tick = () => new Promise((r) => setTimeout(r, 5));

describe('profile runner (stand-in processes)', () => {
  it('Cancel writes the cancel file and sends SIGINT to the process only; a stuck program is killed as a group', async () => {
    const f = fakeHost();
    const run = new ProfileRun(command(), 'chan', '/runs/r/cancel', timeouts, {}, f.host);
    await tick();
    run.cancel();
    run.cancel();
    const result = await run.done;
    assert.deepEqual(f.touched, ['/runs/r/cancel']);
    assert.deepEqual(f.signals.map(([s, g]) => [s, g]), [['SIGINT', false], ['SIGKILL', true]]);
    assert.ok(f.signals[1][2] >= timeouts.graceMs - 5, 'killed only after the grace period');
    assert.deepEqual([result.killed, result.cancelRequested, result.signal], [true, true, 'SIGKILL']);
  });

  it('waits longer while a snapshot is being written', async () => {
    const f = fakeHost();
    const run = new ProfileRun(command(), 'chan', 'c', timeouts, {}, f.host);
    await tick();
    f.send({ type: 'dumping', reason: 'cancel', t: 1, pid: 1 });
    run.cancel();
    await run.done;
    const kill = f.signals.find(([s]) => s === 'SIGKILL');
    assert.ok(kill && kill[2] >= timeouts.graceMs + timeouts.dumpGraceMs - 5, `killed at ${kill?.[2]} ms`);
  });

  it('a program that stops in time is not killed, and its records are kept', async () => {
    const f = fakeHost();
    const seen: string[] = [];
    const run = new ProfileRun(command(), 'chan', 'c', timeouts, { onRecord: (r) => seen.push(r.type), onStdout: (t) => seen.push(`out:${t}`) }, f.host);
    await tick();
    run.cancel();
    f.child.stdout.emit('data', new TextEncoder().encode('bye\n'));
    f.send({ type: 'progress', t: 1, devices: [] });
    f.send({ type: 'end', outcome: 'cancelled', code: 130, snapshot: 's', t: 1 });
    f.child.emit('close', 130, null);
    setTimeout(() => f.closeChannel(), 10);
    const result = await run.done;
    assert.deepEqual([result.killed, result.exitCode], [false, 130]);
    assert.deepEqual(seen, ['out:bye\n', 'progress', 'end']);
    assert.deepEqual(result.records.map((r) => r.type), ['end'], 'progress records are streamed, not kept');
    await new Promise((r) => setTimeout(r, timeouts.graceMs + 20));
    assert.deepEqual(f.signals.map(([s]) => s), ['SIGINT'], 'no kill after the process ended');
  });

  it('Windows is cancelled through the cancel file, then the process tree is killed', async () => {
    const f = fakeHost('win32');
    const run = new ProfileRun(command(false), 'chan', 'c', { ...timeouts, graceMs: 20 }, {}, f.host);
    await tick();
    run.cancel();
    await run.done;
    assert.deepEqual(f.touched, ['c']);
    assert.deepEqual(f.signals.map(([s, g]) => [s, g]), [['SIGKILL', true]]);
  });

  it('torchrun: SIGINT, SIGTERM halfway through the grace period, then SIGKILL of its group and of every worker', async () => {
    const f = fakeHost('linux', [7001, 7002, 7003]);
    const run = new ProfileRun(command(true), 'chan', 'c', { ...timeouts, graceMs: 80 }, {}, f.host);
    await tick();
    run.cancel();
    const result = await run.done;
    assert.deepEqual(f.touched, ['c']);
    assert.deepEqual(
      f.signals.map(([s, g], i) => [f.targets[i], s, g]),
      [
        [4242, 'SIGINT', false],
        [4242, 'SIGTERM', false],
        [4242, 'SIGKILL', true],
        [7001, 'SIGKILL', true],
        [7002, 'SIGKILL', true],
        [7003, 'SIGKILL', true],
      ],
    );
    assert.ok(f.signals[1][2] >= 40 - 5 && f.signals[2][2] >= 80 - 5, 'SIGTERM at half the grace period, the kill at its end');
    assert.equal(result.killed, true);
  });

  it('descendantsOf walks the process table below the root only', () => {
    const table = new Map([
      [10, 1],
      [11, 10],
      [12, 10],
      [13, 11],
      [20, 1],
      [21, 20],
    ]);
    assert.deepEqual(descendantsOf(10, table), [11, 12, 13]);
    assert.deepEqual(descendantsOf(21, table), []);
  });
});
