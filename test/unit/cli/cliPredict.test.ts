/**
 * `vram-lens predict`'s command line without a PyTorch (the runs themselves are in
 * test/unit/runtime/predict/predictRealTorch.test.ts): where the program's own arguments begin, the GPU and the
 * interpreter it chooses, and the words of its usage errors.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { parseArgs } from '../../../src/cli/args';
import { DEFAULT_GPU, gpuOption, predictOptions, pythonFor } from '../../../src/cli/commands/predict';
import { main } from '../../../src/cli/main';

async function run(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(args, { out: (t) => (out += t), err: (t) => (err += t) });
  return { code, out, err };
}

const parse = (args: string[]) => parseArgs(args, predictOptions.valued, predictOptions.flags);

describe('vram-lens predict (no PyTorch needed)', () => {
  it('asks for a script, and refuses a GPU it does not know, saying which it knows', async () => {
    const none = await run(['predict']);
    assert.equal(none.code, 2);
    assert.match(none.err, /predict needs the script to run/);
    const bad = await run(['predict', '--gpu', 'a200 9000gb', 'train.py']);
    assert.equal(bad.code, 2);
    assert.match(bad.err, /--gpu 'a200 9000gb': not a GPU of the list \(H200 141GB, H100 80GB/);
    const capability = await run(['predict', '--gpu', '24GiB', '--capability', 'sm80', 'train.py']);
    assert.equal(capability.code, 2);
    assert.match(capability.err, /--capability takes MAJOR.MINOR/);
    const data = await run(['predict', '--data', 'gpu', 'train.py']);
    assert.equal(data.code, 2);
    assert.match(data.err, /--data takes fake .* or cpu/);
  });

  it('the program\'s own arguments begin at the script: its --help and flags are its own', async () => {
    const help = await run(['predict', '--help']);
    assert.equal(help.code, 0);
    assert.match(help.out, /^usage: vram-lens predict/);
    const dir = mkdtempSync(path.join(tmpdir(), 'vl-cli-predict-'));
    // The script's --help goes to the script (which does not exist here: the error names it, not the usage).
    const theirs = await run(['predict', '--python', path.join(dir, 'no-python'), path.join(dir, 'train.py'), '--help', '--epochs', '3']);
    assert.equal(theirs.code, 1);
    assert.match(theirs.err, /train\.py: no such file/);
    const unknown = await run(['predict', '--epochs', '3', 'train.py']);
    assert.equal(unknown.code, 2, 'an option before the script is ours, and unknown');
    assert.match(unknown.err, /unknown option --epochs/);
  });

  it('takes the picker\'s names and sizes as users write them; H100 80GB when none is given', () => {
    assert.equal(gpuOption(parse(['x.py'])).name, DEFAULT_GPU);
    assert.equal(gpuOption(parse(['--gpu', 'H100-80GB', 'x.py'])).name, 'H100 80GB');
    assert.equal(gpuOption(parse(['--gpu', 'a100 40gb', 'x.py'])).memoryBytes, 40 * 2 ** 30);
    const sized = gpuOption(parse(['--gpu', '24 GB', '--capability', '8.9', 'x.py']));
    assert.deepEqual([sized.memoryBytes, sized.capability], [24 * 2 ** 30, '8.9']);
  });

  it('runs --python, else the active virtual or conda environment\'s interpreter, else python3', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'vl-cli-python-'));
    mkdirSync(path.join(dir, 'venv', 'bin'), { recursive: true });
    writeFileSync(path.join(dir, 'venv', 'bin', 'python'), '');
    assert.equal(pythonFor(parse(['--python', '/opt/py/bin/python3', 'x.py']), {}, 'linux'), '/opt/py/bin/python3');
    assert.equal(pythonFor(parse(['x.py']), { VIRTUAL_ENV: path.join(dir, 'venv') }, 'linux'), path.join(dir, 'venv', 'bin', 'python'));
    assert.equal(pythonFor(parse(['x.py']), { VIRTUAL_ENV: path.join(dir, 'missing') }, 'linux'), 'python3');
    assert.equal(pythonFor(parse(['x.py']), {}, 'win32'), 'python');
  });
});
