/**
 * Built-in workloads and ONNX models, run by onnxruntime-node inside the extension (in a worker
 * thread): `Run Built-in Workload...` (similarity, training step, with variants side by side) and
 * `Profile ONNX Model...`. Each run becomes a snapshot in the store, like a profiled PyTorch run.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { formatBytes, formatPercent } from '../../engine/text/format';
import type { JobRequest, RunSummary } from '../../runtime/ort/workloadJob';
import type { WorkloadResult } from '../../runtime/ort/workloadRunner';
import { runWorkload } from '../../runtime/ort/workloadRunner';
import type { SizeId, WorkloadInfo } from '../../engine/workloads/catalog';
import { WORKLOADS, workloadInfo } from '../../engine/workloads/catalog';
import { CancelledError } from '../../runtime/worker/client';
import { Commands } from '../shared/commandIds';
import type { Services } from '../shared/services';
import type { LoadedSnapshot } from '../shared/snapshotStore';
import { chooseModelDimensions, chooseModelInputs, readModelInputs } from './modelInputs';
import { providerSetting, sessionSettings } from './settings';
import { notificationText } from '../../engine/text/plainText';
import { errorMessage, userMessage } from '../../engine/base/errors';

/** Arguments of `vramLens.runWorkload` for callers that skip the pickers (tests, walkthroughs). */
export interface RunWorkloadArgs {
  readonly workload: string;
  /** One variant or several, run one after the other. */
  readonly variants?: readonly string[];
  readonly size?: string;
  /** Open the sample beside the result (default true). */
  readonly openSample?: boolean;
}

/** What `vramLens.runWorkload` resolves to: the loaded snapshot per variant. */
export interface RunWorkloadOutcome {
  readonly runs: readonly { readonly variant: string; readonly snapshot: LoadedSnapshot | undefined; readonly summary: RunSummary }[];
}

export function workloadsFeature(services: Services): void {
  const { context } = services;
  const workerScript = vscode.Uri.joinPath(context.extensionUri, 'dist', 'workloadWorker.js').fsPath;
  context.subscriptions.push(
    vscode.commands.registerCommand(Commands.runWorkload, (args?: RunWorkloadArgs) => runBuiltin(services, workerScript, args)),
    vscode.commands.registerCommand(Commands.profileOnnx, (uri?: vscode.Uri) => profileModel(services, workerScript, uri)),
  );
}

async function pickWorkload(args: RunWorkloadArgs | undefined): Promise<{ info: WorkloadInfo; variants: string[]; size: SizeId } | undefined> {
  let info = args ? workloadInfo(args.workload) : undefined;
  if (args && !info) throw new Error(`unknown workload '${args.workload}'`);
  if (!info) {
    info = (
      await vscode.window.showQuickPick(
        WORKLOADS.map((w) => ({ label: w.title, detail: w.detail, info: w })),
        { title: 'VRAM Lens: run a built-in workload (no PyTorch needed)' },
      )
    )?.info;
  }
  if (!info) return undefined;
  let variants = args?.variants ? [...args.variants] : undefined;
  if (!variants) {
    const picked = await vscode.window.showQuickPick(
      info.variants.map((v) => ({ label: v.title, detail: v.detail, picked: true, id: v.id })),
      { title: `${info.title}: variants to run (each becomes a snapshot, for comparison)`, canPickMany: true },
    );
    variants = picked?.map((p) => p.id);
  }
  if (!variants || variants.length === 0) return undefined;
  for (const v of variants) if (!info.variants.some((x) => x.id === v)) throw new Error(`${info.id} has no variant '${v}'`);
  let size = args?.size ?? (args ? info.defaultSize : undefined);
  if (!size) {
    // The default size first: Enter takes it (its figures are in MiB, not the few KiB of the tiny size).
    const sizes = [...info.sizes].sort((a, b) => Number(b.id === info.defaultSize) - Number(a.id === info.defaultSize));
    size = (
      await vscode.window.showQuickPick(
        sizes.map((s) => ({ label: s.id, description: s.id === info.defaultSize ? 'default' : undefined, detail: s.detail })),
        { title: `${info.title}: size` },
      )
    )?.label;
  }
  if (!size) return undefined;
  if (!info.sizes.some((s) => s.id === size)) throw new Error(`unknown size '${size}'`);
  return { info, variants, size: size as SizeId };
}

/**
 * Running a workload or a model executes native code on files of the workspace (onnxruntime parses the
 * model), so, like Profile VRAM, it needs a trusted workspace (package.json also disables both commands).
 */
function workspaceTrusted(action: string): boolean {
  if (vscode.workspace.isTrusted) return true;
  void vscode.window.showWarningMessage(`VRAM Lens: ${action} runs onnxruntime, so it needs a trusted workspace.`, 'Manage Workspace Trust').then((a) => {
    if (a) void vscode.commands.executeCommand('workbench.trust.manage');
  });
  return false;
}

