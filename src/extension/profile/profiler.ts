/**
 * One profiled run at a time, from start to annotated result: resolves the interpreter, starts the
 * bootstrap through the runner, shows the program's output and live memory (progress notification and
 * status bar), then loads the snapshot into the store, records the run and says how it ended.
 */
import { existsSync, mkdirSync, statSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { formatBytes } from '../../engine/text/format';
import type { PredictData, ProfileCommand, RecordingOptions } from '../../runtime/profile/command';
import { buildProfileCommand, rankSnapshotPath } from '../../runtime/profile/command';
import type { ProfileConfiguration } from '../../runtime/profile/configuration';
import { describeTarget } from '../../runtime/profile/configuration';
import type { RunRecord, RunSnapshotFile } from '../../runtime/profile/history';
import { newRunId } from '../../runtime/profile/history';
import type { LiveMemory } from '../../runtime/profile/live';
import type { RunOutcome } from '../../runtime/profile/outcome';
import { classifyOutcome } from '../../runtime/profile/outcome';
import type { ProfileRecord } from '../../protocol/profile';
import type { RunResult, RunTimeouts } from '../../runtime/profile/runner';
import { ProfileRun, channelAddress } from '../../runtime/profile/runner';
import { Commands } from '../shared/commandIds';
import { profileSettings } from './settings';
import { DisposableOwner } from '../shared/disposables';
import type { Services } from '../shared/services';
import type { LoadedSnapshot } from '../shared/snapshotStore';
import type { Interpreter } from './interpreter';
import { resolveInterpreter, selectInterpreter } from './interpreter';
import { recordingOptions, runTimeouts } from './profileSettings';
import { outcomeText } from './outcomeText';
import { RunProgress } from './runProgress';
import type { RunHistory } from './runHistory';
import { notificationText } from '../../engine/text/plainText';
import { errorMessage, userMessage } from '../../engine/base/errors';
import { snapshotLoadMessage } from '../../engine/decode/errors';
import type { GpuModel } from '../../engine/predict/gpus';
import { placeDumpedFiles } from '../../runtime/predict/predictRun';
import { realDataMemoryWarning } from './realDataMemory';

/** The action that predicts again on the program's data (vramLens.profile.predictData 'cpu', for this run). */
const PREDICT_WITH_DATA = 'Predict with Real Data';

/** What `vramLens.profile` resolves to (tests read it; the UI does not need it). */
export interface ProfileResult {
  readonly run: RunRecord;
  readonly outcome: RunOutcome;
  readonly snapshot: LoadedSnapshot | undefined;
}

interface ActiveRun {
  readonly run: ProfileRun;
  readonly name: string;
}

/** A run ready to start: its id and folder, the configuration as the settings complete it, and the command. */
interface PreparedRun {
  readonly id: string;
  readonly folder: string;
  readonly cwd: string;
  readonly interpreter: Interpreter;
  readonly configuration: ProfileConfiguration;
  readonly recording: RecordingOptions;
  readonly timeouts: RunTimeouts;
  readonly command: ProfileCommand;
  readonly channel: string;
  readonly cancelFile: string;
  /** Where the bootstrap writes the snapshot (one per rank beside it for a torchrun job). */
  readonly snapshot: string;
}

/** What a run that ended left: the runner's result and what its records said. */
interface RanProgram {
  readonly result: RunResult;
  readonly startedAt: number;
  readonly live: LiveMemory;
  readonly torch: string | undefined;
}

export class Profiler extends DisposableOwner {
  private current: ActiveRun | undefined;
  private readonly statusBar: vscode.StatusBarItem;
  private readonly contextKey = 'vramLens.profiling';

  constructor(
    private readonly services: Services,
    private readonly history: RunHistory,
    /** The program's stdout and stderr. */
    readonly output: vscode.OutputChannel,
    private readonly bootstrap: string,
  ) {
    super();
    this.statusBar = this.own(vscode.window.createStatusBarItem('vramLens.profile', vscode.StatusBarAlignment.Left, 50));
    this.statusBar.name = 'VRAM Lens: Profiling';
    this.statusBar.command = Commands.showProfileOutput;
  }

  cancel(): void {
    this.current?.run.cancel();
  }

  /**
   * Profiles one run: checks it may start, resolves the interpreter and the configuration, prepares the
   * run's folder and command, runs it with progress, then records the run and loads its snapshot.
   */
  async profile(configuration: ProfileConfiguration, resource: vscode.Uri | undefined, predictFor?: GpuModel, data?: PredictData): Promise<ProfileResult | undefined> {
    if (!(await this.mayStart(configuration))) return undefined;
    const prepared = await this.prepare(configuration, resource, predictFor, data);
    if (!prepared) return undefined;
    const ran = await this.runWithProgress(prepared);
    if (!ran) {
      void vscode.window.showErrorMessage(`VRAM Lens: could not run ${notificationText(prepared.configuration.name)} (see the VRAM Lens log).`);
      return undefined;
    }
    return this.loadResult(prepared, ran);
  }

  /** A run needs a trusted workspace and no other run in progress (the user may cancel that one). */
  private async mayStart(configuration: ProfileConfiguration): Promise<boolean> {
    if (!vscode.workspace.isTrusted) {
      void vscode.window.showWarningMessage('VRAM Lens: Profile VRAM runs your program, so it needs a trusted workspace.', 'Manage Workspace Trust').then((a) => {
        if (a) void vscode.commands.executeCommand('workbench.trust.manage');
      });
      return false;
    }
    if (this.current) {
      const choice = await vscode.window.showWarningMessage(`VRAM Lens is already profiling ${this.current.name}.`, 'Cancel That Run', 'Show Output');
      if (choice === 'Cancel That Run') this.cancel();
      if (choice === 'Show Output') this.output.show(true);
      return false;
    }
    if (configuration.target.kind === 'script') await saveIfDirty(configuration.target.path);
    // A notebook runs as saved: its cells as the editor has them now.
    if (configuration.target.kind === 'notebook') await saveNotebookIfDirty(configuration.target.path);
    return true;
  }

  /** The interpreter, the settings applied to the configuration, the run's folder and its command (undefined: refused, said why). */
  private async prepare(configuration: ProfileConfiguration, resource: vscode.Uri | undefined, predictFor: GpuModel | undefined, data: PredictData | undefined): Promise<PreparedRun | undefined> {
    const interpreter = await resolveInterpreter(resource, configuration.python, this.services.log);
    const settings = profileSettings();
    const nproc = configuration.nprocPerNode ?? settings.nprocPerNode;
    const effective: ProfileConfiguration = { ...configuration, nprocPerNode: nproc > 1 ? nproc : undefined };
    const id = newRunId(new Date());
    const folder = this.history.folderFor(id);
    const cwd = configuration.cwd ?? defaultCwd(configuration, resource);
    // A prediction caches the native piece it builds once per PyTorch in the extension's storage, outside every project.
    const predict = predictFor && {
      gpuName: predictFor.name,
      memoryBytes: predictFor.memoryBytes,
      capability: predictFor.capability,
      // VRAM_LENS_NATIVE_CACHE: a cache shared with the CLI or other profiles (the UI tests use the test suites' one).
      nativeCache: process.env.VRAM_LENS_NATIVE_CACHE ?? path.join(this.services.context.globalStorageUri.fsPath, 'predict'),
      // The program's data on the CPU: asked for once (data), else vramLens.profile.predictData.
      data: data ?? settings.predictData,
    };
    const recording = { ...recordingOptions(settings), ...(predict ? { predict } : {}) };
    const channel = channelAddress(id);
    const cancelFile = path.join(folder, 'cancel');
    const snapshot = path.join(folder, 'snapshot.pickle');
    let command: ProfileCommand;
    try {
      // The settings' environment goes into the command, not the recorded run: Run Again reads the settings anew.
      const env = { ...settings.env, ...effective.env };
      command = buildProfileCommand({ ...effective, env }, cwd, recording, { interpreter: interpreter.command, bootstrap: this.bootstrap, snapshot, channel, cancelFile }, process.env);
    } catch (e) {
      void vscode.window.showErrorMessage(`VRAM Lens: ${notificationText(userMessage(e))}`);
      return undefined;
    }
    mkdirSync(folder, { recursive: true });
    return { id, folder, cwd, interpreter, configuration: effective, recording, timeouts: runTimeouts(settings), command, channel, cancelFile, snapshot };
  }

  /** Runs the prepared command, showing its output and live memory; undefined when it could not run. */
  private async runWithProgress(prepared: PreparedRun): Promise<RanProgram | undefined> {
    const { id, configuration, interpreter, cwd, command } = prepared;
    const log = this.services.log;
    this.output.clear();
    this.output.appendLine(`▶ ${describeTarget(configuration)}  (interpreter: ${interpreter.command.join(' ')} from ${interpreter.source}; folder: ${cwd})`);
    this.output.show(true);
    log.info(`profile ${id}: ${command.command} ${command.args.join(' ')} (cwd ${cwd})`);

    const startedAt = Date.now();
    const progressState = new RunProgress();
    return vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: prepared.recording.predict
          ? `VRAM Lens: predicting ${notificationText(configuration.name)} for ${notificationText(prepared.recording.predict.gpuName)}`
          : `VRAM Lens: profiling ${notificationText(configuration.name)}`,
        cancellable: true,
      },
      async (progress, token) => {
        const refresh = () => {
          const text = progressState.text();
          progress.report({ message: text });
          this.statusBar.text = progressState.statusText();
          this.statusBar.tooltip = `VRAM Lens is profiling ${configuration.name}: ${text}. Click to see the program's output.`;
        };
        const onRecord = (record: ProfileRecord) => {
          if (record.type === 'notice') this.output.appendLine(`[VRAM Lens] ${record.message}`);
          else if (progressState.apply(record)) refresh();
        };
        const run = new ProfileRun(command, prepared.channel, prepared.cancelFile, prepared.timeouts, {
          onStdout: (t) => this.output.append(t),
          onStderr: (t) => this.output.append(t),
          onRecord,
        });
        this.current = { run, name: configuration.name };
        void vscode.commands.executeCommand('setContext', this.contextKey, true);
        refresh();
        this.statusBar.show();
        const subscription = token.onCancellationRequested(() => {
          progressState.cancelling();
          refresh();
          run.cancel();
        });
        try {
          const result = await run.done;
          return { result, startedAt, live: progressState.live, torch: progressState.torch };
        } catch (e) {
          log.error(`profile ${id}: ${errorMessage(e)}`);
          return undefined;
        } finally {
          subscription.dispose();
          this.current = undefined;
          this.statusBar.hide();
          void vscode.commands.executeCommand('setContext', this.contextKey, false);
        }
      },
    );
  }

  /** Records how the run ended, loads its snapshot (the user picks a rank when there are several) and says so. */
  private async loadResult(prepared: PreparedRun, ran: RanProgram): Promise<ProfileResult> {
    const { result, live } = ran;
    const { configuration } = prepared;
    const outcome = classifyOutcome(result);
    this.output.appendLine(`■ ${configuration.name} ${outcome.headline}${exitText(result)} after ${(result.durationMs / 1000).toFixed(1)} s`);
    const predict = prepared.recording.predict;
    if (predict) {
      // The bootstrap's provisional files, placed on the GPU by the caching allocator's replay before they are read.
      const { files, failures } = await placeDumpedFiles(result.records);
      for (const f of files) {
        const p = f.placement;
        this.output.appendLine(`[VRAM Lens] ${f.path}: ${p.fits ? `fits ${predict.gpuName}, peak reserved ${formatBytes(p.peakReservedBytes)}` : `does not fit ${predict.gpuName}: it needs ${formatBytes(p.neededReservedBytes)} reserved`}`);
      }
      for (const f of failures) {
        this.services.log.error(`placing the prediction ${f.path}: ${f.message}`);
        this.output.appendLine(`[VRAM Lens] ${f.path}: the prediction could not be placed on the GPU (${f.message})`);
      }
    }
    const snapshots = snapshotFiles(result, prepared.snapshot, configuration.nprocPerNode ?? 1);
    let run: RunRecord = {
      id: prepared.id,
      startedAt: ran.startedAt,
      endedAt: Date.now(),
      configuration,
      cwd: prepared.cwd,
      interpreter: prepared.interpreter.command,
      folder: prepared.folder,
      outcome: { kind: outcome.kind, headline: outcome.headline, exitCode: result.exitCode },
      peakBytes: live.summary.peakAllocated > 0 ? live.summary.peakAllocated : undefined,
      snapshots,
      recording: { maxEntries: prepared.recording.maxEntries, stacks: prepared.recording.stacks },
      torch: ran.torch,
      ...(predict ? { predicted: { gpu: predict.gpuName, memoryBytes: predict.memoryBytes, capability: predict.capability, data: predict.data } } : {}),
    };
    await this.history.put(run);

    let loaded: LoadedSnapshot | undefined;
    const file = snapshots.length > 0 ? await pickSnapshot(snapshots) : undefined;
    if (file) {
      loaded = await this.load(run, file);
      const device = loaded?.deviceSummary();
      if (device) {
        const line = device.peakLine;
        run = { ...run, peakBytes: device.peakBytes, peakLine: line ? { file: line.file, line: Number(line.line) } : undefined };
        await this.history.put(run);
      }
    }
    this.announce(run, outcome, loaded);
    return { run, outcome, snapshot: loaded };
  }

  /** Loads one of a run's snapshots into the store (active), labelled by the run. */
  async load(run: RunRecord, file: RunSnapshotFile): Promise<LoadedSnapshot | undefined> {
    if (!existsSync(file.path)) {
      void vscode.window.showErrorMessage(`VRAM Lens: the snapshot of ${notificationText(run.configuration.name)} is gone (${notificationText(file.path)}).`);
      return undefined;
    }
    const label = `${run.configuration.name}${file.rank === undefined ? '' : ` rank ${file.rank}`} · ${new Date(run.startedAt).toLocaleTimeString()}`;
    try {
      return await this.services.store.load(vscode.Uri.file(file.path), { label, origin: 'profile' });
    } catch (e) {
      this.services.log.error(`loading ${file.path}: ${errorMessage(e)}`);
      void vscode.window.showErrorMessage(`VRAM Lens: ${notificationText(snapshotLoadMessage(`the snapshot of ${run.configuration.name}`, e), 1000)}`);
      return undefined;
    }
  }

  private announce(run: RunRecord, outcome: RunOutcome, loaded: LoadedSnapshot | undefined): void {
    const name = run.configuration.name;
    const parts = [run.predicted ? `Predicted for ${run.predicted.gpu}: ${outcomeText(name, outcome)}` : outcomeText(name, outcome)];
    const placement = loaded?.info.prediction?.placement;
    if (placement && run.predicted) {
      parts.push(
        placement.fits
          ? `It fits: peak reserved ${formatBytes(placement.peakReservedBytes)} of ${formatBytes(run.predicted.memoryBytes)}.`
          : `It does not fit: it runs out of memory and needs ${formatBytes(placement.neededReservedBytes)} reserved.`,
      );
    }
    if (run.peakBytes !== undefined) {
      const where = run.peakLine ? ` at ${vscode.workspace.asRelativePath(run.peakLine.file)}:${run.peakLine.line}` : '';
      parts.push(`Peak ${formatBytes(run.peakBytes)}${where}.`);
    }
    if (outcome.advice) parts.push(outcome.advice);
    if (run.snapshots.length === 0 && outcome.kind !== 'environment' && outcome.kind !== 'failed-to-start') {
      parts.push('No snapshot was written.');
    }
    const actions: string[] = [];
    // Values or sizes read from data were assumed: the same prediction can run on the program's data instead
    // (first, and in place of Reveal Snapshot File, which the Runs view keeps: four buttons get cut).
    const assumed = loaded?.info.prediction?.assumptions.some((a) => a.kind === 'value' || a.kind === 'size') ?? false;
    const offerData = run.predicted !== undefined && run.predicted.data !== 'cpu' && assumed;
    if (offerData) {
      parts.push('Values read from data were assumed (the summary lists them).');
      actions.push(PREDICT_WITH_DATA);
    }
    if (loaded) actions.push('Open Timeline');
    if (run.snapshots.length > 0 && !offerData) actions.push('Reveal Snapshot File');
    // No usable CUDA device here: the same run can be predicted for a GPU instead.
    const noGpu = outcome.kind === 'environment' && (outcome.problem === 'no-cuda-build' || outcome.problem === 'no-gpu');
    if (noGpu) actions.push('Predict VRAM...');
    if (outcome.kind === 'environment' || outcome.kind === 'failed-to-start') actions.push('Select Interpreter');
    actions.push('Run Again');
    // The program's name, exception text and peak file are the program's words: plain text, no links.
    const message = `VRAM Lens: ${notificationText(parts.join(' '), 1000)}`;
    const show =
      outcome.kind === 'completed' || outcome.kind === 'cancelled'
        ? vscode.window.showInformationMessage
        : outcome.kind === 'environment' || outcome.kind === 'failed-to-start' || outcome.kind === 'crashed'
          ? vscode.window.showErrorMessage
          : vscode.window.showWarningMessage;
    void show(message, ...actions).then(async (action) => {
      switch (action) {
        case 'Open Timeline':
          await vscode.commands.executeCommand(Commands.openTimeline).then(undefined, (e: unknown) => {
            this.services.log.warn(`Open Timeline: ${errorMessage(e)}`);
          });
          break;
        case 'Reveal Snapshot File':
          await revealFile(run.snapshots[0].path);
          break;
        case 'Select Interpreter':
          await selectInterpreter(this.services.log);
          break;
        case 'Run Again':
          await vscode.commands.executeCommand(Commands.runAgain, run.id);
          break;
        case 'Predict VRAM...':
          await vscode.commands.executeCommand(Commands.predictRun, run.id);
          break;
        case PREDICT_WITH_DATA: {
          const warning = realDataMemoryWarning(run.peakBytes, os.freemem());
          if (warning && (await vscode.window.showWarningMessage(`VRAM Lens: ${warning}`, { modal: true }, 'Predict Anyway')) !== 'Predict Anyway') break;
          await vscode.commands.executeCommand(Commands.runAgain, run.id, 'cpu');
          break;
        }
      }
    });
  }

  override dispose(): void {
    this.current?.run.cancel();
    super.dispose();
  }
}

