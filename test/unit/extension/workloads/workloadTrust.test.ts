/** Commands that run code need a trusted workspace: Profile VRAM, Run Built-in Workload, Profile ONNX Model. */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import { repoRoot } from '../../../helpers/corpus';

interface Manifest {
  contributes: { commands: { command: string; enablement?: string }[] };
  capabilities: { untrustedWorkspaces: { supported: string | boolean } };
}

describe('workspace trust', () => {
  const manifest = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as Manifest;

  it('the commands that run code are enabled only in a trusted workspace', () => {
    for (const id of ['vramLens.profile', 'vramLens.runWorkload', 'vramLens.profileOnnx']) {
      const command = manifest.contributes.commands.find((c) => c.command === id);
      assert.ok(command, id);
      assert.equal(command.enablement, 'isWorkspaceTrusted', id);
    }
    assert.equal(manifest.capabilities.untrustedWorkspaces.supported, 'limited');
  });

  it('both workload commands check trust themselves too (a command run by id bypasses enablement)', () => {
    const source = readFileSync(path.join(repoRoot, 'src', 'extension', 'workloads', 'feature.ts'), 'utf8');
    for (const fn of ['runBuiltin', 'profileModel']) {
      const body = source.slice(source.indexOf(`async function ${fn}(`));
      const firstStatement = body.slice(body.indexOf('{') + 1).trim().split('\n')[0];
      assert.match(firstStatement, /^if \(!workspaceTrusted\('/, fn);
    }
  });
});
