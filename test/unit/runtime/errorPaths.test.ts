/**
 * Issue 24 item 4: every error a user can meet is written for them. This walks the error paths of the
 * snapshot decoder (through the extension's notification text and the command line), the analysis
 * worker (out of memory at its `resourceLimits`, a crash, a closed snapshot), the workload worker (out of
 * memory), the Profile VRAM runner (interpreters that cannot start, environments, signals) and ONNX
 * input (model files, input specs, runs onnxruntime refuses), and checks that each message says what
 * happened in our words and what to do, with none of the engine's text: no "Worker terminated", no
 * stack, no "at Object.".
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, it } from 'node:test';
import { main } from '../../../src/cli/main';
import { INTERNAL_ERROR, OUT_OF_MEMORY, hasEngineText, userMessage } from '../../../src/engine/base/errors';
import { snapshotLoadMessage } from '../../../src/engine/decode/errors';
import { decodeModel } from '../../../src/engine/onnx/decode';
import { encodeModel } from '../../../src/engine/onnx/encode';
import { encodePickle } from '../../../src/engine/pickle/encoder';
import { parseInputSpec, parseInputsFile } from '../../../src/engine/workloads/modelInputSpec';
import { ExitCode } from '../../../src/guards/profile';
import { outcomeText } from '../../../src/extension/profile/outcomeText';
import { DEFAULT_SESSION_SETTINGS } from '../../../src/runtime/ort/session';
import { executeJob } from '../../../src/runtime/ort/workloadJob';
import { runWorkload } from '../../../src/runtime/ort/workloadRunner';
import { openSnapshot } from '../../../src/runtime/input/snapshotFile';
import { classifyOutcome } from '../../../src/runtime/profile/outcome';
import { SnapshotWorker } from '../../../src/runtime/worker/client';
import { repoRoot } from '../../helpers/corpus';
import { manyFoldersSnapshot } from '../../helpers/manyFolders';
import { modelOf } from '../../helpers/onnxModel';

const tmp = () => mkdtempSync(path.join(tmpdir(), 'vram-errors-'));
const analysisWorker = path.join(repoRoot, 'dist', 'analysisWorker.js');

/** The checks every message a user reads passes: words of ours, no engine text, no stack. */
function assertWritten(message: string, what: string): void {
  assert.ok(message.trim() !== '', `${what}: a message`);
  assert.ok(!hasEngineText(message), `${what}: engine text in ${JSON.stringify(message)}`);
  assert.doesNotMatch(message, /Worker terminated|\bat Object\.|\n\s+at \S|node:internal|ERR_WORKER/, `${what}: ${message}`);
}

/** Runs the command line with its output captured. */
async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(args, { out: (t) => (out += t), err: (t) => (err += t) });
  return { code, out, err };
}

describe('the words of userMessage', () => {
  it('passes our own messages, turns memory, file system and internal faults into words, and never shows engine text', () => {
    class PickleError extends Error {
      override readonly name = 'PickleError';
    }
    assert.equal(userMessage(new PickleError('unknown opcode 0x9f (at byte 12)')), 'unknown opcode 0x9f (at byte 12)');
    assert.equal(userMessage(new Error('that snapshot is no longer loaded')), 'that snapshot is no longer loaded');
    assert.equal(userMessage(Object.assign(new Error('Worker terminated due to reaching memory limit: JS heap out of memory'), { code: 'ERR_WORKER_OUT_OF_MEMORY' })), OUT_OF_MEMORY);
    assert.equal(userMessage(new RangeError('Array buffer allocation failed')), OUT_OF_MEMORY);
    assert.equal(userMessage(Object.assign(new Error("ENOENT: no such file or directory, open '/x/y.pickle'"), { code: 'ENOENT', path: '/x/y.pickle' })), '/x/y.pickle: no such file or folder');
    assert.equal(userMessage(new TypeError("Cannot read properties of undefined (reading 'frames')")), INTERNAL_ERROR);
    const withStack = new Error('boom');
    withStack.message = `boom\n    at Object.<anonymous> (/x.js:1:1)`;
    assert.equal(userMessage(withStack), INTERNAL_ERROR);
    for (const m of [OUT_OF_MEMORY, INTERNAL_ERROR]) assertWritten(m, 'the fixed sentences');
  });
});