/**
 * The snapshot files a run left: what the bootstrap reported writing, else (the channel was lost) the
 * files it would have written, where present: one per rank for a torchrun job.
 */
function snapshotFiles(result: RunResult, expected: string, ranks: number): RunSnapshotFile[] {
  const byPath = new Map<string, RunSnapshotFile>();
  for (const r of result.records) {
    if (r.type !== 'dumped' || !existsSync(r.path)) continue;
    byPath.set(r.path, { path: r.path, bytes: statSync(r.path).size, rank: r.rank });
  }
  if (byPath.size === 0) {
    const candidates = ranks > 1 ? Array.from({ length: ranks }, (_, rank) => ({ path: rankSnapshotPath(expected, rank), rank })) : [{ path: expected }];
    for (const c of candidates) if (existsSync(c.path)) byPath.set(c.path, { ...c, bytes: statSync(c.path).size });
  }
  return [...byPath.values()].sort((a, b) => (a.rank ?? 0) - (b.rank ?? 0));
}

/** One snapshot: that one; one per rank: the user picks which rank to annotate. */
async function pickSnapshot(files: readonly RunSnapshotFile[]): Promise<RunSnapshotFile | undefined> {
  if (files.length === 1) return files[0];
  const picked = await vscode.window.showQuickPick(
    files.map((file) => ({ label: file.rank === undefined ? path.basename(file.path) : `Rank ${file.rank}`, description: formatBytes(file.bytes), file })),
    { title: 'VRAM Lens: which rank to annotate?', placeHolder: 'Each rank wrote its own snapshot; the others stay in the Runs view' },
  );
  return picked?.file;
}

