/**
 * The workloads shipped in media/samples/: opened read-only from the extension, annotated with the
 * sample snapshot that ships beside each (made by the built-in workloads: scripts/make-sample-snapshot.mjs),
 * with an offer to copy one into the workspace (to edit it) or to profile it as it is. The copy carries
 * the sample's annotations: its lines are the same lines, so the recorded sample file is mapped to it.
 */
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { Commands } from '../shared/commandIds';
import type { PathResolver } from '../shared/pathResolver';

interface Sample {
  readonly file: string;
  readonly label: string;
  readonly detail: string;
  /** The snapshot of it that ships beside it, loaded when it is opened. */
  readonly snapshot: string;
}

export const SAMPLES: readonly Sample[] = [
  {
    file: 'similarity.py',
    label: 'Tracker memory similarity',
    detail: 'Eager vs empty_cache vs in-place: three ways to compute one [B, M, Q] similarity (--variant).',
    snapshot: 'similarity-eager.pickle',
  },
  {
    file: 'train_step.py',
    label: 'Residual MLP training step',
    detail: 'Adam training with checkpointing, autocast, zero_grad(set_to_none), inference mode and a classic leak (flags).',
    snapshot: 'train-step.pickle',
  },
];

/** The path the sample snapshots (and the built-in workloads) record for a sample file. */
export function recordedSamplePath(file: string): string {
  return `media/samples/${file}`;
}

export async function openSample(extensionUri: vscode.Uri, resolver: Pick<PathResolver, 'addMapping'>, which?: string): Promise<vscode.TextEditor | undefined> {
  const sample =
    SAMPLES.find((s) => s.file === which) ??
    (await vscode.window.showQuickPick(
      SAMPLES.map((s) => ({ label: s.label, description: s.file, detail: s.detail, sample: s })),
      { title: 'VRAM Lens: open a sample workload' },
    ))?.sample;
  if (!sample) return undefined;
  const uri = vscode.Uri.joinPath(extensionUri, 'media', 'samples', sample.file);
  const editor = await vscode.window.showTextDocument(uri, { preview: false });
  await vscode.commands.executeCommand('workbench.action.files.setActiveEditorReadonlyInSession').then(undefined, () => undefined);
  // Its snapshot, annotating it: the snapshot names the sample by its path in this project, which the open
  // document (the extension's own copy) ends with.
  await vscode.commands.executeCommand(Commands.openSnapshot, vscode.Uri.joinPath(extensionUri, 'media', 'samples', sample.snapshot));
  void vscode.window
    .showInformationMessage(
      `VRAM Lens: ${sample.file} is the bundled copy (read-only). Profile it as it is, or copy it to your workspace to change it.`,
      'Profile VRAM',
      'Copy to Workspace',
    )
    .then(async (action) => {
      if (action === 'Profile VRAM') await vscode.commands.executeCommand(Commands.profile, uri);
      if (action === 'Copy to Workspace') await copyToWorkspace(uri, sample, resolver);
    });
  return editor;
}

async function copyToWorkspace(source: vscode.Uri, sample: Sample, resolver: Pick<PathResolver, 'addMapping'>): Promise<void> {
  const folder = vscode.workspace.workspaceFolders?.[0];
  let target: vscode.Uri | undefined;
  if (folder && folder.uri.scheme === 'file') {
    const base = path.basename(source.fsPath, '.py');
    for (let n = 0; n < 100 && !target; n++) {
      const candidate = vscode.Uri.joinPath(folder.uri, `${base}${n === 0 ? '' : `_${n}`}.py`);
      const exists = await fs.stat(candidate.fsPath).then(
        () => true,
        () => false,
      );
      if (!exists) target = candidate;
    }
  } else {
    target = await vscode.window.showSaveDialog({ defaultUri: vscode.Uri.file(path.basename(source.fsPath)), filters: { Python: ['py'] } });
  }
  if (!target) return;
  await vscode.workspace.fs.copy(source, target, { overwrite: false });
  // The copy's lines are the sample's: the snapshots that record the sample annotate the copy from now on
  // (a mapping of the workspace, undone by Forget Path Mappings).
  await resolver.addMapping({ from: recordedSamplePath(sample.file), to: target.fsPath });
  await vscode.window.showTextDocument(target, { preview: false });
}
