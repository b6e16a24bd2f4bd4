/**
 * Profile VRAM: the command (palette, editor title, code lens), the Runs view, the samples, and the
 * retention of old runs. The run itself is `Profiler`'s.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { BOOTSTRAP_ENTRY, isPredictData } from '../../runtime/profile/command';
import type { ProfileConfiguration } from '../../runtime/profile/configuration';
import { describeTarget, fileConfiguration, targetFile } from '../../runtime/profile/configuration';
import type { RunRecord } from '../../runtime/profile/history';
import { Commands } from '../shared/commandIds';
import { profileSettings } from './settings';
import type { Services } from '../shared/services';
import { ProfileCodeLensProvider } from './codeLens';
import { configurationForFile, readConfigurations } from './configurations';
import type { ProfileResult } from './profiler';
import { Profiler, revealFile } from './profiler';
import { RunHistory } from './runHistory';
import type { RunNode } from './runsView';
import { RunsTreeProvider } from './runsView';
import { openSample } from './samples';
import { pickGpu } from './gpuPicker';
import type { GpuModel } from '../../engine/predict/gpus';
import { notificationText } from '../../engine/text/plainText';
import { errorMessage } from '../../engine/base/errors';

export function profileFeature(services: Services): void {
  const { context, log } = services;
  const history = new RunHistory(context.globalState, vscode.Uri.joinPath(context.globalStorageUri, 'runs').fsPath);
  const output = vscode.window.createOutputChannel('VRAM Lens: Program');
  const bootstrap = vscode.Uri.joinPath(context.extensionUri, ...BOOTSTRAP_ENTRY).fsPath;
  const profiler = new Profiler(services, history, output, bootstrap);
  const runs = new RunsTreeProvider(history, services.store);
  const lenses = new ProfileCodeLensProvider();

  void history.prune(Date.now(), profileSettings().keepRunsDays).then(
    (n) => n > 0 && log.info(`Deleted ${n} profiled run(s) older than vramLens.profile.keepRunsDays.`),
    (e: unknown) => log.warn(`Could not delete old runs: ${errorMessage(e)}`),
  );

  const runOf = (arg: RunNode | string | undefined): RunRecord | undefined =>
    typeof arg === 'string' ? history.get(arg) : arg?.run;

  context.subscriptions.push(
    history,
    output,
    profiler,
    runs,
    lenses,
    vscode.window.registerTreeDataProvider('vramLens.runs', runs),
    vscode.languages.registerCodeLensProvider({ language: 'python', scheme: 'file' }, lenses),
    vscode.commands.registerCommand(Commands.profile, async (arg?: unknown): Promise<ProfileResult | undefined> => {
      const target = await chooseConfiguration(arg instanceof vscode.Uri ? arg : undefined, log);
      if (!target) return undefined;
      return profiler.profile(target.configuration, target.resource);
    }),
    vscode.commands.registerCommand(Commands.predict, async (arg?: unknown): Promise<ProfileResult | undefined> => {
      const target = await chooseConfiguration(arg instanceof vscode.Uri ? arg : undefined, log, 'predict');
      if (!target) return undefined;
      const gpu = await pickGpu(context.workspaceState);
      if (!gpu) return undefined;
      return profiler.profile(target.configuration, target.resource, gpu);
    }),
    vscode.commands.registerCommand(Commands.predictRun, async (arg?: RunNode | string): Promise<ProfileResult | undefined> => {
      const run = runOf(arg);
      if (!run) return undefined;
      const gpu = await pickGpu(context.workspaceState);
      if (!gpu) return undefined;
      const file = targetFile(run.configuration);
      return profiler.profile(run.configuration, file !== undefined ? vscode.Uri.file(file) : undefined, gpu);
    }),
    vscode.commands.registerCommand(Commands.cancelProfile, () => profiler.cancel()),
    vscode.commands.registerCommand(Commands.showProfileOutput, () => output.show()),
    vscode.commands.registerCommand(Commands.openSample, (which?: string) => openSample(context.extensionUri, services.resolver, which)),
    vscode.commands.registerCommand(Commands.loadRun, async (arg?: RunNode | string) => {
      const run = runOf(arg);
      if (!run) return undefined;
      const file = typeof arg === 'object' && arg.kind === 'snapshot' ? arg.file : run.snapshots[0];
      return file ? profiler.load(run, file) : undefined;
    }),
    vscode.commands.registerCommand(Commands.revealRunSnapshot, async (arg?: RunNode | string) => {
      const run = runOf(arg);
      const file = typeof arg === 'object' && arg.kind === 'snapshot' ? arg.file : run?.snapshots[0];
      if (file) await revealFile(file.path);
    }),
    vscode.commands.registerCommand(Commands.runAgain, async (arg?: RunNode | string, data?: unknown) => {
      const run = runOf(arg);
      if (!run) return undefined;
      const c = run.configuration;
      const file = targetFile(c);
      // A prediction runs again as a prediction for the same GPU, on the same data unless asked ('cpu': the program's data).
      const p = run.predicted;
      const gpu: GpuModel | undefined = p && { id: p.gpu.toLowerCase().replace(/\s+/g, '-'), name: p.gpu, memoryBytes: p.memoryBytes, capability: p.capability };
      const asked = isPredictData(data) ? data : p?.data;
      return profiler.profile(c, file !== undefined ? vscode.Uri.file(file) : undefined, gpu, gpu ? asked : undefined);
    }),
    vscode.commands.registerCommand(Commands.deleteRun, async (arg?: RunNode | string) => {
      const run = runOf(arg);
      if (!run) return;
      const ok = await vscode.window.showWarningMessage(
        `Delete the run of ${notificationText(run.configuration.name)} from ${new Date(run.startedAt).toLocaleString()} and its snapshot files?`,
        { modal: true },
        'Delete',
      );
      if (ok === 'Delete') await history.delete(run.id);
    }),
  );
}

interface Target {
  readonly configuration: ProfileConfiguration;
  readonly resource: vscode.Uri | undefined;
}

/**
 * From the editor title or a lens (a file given): the configuration that runs that file, else the file
 * with no arguments. From the palette: the active Python file, or a pick among the configurations.
 */
