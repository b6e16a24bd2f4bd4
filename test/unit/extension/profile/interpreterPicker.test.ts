/** The interpreter picker's setting scope and the run notification's first sentence (issue 12 item 6). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pythonPathSettingsTarget } from '../../../../src/extension/profile/interpreterSetting';
import { outcomeText } from '../../../../src/extension/profile/outcomeText';

describe('vramLens.pythonPath settings scope', () => {
  it('opens the remote settings in a remote window, where a local user setting would not apply', () => {
    const t = pythonPathSettingsTarget('ssh-remote', true);
    assert.equal(t.command, 'workbench.action.openRemoteSettings');
    assert.deepEqual(t.args, { query: 'vramLens.pythonPath' });
  });

  it('opens the workspace settings with a folder open, the user settings without', () => {
    assert.equal(pythonPathSettingsTarget(undefined, true).command, 'workbench.action.openWorkspaceSettings');
    assert.equal(pythonPathSettingsTarget('', false).command, 'workbench.action.openSettings');
  });
});

describe('outcomeText', () => {
  it('does not glue a sentence headline to the name, and ends with one full stop', () => {
    assert.equal(
      outcomeText('benchmark.py', { kind: 'environment', headline: 'PyTorch is not installed for /usr/bin/python3.' }),
      'benchmark.py could not be profiled: PyTorch is not installed for /usr/bin/python3.',
    );
    assert.equal(
      outcomeText('train.py', { kind: 'failed-to-start', headline: 'the interpreter python3 was not found' }),
      'train.py could not be profiled: the interpreter python3 was not found.',
    );
  });

  it('reads a run that ran as the name followed by what happened', () => {
    assert.equal(outcomeText('train.py', { kind: 'completed', headline: 'completed' }), 'train.py completed.');
    assert.equal(outcomeText('train.py', { kind: 'oom', headline: 'ran out of GPU memory' }), 'train.py ran out of GPU memory.');
  });
});
