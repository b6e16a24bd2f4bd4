/**
 * Where `vramLens.pythonPath` must be set to apply: in a remote window (SSH, WSL, containers,
 * code-server) the remote machine's settings, since a user setting of the local machine does not reach
 * the remote extension host (the setting is `machine-overridable`); with a folder open, the workspace's
 * settings; otherwise the user's. Free of `vscode` so it is unit-tested in plain Node.
 */
export const PYTHON_PATH_SETTING = 'vramLens.pythonPath';

export interface SettingsTarget {
  /** The workbench command that opens the settings editor in that scope. */
  readonly command: 'workbench.action.openRemoteSettings' | 'workbench.action.openWorkspaceSettings' | 'workbench.action.openSettings';
  readonly args: { readonly query: string };
  /** Words for messages: "the remote settings (ssh-remote)". */
  readonly scope: string;
}

export function pythonPathSettingsTarget(remoteName: string | undefined, hasWorkspace: boolean): SettingsTarget {
  const args = { query: PYTHON_PATH_SETTING };
  if (remoteName) return { command: 'workbench.action.openRemoteSettings', args, scope: `the remote settings (${remoteName})` };
  if (hasWorkspace) return { command: 'workbench.action.openWorkspaceSettings', args, scope: 'the workspace settings' };
  return { command: 'workbench.action.openSettings', args, scope: 'the user settings' };
}