async function chooseConfiguration(file: vscode.Uri | undefined, log: vscode.LogOutputChannel, verb: 'profile' | 'predict' = 'profile'): Promise<Target | undefined> {
  const editor = vscode.window.activeTextEditor?.document;
  // The active Python file, or the active notebook (its cells' editors are not files: the notebook is).
  const notebook = vscode.window.activeNotebookEditor?.notebook.uri;
  const activeFile =
    editor?.languageId === 'python' && editor.uri.scheme === 'file'
      ? editor.uri
      : notebook?.scheme === 'file' && notebook.path.toLowerCase().endsWith('.ipynb')
        ? notebook
        : undefined;
  const list = readConfigurations(file ?? activeFile);
  for (const problem of list.problems) log.warn(`Profile configuration skipped: ${problem}`);
  if (file) {
    if (file.scheme !== 'file') {
      void vscode.window.showWarningMessage(`VRAM Lens: save the file to disk before ${verb === 'predict' ? 'predicting' : 'profiling'} it.`);
      return undefined;
    }
    return { configuration: configurationForFile(list.configurations, file) ?? fileConfiguration(file.fsPath), resource: file };
  }
  if (list.configurations.length === 0) {
    if (activeFile) return { configuration: fileConfiguration(activeFile.fsPath), resource: activeFile };
    void vscode.window.showWarningMessage(
      `VRAM Lens: open a Python file to ${verb}, or describe a run in vramLens.profile.configurations (or launch.json).`,
    );
    return undefined;
  }
  type Item = vscode.QuickPickItem & { target?: Target };
  const items: Item[] = [];
  if (activeFile) {
    items.push({
      label: `$(file) ${path.basename(activeFile.fsPath)}`,
      description: 'the active file, no arguments',
      target: { configuration: fileConfiguration(activeFile.fsPath), resource: activeFile },
    });
  }
  for (const configuration of list.configurations) {
    const file = targetFile(configuration);
    const resource = file !== undefined ? vscode.Uri.file(file) : activeFile;
    items.push({
      label: `$(gear) ${configuration.name}`,
      description: configuration.source,
      detail: describeTarget(configuration),
      target: { configuration, resource },
    });
  }
  const picked = await vscode.window.showQuickPick(items, { title: `VRAM Lens: what to ${verb}?`, matchOnDetail: true });
  return picked?.target;
}