async function runBuiltin(services: Services, workerScript: string, args?: RunWorkloadArgs): Promise<RunWorkloadOutcome | undefined> {
  if (!workspaceTrusted('Run Built-in Workload')) return undefined;
  const choice = await pickWorkload(args);
  if (!choice) return undefined;
  const { info, variants, size } = choice;
  const sample = vscode.Uri.joinPath(services.context.extensionUri, 'media', 'samples', info.sample);
  const sampleText = await vscode.workspace.fs.readFile(sample).then(
    (bytes) => new TextDecoder().decode(bytes),
    () => '',
  );
  const runs: { variant: string; snapshot: LoadedSnapshot | undefined; summary: RunSummary }[] = [];
  for (const variant of variants) {
    const request: JobRequest = {
      kind: 'builtin',
      workload: info.id,
      variant,
      size,
      samplePath: sample.fsPath,
      sampleText,
      provider: providerSetting(),
      settings: sessionSettings(),
    };
    const result = await runWithProgress(services, workerScript, `${info.id} ${variant} (${size})`, request);
    if (!result) break;
    const snapshot = await services.store.load(undefined, { value: result.snapshot, label: snapshotLabel(result.summary), origin: 'workload', ranOn: result.summary.provider });
    runs.push({ variant, snapshot, summary: result.summary });
  }
  if (runs.length === 0) return undefined;
  if (args?.openSample !== false) await vscode.window.showTextDocument(sample, { preview: true, preserveFocus: false });
  reportRuns(services, runs.map((r) => r.summary));
  return { runs };
}

function snapshotLabel(summary: RunSummary): string {
  return `${summary.title} · ${summary.provider}`;
}

async function runWithProgress(services: Services, workerScript: string, title: string, request: JobRequest): Promise<WorkloadResult | undefined> {
  return vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `VRAM Lens: running ${notificationText(title)}`, cancellable: true },
    async (progress, token) => {
      const abort = new AbortController();
      const subscription = token.onCancellationRequested(() => abort.abort());
      try {
        return await runWorkload(request, { workerScript, signal: abort.signal, onProgress: (message) => progress.report({ message }) });
      } catch (e) {
        if (e instanceof CancelledError) return undefined;
        services.log.error(`${title}: ${errorMessage(e)}`, e);
        void vscode.window.showErrorMessage(`VRAM Lens: ${notificationText(title)} failed: ${notificationText(userMessage(e), 1000)}`);
        return undefined;
      } finally {
        subscription.dispose();
      }
    },
  );
}

/** Logs each run and tells the user the peaks (and, for several variants, how they compare). */
function reportRuns(services: Services, summaries: readonly RunSummary[]): void {
  for (const s of summaries) {
    services.log.info(describeRun(s));
    for (const skip of s.skippedProviders) services.log.info(`  ${skip.provider} not used: ${skip.reason}`);
    if (s.unresolvedStatements.length > 0) services.log.warn(`  not found in the sample: ${s.unresolvedStatements.join('; ')}`);
  }
  const first = summaries[0];
  const peaks = summaries.map((s) => `${s.workload?.variant ?? s.title} ${formatBytes(s.snapshotPeakBytes)}`).join(', ');
  let message = `VRAM Lens: peak ${peaks} on ${first.provider.toUpperCase()} (${first.figures}).`;
  if (summaries.length > 1) {
    const last = summaries[summaries.length - 1];
    const delta = last.snapshotPeakBytes - first.snapshotPeakBytes;
    message += ` ${last.workload?.variant ?? last.title} ${delta <= 0 ? 'saves' : 'adds'} ${formatBytes(Math.abs(delta))} (${formatPercent(Math.abs(delta), first.snapshotPeakBytes)}).`;
  }
  const actions = summaries.length > 1 ? ['Open Timeline', 'Compare'] : ['Open Timeline', 'Show Log'];
  void vscode.window.showInformationMessage(notificationText(message, 1000), ...actions).then((action) => {
    if (action === 'Open Timeline') void vscode.commands.executeCommand(Commands.openTimeline);
    if (action === 'Compare') void vscode.commands.executeCommand(Commands.compareSnapshots);
    if (action === 'Show Log') services.log.show(true);
  });
}

function describeRun(s: RunSummary): string {
  const measured = s.measuredPeakBytes === undefined ? 'not measured' : `${formatBytes(s.measuredPeakBytes)} measured`;
  const device = s.deviceMemoryPeakBytes === undefined ? '' : `; device memory ${formatBytes(s.deviceMemoryPeakBytes)} (NVML)`;
  return (
    `${s.title} on ${s.provider}: peak ${formatBytes(s.snapshotPeakBytes)} (inputs ${formatBytes(s.inputBytes)}; intermediates ${measured}, ` +
    `${formatBytes(s.reconstructedPeakBytes)} reconstructed${device}); figures ${s.figures}; ${s.runMs.toFixed(0)} ms`
  );
}

async function profileModel(services: Services, workerScript: string, uri?: vscode.Uri): Promise<LoadedSnapshot | undefined> {
  if (!workspaceTrusted('Profile ONNX Model')) return undefined;
  const target =
    uri ??
    (
      await vscode.window.showOpenDialog({
        title: 'VRAM Lens: profile an ONNX model',
        filters: { 'ONNX models': ['onnx'] },
        canSelectMany: false,
      })
    )?.[0];
  if (!target) return undefined;
  if (target.scheme !== 'file') {
    void vscode.window.showWarningMessage('VRAM Lens: onnxruntime reads models from disk; save the model to a local file first.');
    return undefined;
  }
  const model = await readModelInputs(target);
  if (!model) return undefined;
  const inputs = await chooseModelInputs(services.context.workspaceState, target, model);
  if (!inputs) return undefined;
  const dimensions = await chooseModelDimensions(services.context.workspaceState, target, model, inputs);
  if (!dimensions) return undefined;
  const name = path.basename(target.fsPath);
  const result = await runWithProgress(services, workerScript, name, {
    kind: 'model',
    modelPath: target.fsPath,
    dimensions,
    inputs,
    provider: providerSetting(),
    settings: sessionSettings(),
  });
  if (!result) return undefined;
  const snapshot = await services.store.load(undefined, { value: result.snapshot, label: snapshotLabel(result.summary), origin: 'workload', ranOn: result.summary.provider });
  reportRuns(services, [result.summary]);
  return snapshot;
}
