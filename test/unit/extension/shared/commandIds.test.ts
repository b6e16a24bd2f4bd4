/** package.json contributes exactly the commands of `Commands`, and its menus name only those. */
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { Commands } from '../../../../src/extension/shared/commandIds';
import { repoRoot } from '../../../helpers/corpus';

interface Manifest {
  contributes: {
    commands: { command: string }[];
    menus?: Record<string, { command?: string; submenu?: string }[]>;
    keybindings?: { command: string }[];
  };
}

const manifest = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as Manifest;
const ids = Object.values(Commands) as string[];

describe('Commands and package.json', () => {
  it('contribute the same command ids, each once', () => {
    const contributed = manifest.contributes.commands.map((c) => c.command);
    assert.equal(new Set(contributed).size, contributed.length, 'a command is contributed twice');
    assert.deepEqual([...contributed].sort(), [...ids].sort());
  });

  it('menus and keybindings name only known commands', () => {
    const known = new Set(ids);
    const named = [
      ...Object.values(manifest.contributes.menus ?? {}).flatMap((items) => items.flatMap((i) => (i.command ? [i.command] : []))),
      ...(manifest.contributes.keybindings ?? []).map((k) => k.command),
    ];
    assert.ok(named.length > 0, 'the manifest has menus');
    assert.deepEqual(named.filter((c) => !known.has(c)), []);
  });
});
