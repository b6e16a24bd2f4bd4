/**
 * Issue 16: a snapshot from a stranger can do nothing. One test per defect the hostile-input probe
 * found; each failed before its fix.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, writeFileSync, ftruncateSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import { describe, it } from 'node:test';
import { diskLineText } from '../../../../src/cli/sourceFiles';
import { SnapshotFileError } from '../../../../src/engine/decode/errors';
import { openSnapshot } from '../../../../src/runtime/input/snapshotFile';
import { snapshotFromBytes } from '../../../../src/engine/decode/load';
import { decodePickle } from '../../../../src/engine/pickle/decoder';
import { encodePickle } from '../../../../src/engine/pickle/encoder';
import { PickleError } from '../../../../src/engine/pickle/errors';
import { notificationText, plainText, terminalText } from '../../../../src/engine/text/plainText';
import { repoRoot } from '../../../helpers/corpus';

/**
 * The pattern VS Code uses to find links in notification and dialog text (vs/base/common/linkedText.ts,
 * restated here): a `[label](target)` whose target starts with http(s)://, command: or file:.
 */
const VSCODE_LINK = /\[([^\]]+)\]\(((?:https?:\/\/|command:|file:)[^)\s]+)(?: (["'])(.+?)(\3))?\)/gi;
const HOSTILE_LINK = '[Show details](command:workbench.action.terminal.sendSequence?%7B%22text%22%3A%22rm%20-rf%20~%5Cn%22%7D)';
const bin = path.join(repoRoot, 'bin', 'vram-lens.js');
const tmp = mkdtempSync(path.join(tmpdir(), 'vram-lens-hostile-'));

function cli(...args: string[]): { status: number | null; stdout: string; stderr: string; ms: number } {
  const started = performance.now();
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', timeout: 30_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, ms: performance.now() - started };
}

function file(name: string, bytes: Uint8Array | string): string {
  const p = path.join(tmp, name);
  writeFileSync(p, bytes);
  return p;
}

describe('item 1: text from a snapshot cannot form a link in a notification', () => {
  it('VS Code finds the hostile link in the raw text (the pattern is live)', () => {
    assert.equal([...HOSTILE_LINK.matchAll(VSCODE_LINK)].length, 1);
  });
  const cases = [
    HOSTILE_LINK,
    `keys: ${HOSTILE_LINK}, [a](https://example.com) [b](file:///etc/passwd)`,
    '[x]\n(command:y)',
    '[x]\u0000(command:y)',
    '[x]\u202e(command:y)',
    `[${'a'.repeat(400)}](command:y)`,
  ];
  for (const text of cases) {
    it(`no link in ${JSON.stringify(text.slice(0, 40))}`, () => {
      const shown = notificationText(text);
      assert.equal([...shown.matchAll(VSCODE_LINK)].length, 0, shown);
      assert.ok(!shown.includes(']('));
    });
  }
  it('file names stay readable: brackets and parentheses are kept', () => {
    assert.equal(notificationText('model (1) [final].pickle'), 'model (1) [final].pickle');
    assert.equal(notificationText(HOSTILE_LINK).slice(0, 20), '[Show details] (comm');
  });
  it('long text is shortened in the middle', () => {
    const shown = notificationText(`/data/${'x'.repeat(10_000)}/train.py`);
    assert.equal(shown.length, 300);
    assert.ok(shown.startsWith('/data/x') && shown.endsWith('x/train.py') && shown.includes('\u2026'));
  });
  it('the "not a memory snapshot" message of a file whose key is a command link shows no link', () => {
    const bytes = encodePickle({ [HOSTILE_LINK]: 1 });
    let message = '';
    try {
      snapshotFromBytes(bytes);
    } catch (e) {
      message = (e as Error).message;
    }
    assert.match(message, /no 'segments' or 'device_traces'/);
    assert.equal([...message.matchAll(VSCODE_LINK)].length, 1, 'the raw message holds the link');
    assert.equal([...notificationText(message).matchAll(VSCODE_LINK)].length, 0);
  });
});

describe('item 5: control characters never reach a terminal or the UI', () => {
  const hostile = 'a\u001b]0;owned\u0007b\u009b31mc\u202ed\te\nf\rg';
  it('plainText removes C0, DEL, C1 (U+009B) and bidi controls', () => {
    assert.equal(plainText(hostile), 'a]0;ownedb31mcd e f g');
  });
  it('terminalText shows them as escapes and keeps line feeds and tabs', () => {
    assert.equal(terminalText(hostile), 'a\\u001b]0;owned\\u0007b\\u009b31mc\\u202ed\te\nf\\u000dg');
    assert.deepEqual(JSON.parse(terminalText(JSON.stringify({ k: '\u009b\u202e' }))), { k: '\u009b\u202e' });
  });
  it('vram-lens prints a hostile dict key and frame file name without a control character', () => {
    const key = file('key.pickle', encodePickle({ ['\u001b[2J\u009b2Jkey']: 1 }));
    const r = cli('analyze', key);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /\\u001b\[2J\\u009b2Jkey/);
    const frames = file(
      'frames.pickle',
      encodePickle({
        segments: [{ address: 0, total_size: 512, blocks: [{ size: 512, state: 'active_allocated', frames: [{ filename: '/x/\u001b]8;;http://e\u0007evil\u009b.py', line: 3, name: 'f' }] }] }],
      }),
    );
    for (const args of [['analyze', frames], ['analyze', frames, '--json'], ['advise', frames]]) {
      const out = cli(...args);
      assert.equal(out.status, 0, out.stderr);
      // eslint-disable-next-line no-control-regex
      assert.doesNotMatch(out.stdout + out.stderr, /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    }
  });
});

describe('items 4 and 7: checks before reading, and the neighbours of a snapshot', () => {
  it('/dev/zero and a FIFO exit 1 at once', () => {
    const fifo = path.join(tmp, 'fifo.pickle');
    assert.equal(spawnSync('mkfifo', [fifo]).status, 0);
    for (const [target, kind] of [['/dev/zero', 'a character device'], [fifo, 'a FIFO'], [tmp, 'a directory']] as const) {
      const r = cli('analyze', target);
      assert.equal(r.status, 1, r.stderr);
      assert.ok(r.stderr.includes(`is ${kind}`), r.stderr);
      assert.ok(r.ms < 5000, `${target} took ${r.ms} ms`);
    }
  });
  it('a file over 2 GiB is not refused for its size (issue 23): it is streamed, and refused for what it holds at once', async () => {
    // Sparse: 2.3 GB of zeros on disk cost nothing. Byte 0 is no pickle opcode, so only the first chunk is read.
    const big = path.join(tmp, 'big.pickle');
    const fd = openSync(big, 'w');
    ftruncateSync(fd, 2_300_000_000);
    closeSync(fd);
    const started = performance.now();
    await assert.rejects(openSnapshot({ kind: 'file', path: big }), (e: unknown) => e instanceof PickleError && e.code === 'bad-opcode' && e.offset === 0);
    assert.ok(performance.now() - started < 2000, `took ${performance.now() - started} ms`);
  });
  it('an empty file, a torch.save zip, zstd, xz and bzip2 files get a message that says what they are', () => {
    const cases: [string, number[], RegExp][] = [
      ['empty', [], /the file is empty/],
      ['zip', [0x50, 0x4b, 0x03, 0x04, 0, 0], /torch\.save archive.*torch\.cuda\.memory\._dump_snapshot/],
      ['zstd', [0x28, 0xb5, 0x2f, 0xfd, 0, 0], /zstd-compressed: decompress it first \(zstd -d FILE\)/],
      ['xz', [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00], /xz-compressed/],
      ['bzip2', [0x42, 0x5a, 0x68, 0x39], /bzip2-compressed/],
    ];
    for (const [name, bytes, message] of cases) {
      assert.throws(() => snapshotFromBytes(Uint8Array.from(bytes)), (e: unknown) => e instanceof SnapshotFileError && message.test(e.message), name);
      const r = cli('analyze', file(`${name}.pickle`, Uint8Array.from(bytes)));
      assert.equal(r.status, 1);
      assert.match(r.stderr, message);
    }
  });
  it('a gzip-compressed snapshot is decompressed and reads like the original', async () => {
    const snapshot = encodePickle({ segments: [{ address: 0, total_size: 512, blocks: [{ size: 512, state: 'active_allocated' }] }] });
    assert.deepEqual((await openSnapshot({ kind: 'bytes', bytes: gzipSync(snapshot) })).snapshot, snapshotFromBytes(snapshot));
    // The engine itself has no zlib: only the runtime's one way in inflates.
    assert.throws(() => snapshotFromBytes(gzipSync(snapshot)), (e: unknown) => e instanceof SnapshotFileError && e.code === 'compressed' && /gzip-compressed: decompress it first/.test(e.message));
    const r = cli('analyze', file('snap.pickle.gz', gzipSync(snapshot)), '--json');
    assert.equal(r.status, 0, r.stderr);
  });
  it('a gzip bomb in memory stops at the ratio limit; a damaged gzip says so', async () => {
    // A string that claims a terabyte, then 64 MiB of zeros: the pickle waits for its bytes while zlib inflates them.
    const plain = new Uint8Array(64 << 20);
    plain.set([0x80, 4, 0x8d, 0, 0, 0, 0, 0, 1, 0, 0]);
    const bomb = gzipSync(plain);
    await assert.rejects(openSnapshot({ kind: 'bytes', bytes: bomb }), (e: unknown) => e instanceof SnapshotFileError && e.code === 'gzip-too-large' && /expands more than 200 times/.test(e.message));
    // A gzip'd snapshot cut short (its first 20 bytes).
    const damaged = gzipSync(encodePickle({ segments: [] })).subarray(0, 20);
    await assert.rejects(openSnapshot({ kind: 'bytes', bytes: damaged }), (e: unknown) => e instanceof SnapshotFileError && e.code === 'gzip-damaged' && /this gzip file cannot be decompressed/.test(e.message));
  });
});

describe('item 7: decoder limits', () => {
  it('a 100 MB LONG4 claim is refused before any of it is read', () => {
    const data = new Uint8Array(100 * 2 ** 20 + 8);
    data.set([0x80, 2, 0x8b]);
    new DataView(data.buffer).setInt32(3, 100 * 2 ** 20, true);
    const rss = process.memoryUsage().rss;
    const started = performance.now();
    assert.throws(() => decodePickle(data), (e: unknown) => e instanceof PickleError && e.code === 'too-large' && /LONG4 integer of 104857600 bytes/.test(e.message));
    assert.ok(performance.now() - started < 1000);
    assert.ok(process.memoryUsage().rss - rss < 200 * 2 ** 20);
  });
  it('an engine limit while a reader sizes its storage reads as a PickleError, not a stack trace', () => {
    // (The decoder once sized storage from a first pass over the bytes; it streams now, and the
    // reader that grows its storage as entries arrive is the append hook.)
    const onAppend = (): boolean => {
      throw new RangeError('Array buffer allocation failed');
    };
    assert.throws(() => decodePickle(encodePickle([1, 2]), { onAppend }), (e: unknown) => e instanceof PickleError && e.code === 'too-large');
  });
});

describe('the CLI source reader reads only small .py files', () => {
  it('a line of a .py file is read; a file that is not .py, or over 4 MiB, is never read', () => {
    const py = file('small.py', 'a = 1\nb = 2\n');
    const txt = file('secret.txt', 'token = 1\n');
    const big = file('big.py', `x = 1\n${'#'.repeat(4 * 1024 * 1024)}\n`);
    const lines = diskLineText();
    assert.equal(lines(py, 2), 'b = 2');
    assert.equal(lines(txt, 1), undefined);
    assert.equal(lines(big, 1), undefined);
  });
});