async function saveIfDirty(file: string): Promise<void> {
  const document = vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'file' && path.normalize(d.uri.fsPath) === path.normalize(file));
  if (document?.isDirty) await document.save();
}

async function saveNotebookIfDirty(file: string): Promise<void> {
  const notebook = vscode.workspace.notebookDocuments.find((d) => d.uri.scheme === 'file' && path.normalize(d.uri.fsPath) === path.normalize(file));
  if (notebook?.isDirty) await notebook.save();
}

function defaultCwd(configuration: ProfileConfiguration, resource: vscode.Uri | undefined): string {
  // A notebook runs in its own folder, as Jupyter starts its kernel there.
  if (configuration.target.kind === 'notebook') return path.dirname(configuration.target.path);
  const folder = resource ? vscode.workspace.getWorkspaceFolder(resource) : vscode.workspace.workspaceFolders?.[0];
  if (folder) return folder.uri.fsPath;
  if (configuration.target.kind === 'script') return path.dirname(configuration.target.path);
  return os.homedir();
}

function exitText(result: RunResult): string {
  if (result.signal) return ` (${result.signal})`;
  return result.exitCode === null ? '' : ` (exit code ${result.exitCode})`;
}

/** Shows a snapshot file in the OS file manager (local), or copies its path (remote, where that cannot work). */
export async function revealFile(file: string): Promise<void> {
  if (vscode.env.remoteName === undefined) {
    await vscode.commands.executeCommand('revealFileInOS', vscode.Uri.file(file));
    return;
  }
  await vscode.env.clipboard.writeText(file);
  void vscode.window.showInformationMessage(`VRAM Lens: the snapshot is on the remote machine at ${notificationText(file)} (path copied).`);
}