describe('decoder error paths', () => {
  const pickle = (hex: string) => Buffer.from(hex, 'hex');
  const cases: [string, Uint8Array][] = [
    ['an empty file', new Uint8Array(0)],
    ['a torch.save archive', Buffer.from('PK\x03\x04rest-of-a-zip', 'latin1')],
    ['a truncated pickle', pickle('8004950e000000000000007d948c05617070')],
    ['an unknown opcode', pickle('8004ff')],
    ['a pickle that imports os.system', Buffer.from('\x80\x04cos\nsystem\n.', 'latin1')],
    ['protocol 6', pickle('8006')],
    ['a damaged gzip file', gzipSync(Buffer.from('x'.repeat(100))).subarray(0, 20)],
    ['a gzip file in a gzip file', gzipSync(gzipSync(encodePickle({ segments: [], device_traces: [] })))],
    ['an xz file', Buffer.from([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00, 1, 2])],
    ['a list, not a dict', encodePickle([1, 2, 3])],
    ['a dict of something else', encodePickle({ apple: 1 })],
    ['a trace entry of the wrong kind', encodePickle({ segments: [], device_traces: [[{ action: 'alloc', addr: 'x', size: 1 }]] })],
    ['a segment that is not a dict', encodePickle({ segments: [5], device_traces: [] })],
    ['a huge string length', pickle('80048d' + 'ffffffffffffff7f')],
  ];

  for (const [what, bytes] of cases) {
    it(`${what}: the notification and the command line say what happened and what to open instead`, async () => {
      let thrown: unknown;
      try {
        await openSnapshot({ kind: 'bytes', bytes });
      } catch (e) {
        thrown = e;
      }
      assert.ok(thrown !== undefined, `${what} is refused`);
      const shown = snapshotLoadMessage('bad.pickle', thrown);
      assertWritten(shown, what);
      assert.match(shown, /^bad\.pickle could not be read as a PyTorch memory snapshot: /);
      // What to do: open a snapshot (what writes one), decompress it, or copy it again.
      assert.match(shown, /torch\.cuda\.memory\._dump_snapshot|decompress|copy it again/, `${what}: what to do in ${shown}`);
      if (/not a memory snapshot/.test(shown)) assert.doesNotMatch(shown, /cut short/, `${what}: a file that is no snapshot is not called damaged`);

      const file = path.join(tmp(), 'bad.pickle');
      writeFileSync(file, bytes);
      const r = await cli(['analyze', file]);
      assert.equal(r.code, 1, `${what}: ${r.err}`);
      assertWritten(r.err, `${what} (command line)`);
    });
  }
});

