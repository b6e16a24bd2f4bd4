/**
 * Cancel of a torchrun job with a real PyTorch: two gloo ranks on CPU, one blocked in a collective. The run
 * ends within the grace period and no process of the job is left behind. Runs where `npm run test:torch`
 * (scripts/test-torch.mjs) names a real PyTorch: VRAM_LENS_TORCH_PYTHON (the python3 to use) and, for the
 * chroots, VRAM_LENS_TORCH_ROOT (paths are the same inside: the script bind-mounts the clone and /tmp).
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { BOOTSTRAP_ENTRY, buildProfileCommand } from '../../../../src/runtime/profile/command';
import { ProfileRun, channelAddress } from '../../../../src/runtime/profile/runner';
import { repoRoot } from '../../../helpers/corpus';

const python = process.env.VRAM_LENS_TORCH_PYTHON;
const chroot = process.env.VRAM_LENS_TORCH_ROOT;

/** Debian's 2.6/2.14 builds lack libuv, which torchrun's rendezvous asks for: see the fixture's sitecustomize. */
const debianTorchrun = {
  USE_LIBUV: '0',
  VRAM_LENS_TEST_NO_LIBUV: '1',
  PYTHONPATH: path.join(repoRoot, 'test', 'fixtures', 'torchrun-debian'),
};

/** Alive and not a zombie waiting for its parent. */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

describe('torchrun Cancel with a real PyTorch (gloo, 2 CPU ranks)', { skip: python ? false : 'set by npm run test:torch (needs a real PyTorch)' }, () => {
  it('ends within the grace period and leaves no process behind', { timeout: 120_000 }, async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'vl-torchrun-'));
    try {
      const id = `torchrun${process.pid}`;
      const cwd = dir;
      const interpreter = chroot ? ['chroot', chroot, '/usr/bin/env', '-C', cwd, python!] : [python!];
      const command = buildProfileCommand(
        { name: 'ranks', target: { kind: 'script', path: path.join(repoRoot, 'test', 'fixtures', 'profile', 'ranks.py') }, args: [dir], env: debianTorchrun, nprocPerNode: 2, source: 'file' },
        cwd,
        { maxEntries: 1000, stacks: 'python', sampleIntervalMs: 100 },
        {
          interpreter,
          bootstrap: path.join(repoRoot, ...BOOTSTRAP_ENTRY),
          snapshot: path.join(dir, 'snapshot.pickle'),
          channel: channelAddress(id),
          cancelFile: path.join(dir, 'cancel'),
        },
        { PATH: process.env.PATH, HOME: process.env.HOME },
      );
      let stderr = '';
      const graceMs = 4000;
      const run = new ProfileRun(command, channelAddress(id), path.join(dir, 'cancel'), { graceMs, dumpGraceMs: 1000, drainMs: 500 }, {
        onStderr: (t) => (stderr += t),
      });
      let finished = false;
      void run.done.then(() => (finished = true));
      const pidFiles = () => readdirSync(dir).filter((f) => /^rank\d\.pid$/.test(f));
      for (let i = 0; i < 900 && pidFiles().length < 2 && !finished; i++) await new Promise((f) => setTimeout(f, 100));
      assert.equal(pidFiles().length, 2, `both ranks started: ${stderr}`);
      const pids = pidFiles().map((f) => Number(readFileSync(path.join(dir, f), 'utf8')));
      await new Promise((f) => setTimeout(f, 500)); // rank 1 is now inside its blocked barrier
      assert.ok(pids.every(running), 'the ranks run');
      const cancelled = Date.now();
      run.cancel();
      const result = await run.done;
      const took = Date.now() - cancelled;
      assert.ok(took < graceMs + 1500, `ended ${took} ms after Cancel`);
      assert.equal(result.cancelRequested, true);
      await new Promise((f) => setTimeout(f, 300));
      assert.deepEqual(pids.filter(running), [], 'no rank is left running');
      assert.ok(existsSync(path.join(dir, 'cancel')));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
