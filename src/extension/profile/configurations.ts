/**
 * The run configurations the user can pick: `vramLens.profile.configurations` and (unless turned off)
 * the Python entries of launch.json, with VS Code's variables resolved for the file at hand.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ProfileConfiguration, VariableValues } from '../../runtime/profile/configuration';
import { ConfigurationError, fromLaunchEntry, fromSettingsEntry } from '../../runtime/profile/configuration';
import { profileSettings } from './settings';

export function variableValues(file: vscode.Uri | undefined): VariableValues {
  const folder = (file && vscode.workspace.getWorkspaceFolder(file)) ?? vscode.workspace.workspaceFolders?.[0];
  const folders: Record<string, string> = {};
  for (const f of vscode.workspace.workspaceFolders ?? []) folders[f.name] = f.uri.fsPath;
  return {
    workspaceFolder: folder?.uri.fsPath,
    workspaceFolderBasename: folder?.name,
    file: file?.scheme === 'file' ? file.fsPath : undefined,
    userHome: os.homedir(),
    pathSeparator: path.sep,
    env: process.env,
    folders,
  };
}

export interface ConfigurationList {
  readonly configurations: ProfileConfiguration[];
  /** Entries that could not be read, with why (shown in the log, not thrown at the user). */
  readonly problems: string[];
}

export function readConfigurations(file: vscode.Uri | undefined): ConfigurationList {
  const values = variableValues(file);
  const configurations: ProfileConfiguration[] = [];
  const problems: string[] = [];
  const attempt = (what: string, read: () => ProfileConfiguration | undefined) => {
    try {
      const c = read();
      if (c) configurations.push(c);
    } catch (e) {
      if (!(e instanceof ConfigurationError)) throw e;
      problems.push(`${what}: ${e.message}`);
    }
  };
  const settings = profileSettings();
  settings.configurations.forEach((entry, i) => attempt(`vramLens.profile.configurations[${i}]`, () => fromSettingsEntry(entry, values)));
  if (settings.useLaunchConfigurations) {
    const folder = (file && vscode.workspace.getWorkspaceFolder(file)) ?? vscode.workspace.workspaceFolders?.[0];
    const launch = vscode.workspace.getConfiguration('launch', folder?.uri).get<unknown[]>('configurations', []);
    launch.forEach((entry, i) => attempt(`launch.json configuration ${i + 1}`, () => fromLaunchEntry(entry, values)));
  }
  return { configurations, problems };
}

/** A configuration that runs exactly this file, if there is one (the first wins). */
export function configurationForFile(list: readonly ProfileConfiguration[], file: vscode.Uri): ProfileConfiguration | undefined {
  const wanted = path.normalize(file.fsPath);
  return list.find((c) => c.target.kind !== 'module' && path.normalize(c.target.path) === wanted);
}