describe('analysis worker error paths', () => {
  const bytes = manyFoldersSnapshot({ folders: 100_000, mapped: [] });
  const filter = { includeLibraryFrames: false, extraLibraryPaths: [] };

  it('a snapshot that needs more memory than the worker may use: its limit, and what to do, in our words', async () => {
    const advice = 'Close other snapshots, or raise the setting vramLens.analysis.memoryLimitMb.';
    const worker = new SnapshotWorker(analysisWorker, { maxHeapMb: 24, memoryAdvice: advice });
    try {
      const error = await worker.call('load', { source: { kind: 'bytes', bytes }, filter }).then(
        () => assert.fail('a 100,000-folder snapshot fits in 24 MiB?'),
        (e: unknown) => e,
      );
      // The engine said it its way; the user reads ours.
      assert.match(String((worker.stoppedBy as Error | undefined)?.message), /Worker terminated due to reaching memory limit/);
      const message = userMessage(error);
      assertWritten(message, 'out of memory');
      assert.equal(message, `The analysis of this snapshot needed more memory than it may use (24 MiB) and was stopped. ${advice}`);
      // A later question gets words too, not a dead worker's silence.
      const later = await worker.call('lines', { device: 0 }).then(() => undefined, (e: unknown) => e);
      assertWritten(userMessage(later), 'a call after the stop');
    } finally {
      await worker.dispose();
    }
  });

  it('the same snapshot within the default limit loads', async () => {
    const worker = new SnapshotWorker(analysisWorker);
    try {
      const info = await worker.call('load', { source: { kind: 'bytes', bytes }, filter });
      assert.equal(info.devices[0].allocations, 100_000);
    } finally {
      await worker.dispose();
    }
  });

  it('a worker that crashes, and a snapshot closed while it is asked, say so in words', async () => {
    const script = path.join(tmp(), 'crash.js');
    writeFileSync(script, "null.frames.length; // a TypeError: Cannot read properties of null\n");
    const crashed = new SnapshotWorker(script);
    const error = await crashed.call('load', { source: { kind: 'bytes', bytes: new Uint8Array(4) }, filter }).then(() => undefined, (e: unknown) => e);
    assertWritten(userMessage(error), 'a crashed worker');
    assert.match(userMessage(error), /stopped unexpectedly; please report it/);
    await crashed.dispose();

    const closing = new SnapshotWorker(analysisWorker);
    const asked = closing.call('load', { source: { kind: 'bytes', bytes }, filter });
    await closing.dispose();
    const closed = await asked.then(() => undefined, (e: unknown) => e);
    assertWritten(userMessage(closed), 'a closed snapshot');
    assert.equal(userMessage(closed), 'the snapshot was closed');
  });

  it('a question the worker cannot answer comes back in its words', async () => {
    const worker = new SnapshotWorker(analysisWorker);
    try {
      const error = await worker.call('lines', { device: 0 }).then(() => undefined, (e: unknown) => e);
      assertWritten(userMessage(error), 'no snapshot loaded');
    } finally {
      await worker.dispose();
    }
  });
});

describe('workload worker error paths', () => {
  it('a run that needs more memory than the worker may use says how much and what to do', async () => {
    const script = path.join(tmp(), 'hungry.js');
    writeFileSync(script, "const keep = []; for (;;) keep.push(new Array(1e5).fill({ a: 1 }));\n");
    const error = await runWorkload(
      { kind: 'builtin', workload: 'similarity', variant: 'eager', size: 'tiny', samplePath: '', sampleText: '', provider: 'cpu', settings: DEFAULT_SESSION_SETTINGS },
      { workerScript: script, maxHeapMb: 24 },
    ).then(() => undefined, (e: unknown) => e);
    const message = userMessage(error);
    assertWritten(message, 'a run out of memory');
    assert.match(message, /^The run needed more memory than it may use \(24 MiB\) and was stopped\. Choose a smaller size/);
  });
});

describe('Profile VRAM runner error paths', () => {
  /** The error node gives for spawning `command` (as the runner sees it). */
  function spawnError(command: string): Promise<NodeJS.ErrnoException> {
    return new Promise((resolve) => {
      const child = spawn(command, [], { stdio: 'ignore' });
      child.on('error', (e) => resolve(e));
    });
  }

  it('interpreters that cannot start, environments that cannot record, and signals: a headline and advice in words', async () => {
    const dir = tmp();
    const notExecutable = path.join(dir, 'python3');
    writeFileSync(notExecutable, '#!/bin/sh\n');
    chmodSync(notExecutable, 0o644);
    const endings = [];
    for (const command of [path.join(dir, 'no-such-python'), notExecutable]) {
      const e = await spawnError(command);
      endings.push({ exitCode: null, signal: null, records: [], cancelRequested: false, killed: false, spawnError: { code: e.code, message: e.message, command } });
    }
    for (const code of [ExitCode.noTorch, ExitCode.noCudaBuild, ExitCode.noGpu, ExitCode.noRecordingApi, ExitCode.oom, ExitCode.usage, 3]) {
      endings.push({ exitCode: code, signal: null, records: [], cancelRequested: false, killed: false });
    }
    for (const signal of ['SIGKILL', 'SIGSEGV']) endings.push({ exitCode: null, signal, records: [], cancelRequested: false, killed: false });
    endings.push({ exitCode: 1, signal: null, records: [], cancelRequested: true, killed: true });
    for (const ending of endings) {
      const outcome = classifyOutcome(ending);
      const sentence = `${outcomeText('train.py', outcome)}${outcome.advice ? ` ${outcome.advice}` : ''}`;
      assertWritten(sentence, `${outcome.kind} (${JSON.stringify(ending.spawnError?.code ?? ending.exitCode ?? ending.signal)})`);
      if (outcome.kind === 'failed-to-start' || outcome.kind === 'environment') assert.ok(outcome.advice, `${sentence}: what to do`);
    }
    const [missing, denied] = endings.map((e) => classifyOutcome(e).headline);
    assert.match(missing, /no-such-python was not found/);
    assert.match(denied, /cannot be run \(permission denied: is it an executable file\?\)/);
  });
});

