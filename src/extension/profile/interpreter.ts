/**
 * Which Python runs the profiled program: a configuration's own `python`, then `vramLens.pythonPath`,
 * then the interpreter the Python extension has selected (through its public API, read with a minimal
 * typed view of `ms-python.python`'s exports), then `python.defaultInterpreterPath`, then `python3`.
 */
import * as vscode from 'vscode';
import { errorMessage } from '../../engine/base/errors';
import { setting } from '../shared/config';
import { PYTHON_PATH_SETTING, pythonPathSettingsTarget } from './interpreterSetting';

export interface Interpreter {
  /** Executable and any arguments that must come before the script. */
  readonly command: readonly string[];
  readonly source: 'configuration' | 'vramLens.pythonPath' | 'Python extension' | 'python.defaultInterpreterPath' | 'default';
}

/** The part of the Python extension's API (`@vscode/python-extension`) read here. */
interface PythonExtensionApi {
  readonly ready?: Promise<void>;
  readonly environments?: {
    getActiveEnvironmentPath(resource?: vscode.Uri): { readonly id: string; readonly path: string };
    resolveEnvironment(
      environment: { readonly id: string; readonly path: string } | string,
    ): Promise<{ readonly executable: { readonly uri?: vscode.Uri } } | undefined>;
  };
  readonly settings?: {
    getExecutionDetails(resource?: vscode.Uri): { readonly execCommand: readonly string[] | undefined };
  };
}

const PYTHON_EXTENSION = 'ms-python.python';

async function fromPythonExtension(resource: vscode.Uri | undefined, log: vscode.LogOutputChannel): Promise<string[] | undefined> {
  const extension = vscode.extensions.getExtension<PythonExtensionApi>(PYTHON_EXTENSION);
  if (!extension) return undefined;
  try {
    const api = extension.isActive ? extension.exports : await extension.activate();
    await api?.ready;
    const environments = api?.environments;
    if (environments) {
      const active = environments.getActiveEnvironmentPath(resource);
      const resolved = await environments.resolveEnvironment(active);
      const executable = resolved?.executable.uri?.fsPath;
      if (executable) return [executable];
    }
    const command = api?.settings?.getExecutionDetails(resource).execCommand;
    if (command && command.length > 0 && command[0] !== '') return [...command];
  } catch (e) {
    log.warn(`The Python extension did not give an interpreter: ${errorMessage(e)}`);
  }
  return undefined;
}

export async function resolveInterpreter(
  resource: vscode.Uri | undefined,
  configured: string | undefined,
  log: vscode.LogOutputChannel,
): Promise<Interpreter> {
  if (configured) return { command: [configured], source: 'configuration' };
  const own = setting<string>('pythonPath', '').trim();
  if (own !== '') return { command: [own], source: 'vramLens.pythonPath' };
  const selected = await fromPythonExtension(resource, log);
  if (selected) return { command: selected, source: 'Python extension' };
  const fallback = vscode.workspace.getConfiguration('python', resource).get<string>('defaultInterpreterPath', '').trim();
  if (fallback !== '' && fallback !== 'python') return { command: [fallback], source: 'python.defaultInterpreterPath' };
  return { command: [process.platform === 'win32' ? 'python' : 'python3'], source: 'default' };
}

/**
 * The `Select Interpreter` action: the Python extension's picker where it is installed, else the
 * settings editor on `vramLens.pythonPath` in the scope where it applies (remote, workspace or user).
 */
export async function selectInterpreter(log: vscode.LogOutputChannel): Promise<void> {
  if (vscode.extensions.getExtension(PYTHON_EXTENSION)) {
    try {
      await vscode.commands.executeCommand('python.setInterpreter');
      return;
    } catch (e) {
      log.warn(`Python: Select Interpreter failed: ${errorMessage(e)}`);
    }
  }
  const target = pythonPathSettingsTarget(vscode.env.remoteName, (vscode.workspace.workspaceFolders?.length ?? 0) > 0);
  log.info(`Opening ${PYTHON_PATH_SETTING} in ${target.scope}.`);
  await vscode.commands.executeCommand(target.command, target.args);
}
