/** The typed reader of `vramLens.profile.*`: its defaults and minimums are package.json's, and bad values fall back. */
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { DRAIN_MS, PROFILE_DEFAULTS, PROFILE_MINIMUMS, readProfileSettings, recordingOptions, runTimeouts } from '../../../../src/extension/profile/profileSettings';
import { repoRoot } from '../../../helpers/corpus';

interface Property {
  default?: unknown;
  minimum?: number;
}
const manifest = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as {
  contributes: { configuration: { properties: Record<string, Property> } };
};
const properties = manifest.contributes.configuration.properties;

describe('profile settings', () => {
  it("default to package.json's defaults", () => {
    for (const [key, value] of Object.entries(PROFILE_DEFAULTS)) {
      assert.deepEqual(value, properties[`vramLens.profile.${key}`]?.default, key);
    }
  });

  it('cover every vramLens.profile.* setting of package.json, and only those', () => {
    const declared = Object.keys(properties).filter((k) => k.startsWith('vramLens.profile.')).map((k) => k.slice('vramLens.profile.'.length));
    assert.deepEqual(Object.keys(PROFILE_DEFAULTS).sort(), declared.sort());
  });

  it("clamp to package.json's minimums", () => {
    for (const [key, value] of Object.entries(PROFILE_MINIMUMS)) {
      assert.equal(value, properties[`vramLens.profile.${key}`]?.minimum, key);
    }
  });

  it('read what is set, and fall back on what is malformed', () => {
    const set: Record<string, unknown> = { maxEntries: 5000.7, stacks: 'all', sampleIntervalMs: 3, env: { A: '1', B: null }, dumpGraceSeconds: 'soon' };
    const s = readProfileSettings((key) => set[key]);
    assert.equal(s.maxEntries, 5000);
    assert.equal(s.stacks, 'all');
    assert.equal(s.sampleIntervalMs, 50, 'raised to the minimum');
    assert.deepEqual(s.env, { A: '1', B: null });
    assert.equal(s.dumpGraceSeconds, 300, 'not a number: the default');
    assert.deepEqual(readProfileSettings(() => undefined), PROFILE_DEFAULTS);
    assert.deepEqual(readProfileSettings((key) => (key === 'env' ? { A: 1 } : key === 'stacks' ? 'cpp' : undefined)).env, {});
    const other = readProfileSettings((key) => ({ codeLens: 'fileTop', configurations: [{ name: 'a' }], useLaunchConfigurations: false, backwardLines: 'no' })[key as string]);
    assert.deepEqual([other.codeLens, other.configurations, other.useLaunchConfigurations, other.backwardLines], ['fileTop', [{ name: 'a' }], false, true]);
    const wrong = readProfileSettings((key) => ({ codeLens: 'bottom', configurations: { name: 'a' } })[key as string]);
    assert.deepEqual([wrong.codeLens, wrong.configurations], ['mainGuard', []]);
  });

  it('give a run its recording options and timeouts in the units the runner takes', () => {
    const s = readProfileSettings((key) => ({ cancelGraceSeconds: 2.5, dumpGraceSeconds: 90, stacks: 'all' })[key as string]);
    assert.deepEqual(recordingOptions(s), { maxEntries: 1_000_000, stacks: 'all', sampleIntervalMs: 250, backwardLines: true });
    assert.deepEqual(runTimeouts(s), { graceMs: 2500, dumpGraceMs: 90_000, drainMs: DRAIN_MS });
  });
});