describe('ONNX input error paths', () => {
  it('model files, input specs and runs onnxruntime refuses: in our words, naming what to change', async () => {
    const dir = tmp();
    const messages: [string, unknown][] = [];
    const catching = async (what: string, f: () => unknown) => {
      try {
        await f();
        assert.fail(`${what} is accepted`);
      } catch (e) {
        if (e instanceof assert.AssertionError) throw e;
        messages.push([what, e]);
      }
    };
    await catching('a file that is not a model', () => decodeModel(Buffer.from('definitely not protobuf \xff\xff\xff', 'latin1')));
    await catching('a truncated model', () => decodeModel(encodeModel(modelOf({ name: 'g', inputs: [], outputs: [], initializers: [], nodes: [] })).subarray(0, 5)));
    await catching('a spec that is not a shape', () => parseInputSpec('x=4xA'));
    await catching('an inputs file that is not JSON', () => parseInputsFile('{"x": "4x8",\n  oops}', 'm.onnx.inputs.json'));
    await catching('an inputs file with a wrong entry', () => parseInputsFile('{"x": {"shape": "no"}}', 'm.onnx.inputs.json'));
    const model = path.join(dir, 'm.onnx');
    writeFileSync(
      model,
      encodeModel(
        modelOf({
          name: 'g',
          inputs: [{ name: 'x', elemType: 1, shape: ['n', 8] }],
          outputs: [{ name: 'y', elemType: 1, shape: [4, 8] }],
          initializers: [{ name: 'shape', elemType: 7, dims: [2], data: BigInt64Array.from([4n, 8n]) }],
          nodes: [{ name: 'reshape', opType: 'Reshape', inputs: ['x', 'shape'], outputs: ['y'] }],
        }),
      ),
    );
    const job = { kind: 'model', modelPath: model, dimensions: {}, provider: 'cpu', settings: DEFAULT_SESSION_SETTINGS } as const;
    await catching('a missing model file', () => executeJob({ ...job, modelPath: path.join(dir, 'missing.onnx') }));
    await catching('an open dimension nobody sized', () => executeJob(job));
    await catching('an input the model does not have', () => executeJob({ ...job, dimensions: { n: 4 }, inputs: { z: { shape: [1] } } }));
    await catching('a run onnxruntime refuses', () => executeJob({ ...job, dimensions: { n: 3 } }));
    await catching('a run onnxruntime refuses, with a size chosen by default', () => executeJob({ ...job, defaultDimensions: true }));
    assert.equal(messages.length, 10);
    for (const [what, e] of messages) {
      const message = userMessage(e);
      assertWritten(message, what);
      assert.notEqual(message, INTERNAL_ERROR, `${what} is an input error, not a fault of ours: ${String(e)}`);
    }
    const [, , , json] = messages.map(([, e]) => userMessage(e));
    // Where it stops, when the engine says (Node 20 gives a position), and what to write.
    assert.match(json, /^m\.onnx\.inputs\.json: not valid JSON( \(line 2, column 3\))?: write \{"NAME": "SHAPE\[:VALUE\]", \.\.\.\}$/);
    assert.match(userMessage(messages[9][1]), /onnxruntime could not run the model with these inputs: node 'reshape' \(Reshape\): .*\(it ran with 'n' = 1, sizes chosen by default\)/);

    // The command line, on a file that is not a model and on the model that does not run at 1.
    const garbage = path.join(dir, 'garbage.onnx');
    writeFileSync(garbage, 'not a model at all');
    for (const args of [['run', garbage, '--ep', 'cpu'], ['run', model, '--ep', 'cpu']]) {
      const r = await cli(args);
      assert.equal(r.code, 1, r.err);
      assertWritten(r.err, args.join(' '));
    }
  });
});
