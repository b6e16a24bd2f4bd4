/** The one module numbers are written by (src/engine/text/format.ts); every expected string is written out by hand. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatAxisBytes, formatBytes, formatBytesFine, formatCount, formatDelta, formatFileSize, formatHex, formatPercent, formatSignedCount, parseBytes } from '../../../../src/engine/text/format';

const MiB = 1024 ** 2;
const GiB = 1024 ** 3;

describe('writing numbers', () => {
  it('bytes in binary units, one decimal; two from a GiB on where a difference must show; an axis label without trailing zeros', () => {
    assert.equal(formatBytes(512), '512 B');
    assert.equal(formatBytes(1536), '1.5 KiB');
    assert.equal(formatBytes(1.25 * GiB), '1.3 GiB');
    assert.equal(formatBytes(-512 * MiB), '-512.0 MiB');
    assert.equal(formatBytesFine(1.25 * GiB), '1.25 GiB');
    assert.equal(formatBytesFine(20 * MiB), '20.0 MiB');
    assert.equal(formatBytesFine(100), '100 B');
    assert.equal(formatAxisBytes(0), '0');
    assert.equal(formatAxisBytes(768 * MiB), '768 MiB');
    assert.equal(formatAxisBytes(1.25 * GiB), '1.25 GiB');
    assert.equal(formatDelta(2 * GiB), '+2.0 GiB');
    assert.equal(formatDelta(-512 * MiB), '-512.0 MiB');
  });

  it("a file's size in decimal units, as file managers show it", () => {
    assert.equal(formatFileSize(2_300_000_000), '2.3 GB');
    assert.equal(formatFileSize(509_000_000), '509.0 MB');
    assert.equal(formatFileSize(1500), '1.5 kB');
    assert.equal(formatFileSize(999), '999 bytes');
  });

  it('groups a count\'s digits exactly as toLocaleString(\'en-US\') does, without starting ICU', () => {
    const values = [0, -0, 0.4, -0.4, 0.5, -0.5, 1, 12, 123, 999, 1000, 1001, 99_999, 100_000, 123_456.5, -1_000_000, 2 ** 31, 2 ** 53, -(2 ** 53),
      9.99e20, 1e21, -1e21, 1.5e300, NaN, Infinity, -Infinity];
    let seed = 12345;
    for (let i = 0; i < 2000; i++) {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      values.push((seed / 2 ** 31 - 0.5) * 10 ** (i % 22));
    }
    for (const v of values) assert.equal(formatCount(v), Math.round(v).toLocaleString('en-US'), String(v));
  });

  it('counts with separators, signed changes, shares and addresses', () => {
    assert.equal(formatCount(400_000_000), '400,000,000');
    assert.equal(formatCount(19_464), '19,464');
    assert.equal(formatCount(7), '7');
    assert.equal(formatSignedCount(3), '+3');
    assert.equal(formatSignedCount(-2), '-2');
    assert.equal(formatSignedCount(0), '0');
    assert.equal(formatSignedCount(8410), '+8,410');
    assert.equal(formatSignedCount(-12345), '-12,345');
    assert.equal(formatPercent(1, 3), '33%');
    assert.equal(formatPercent(1, 200), '0.5%');
    assert.equal(formatHex(0x7f3a00000000), '0x7f3a00000000');
    assert.equal(formatHex(512), '0x200');
  });

  it('reads bytes as people write them', () => {
    assert.equal(parseBytes('12GiB'), 12 * GiB);
    assert.equal(parseBytes('12 GB'), 12e9);
    assert.equal(parseBytes('1.5G'), 1.5 * GiB);
    assert.equal(parseBytes('twelve'), undefined);
  });
});
