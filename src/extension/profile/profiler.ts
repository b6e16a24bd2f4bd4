/**
 * One profiled run at a time, from start to annotated result: resolves the interpreter, starts the
 * bootstrap through the runner, shows the program's output and live memory (progress notification and
 * status bar), then loads the snapshot into the store, records the run and says how it ended.
 */
import { existsSync, mkdirSync, statSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { formatBytes } from '../../core/format';
import type { ProfileCommand } from '../../core/profile/command';
import { buildProfileCommand, rankSnapshotPath } from '../../core/profile/command';
import type { ProfileConfiguration } from '../../core/profile/configuration';
import { describeTarget } from '../../core/profile/configuration';
import type { RunRecord, RunSnapshotFile } from '../../core/profile/history';
import { newRunId } from '../../core/profile/history';
import { LiveMemory, describeLive } from '../../core/profile/live';
import type { RunOutcome } from '../../core/profile/outcome';
import { classifyOutcome } from '../../core/profile/outcome';
import type { ProfileRecord } from '../../core/profile/protocol';
import type { RunResult } from '../../core/profile/runner';
import { ProfileRun, channelAddress } from '../../core/profile/runner';
import { Commands } from '../commandIds';
import { profileSettings } from '../config';
import type { Services } from '../services';
import type { LoadedSnapshot } from '../snapshotStore';
import { resolveInterpreter, selectInterpreter } from './interpreter';
import { outcomeSentence } from './outcomeSentence';
import type { RunHistory } from './runHistory';
import { notificationText } from '../../core/text/plainText';
import { errorMessage } from '../../core/errors';

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

export class Profiler implements vscode.Disposable {
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
    this.statusBar = vscode.window.createStatusBarItem('vramLens.profile', vscode.StatusBarAlignment.Left, 50);
    this.statusBar.name = 'VRAM Lens: Profiling';
    this.statusBar.command = Commands.showProfileOutput;
  }

  cancel(): void {
    this.current?.run.cancel();
  }

  async profile(configuration: ProfileConfiguration, resource: vscode.Uri | undefined): Promise<ProfileResult | undefined> {
    if (!vscode.workspace.isTrusted) {
      void vscode.window.showWarningMessage('VRAM Lens: Profile VRAM runs your program, so it needs a trusted workspace.', 'Manage Workspace Trust').then((a) => {
        if (a) void vscode.commands.executeCommand('workbench.trust.manage');
      });
      return undefined;
    }
    if (this.current) {
      const choice = await vscode.window.showWarningMessage(`VRAM Lens is already profiling ${this.current.name}.`, 'Cancel That Run', 'Show Output');
      if (choice === 'Cancel That Run') this.cancel();
      if (choice === 'Show Output') this.output.show(true);
      return undefined;
    }
    if (configuration.target.kind === 'script') await saveIfDirty(configuration.target.path);

    const log = this.services.log;
    const interpreter = await resolveInterpreter(resource, configuration.python, log);
    const id = newRunId(new Date());
    const folder = this.history.folderFor(id);
    mkdirSync(folder, { recursive: true });
    const cwd = configuration.cwd ?? defaultCwd(configuration, resource);
    const settings = profileSettings();
    const recording = { maxEntries: settings.maxEntries, stacks: settings.stacks, sampleIntervalMs: settings.sampleIntervalMs, backwardLines: settings.backwardLines };
    const nproc = configuration.nprocPerNode ?? settings.nprocPerNode;
    const effective: ProfileConfiguration = { ...configuration, nprocPerNode: nproc > 1 ? nproc : undefined };
    const channel = channelAddress(id);
    const cancelFile = path.join(folder, 'cancel');
    let command: ProfileCommand;
    try {
      command = buildProfileCommand(
        { ...effective, env: { ...settings.env, ...effective.env } },
        cwd,
        recording,
        { interpreter: interpreter.command, bootstrap: this.bootstrap, snapshot: path.join(folder, 'snapshot.pickle'), channel, cancelFile },
        process.env,
      );
    } catch (e) {
      void vscode.window.showErrorMessage(`VRAM Lens: ${notificationText(errorMessage(e))}`);
      return undefined;
    }

    this.output.clear();
    this.output.appendLine(`▶ ${describeTarget(effective)}  (interpreter: ${interpreter.command.join(' ')} from ${interpreter.source}; folder: ${cwd})`);
    this.output.show(true);
    log.info(`profile ${id}: ${command.command} ${command.args.join(' ')} (cwd ${cwd})`);

    const startedAt = Date.now();
    const live = new LiveMemory();
    let torch: string | undefined;
    let phase = 'starting';
    const refresh = (progress?: vscode.Progress<{ message?: string }>) => {
      const text = phase === 'running' ? describeLive(live.summary) : phase;
      progress?.report({ message: text });
      const peak = live.summary.peakAllocated;
      this.statusBar.text = `$(pulse) ${peak > 0 ? `VRAM peak ${formatBytes(peak)}` : 'VRAM Lens'}${phase === 'running' ? '' : ` (${phase})`}`;
      this.statusBar.tooltip = `VRAM Lens is profiling ${effective.name}: ${text}. Click to see the program's output.`;
    };

    const result = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `VRAM Lens: profiling ${notificationText(effective.name)}`, cancellable: true },
      async (progress, token) => {
        let cancelling = false;
        const onRecord = (record: ProfileRecord) => {
          switch (record.type) {
            case 'hello':
              torch = record.torch;
              phase = 'running';
              break;
            case 'progress':
              live.update(record);
              break;
            case 'dumping':
              phase = 'writing the snapshot';
              break;
            case 'dumped':
            case 'dump-failed':
              phase = cancelling ? 'cancelling' : 'running';
              break;
            case 'cancelling':
              cancelling = true;
              phase = 'cancelling';
              break;
            case 'notice':
              this.output.appendLine(`[VRAM Lens] ${record.message}`);
              return;
            default:
              return;
          }
          refresh(progress);
        };
        const run = new ProfileRun(
          command,
          channel,
          cancelFile,
          {
            graceMs: 1000 * settings.cancelGraceSeconds,
            dumpGraceMs: 1000 * settings.dumpGraceSeconds,
            drainMs: 2000,
          },
          { onStdout: (t) => this.output.append(t), onStderr: (t) => this.output.append(t), onRecord },
        );
        this.current = { run, name: effective.name };
        void vscode.commands.executeCommand('setContext', this.contextKey, true);
        refresh(progress);
        this.statusBar.show();
        const subscription = token.onCancellationRequested(() => {
          cancelling = true;
          phase = 'cancelling';
          refresh(progress);
          run.cancel();
        });
        try {
          return await run.done;
        } catch (e) {
          const message = errorMessage(e);
          log.error(`profile ${id}: ${message}`);
          return undefined;
        } finally {
          subscription.dispose();
          this.current = undefined;
          this.statusBar.hide();
          void vscode.commands.executeCommand('setContext', this.contextKey, false);
        }
      },
    );
    if (!result) {
      void vscode.window.showErrorMessage(`VRAM Lens: could not run ${notificationText(effective.name)} (see the VRAM Lens log).`);
      return undefined;
    }

    const outcome = classifyOutcome(result);
    this.output.appendLine(`■ ${effective.name} ${outcome.headline}${exitText(result)} after ${(result.durationMs / 1000).toFixed(1)} s`);
    const snapshots = snapshotFiles(result, path.join(folder, 'snapshot.pickle'), effective.nprocPerNode ?? 1);
    let run: RunRecord = {
      id,
      startedAt,
      endedAt: Date.now(),
      configuration: effective,
      cwd,
      interpreter: interpreter.command,
      folder,
      outcome: { kind: outcome.kind, headline: outcome.headline, exitCode: result.exitCode },
      peakBytes: live.summary.peakAllocated > 0 ? live.summary.peakAllocated : undefined,
      snapshots,
      recording,
      torch,
    };
    await this.history.put(run);

    let loaded: LoadedSnapshot | undefined;
    if (snapshots.length > 0) {
      const file = await pickSnapshot(snapshots);
      if (file) {
        loaded = await this.load(run, file);
        const device = loaded?.deviceSummary();
        if (device) {
          const line = device.peakLine;
          run = {
            ...run,
            peakBytes: device.peakBytes,
            peakLine: line ? { file: line.file, line: Number(line.line) } : undefined,
          };
          await this.history.put(run);
        }
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
      const message = errorMessage(e);
      this.services.log.error(`loading ${file.path}: ${message}`);
      void vscode.window.showErrorMessage(`VRAM Lens: could not read the snapshot of ${notificationText(run.configuration.name)}: ${notificationText(message)}`);
      return undefined;
    }
  }

  private announce(run: RunRecord, outcome: RunOutcome, loaded: LoadedSnapshot | undefined): void {
    const name = run.configuration.name;
    const parts = [outcomeSentence(name, outcome)];
    if (run.peakBytes !== undefined) {
      const where = run.peakLine ? ` at ${vscode.workspace.asRelativePath(run.peakLine.file)}:${run.peakLine.line}` : '';
      parts.push(`Peak ${formatBytes(run.peakBytes)}${where}.`);
    }
    if (outcome.advice) parts.push(outcome.advice);
    if (run.snapshots.length === 0 && outcome.kind !== 'environment' && outcome.kind !== 'failed-to-start') {
      parts.push('No snapshot was written.');
    }
    const actions: string[] = [];
    if (loaded) actions.push('Open Timeline');
    if (run.snapshots.length > 0) actions.push('Reveal Snapshot File');
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
      }
    });
  }

  dispose(): void {
    this.current?.run.cancel();
    this.statusBar.dispose();
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

function defaultCwd(configuration: ProfileConfiguration, resource: vscode.Uri | undefined): string {
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
