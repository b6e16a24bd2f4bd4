/**
 * One side of Compare Snapshots, picked: a loaded snapshot's device, or a snapshot file loaded on the
 * spot (a recent Profile VRAM run, a `.pickle`/`.pkl` of the workspace, a path typed into the box, or
 * Browse...), then its device when it has several. The choices are `sideChoices.ts`'s.
 */
import * as os from 'node:os';
import * as vscode from 'vscode';
import { formatBytes, formatCount } from '../../engine/text/format';
import { notificationText } from '../../engine/text/plainText';
import { userMessage } from '../../engine/base/errors';
import type { ComparedSide } from '../shared/compareMode';
import { runSnapshotFiles } from '../shared/recentRuns';
import type { Services } from '../shared/services';
import type { LoadedSnapshot } from '../shared/snapshotStore';
import type { FileChoice } from './sideChoices';
import { fileChoices, typedPath } from './sideChoices';

const EXCLUDE = '**/{node_modules,.git,.venv,venv,.tox,site-packages,dist-packages,__pycache__}/**';

type Item = vscode.QuickPickItem & ({ readonly side: ComparedSide } | { readonly file: string } | { readonly browse: true } | object);

function deviceItems(snapshots: readonly LoadedSnapshot[], exclude?: ComparedSide): Item[] {
  const items: Item[] = [];
  for (const s of snapshots) {
    for (const d of s.info.devices) {
      if (exclude && exclude.snapshotId === s.id && exclude.device === d.device) continue;
      items.push({
        label: s.info.devices.length > 1 ? `${s.label} — device ${d.device}` : s.label,
        description: `peak ${formatBytes(d.peakBytes)}, ${formatCount(d.events)} events`,
        detail: s.uri?.fsPath,
        side: { snapshotId: s.id, device: d.device },
      });
    }
  }
  return items;
}

const fileItem = (c: FileChoice): Item => ({ label: `$(file) ${c.label}`, description: c.description, detail: c.kind === 'run' ? c.path : undefined, file: c.path });

/** The snapshot files to offer: recent runs, then the workspace's, none already loaded. */
async function files(services: Services): Promise<FileChoice[]> {
  const loaded = new Set(services.store.list().flatMap((s) => (s.uri?.scheme === 'file' ? [s.uri.fsPath] : [])));
  const found = vscode.workspace.workspaceFolders?.length ? await vscode.workspace.findFiles('**/*.{pickle,pkl,pickle.gz,pkl.gz}', EXCLUDE, 500) : [];
  const workspace = found.filter((u) => u.scheme === 'file').map((u) => u.fsPath);
  return fileChoices(runSnapshotFiles(services.context.globalState), workspace, loaded, (f) => vscode.workspace.asRelativePath(f));
}

/** Asks for one side; `exclude` is the side picked first. Undefined when the user leaves. */
export async function pickSide(services: Services, title: string, exclude?: ComparedSide): Promise<ComparedSide | undefined> {
  const offered = await files(services);
  const base = vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file')?.uri.fsPath;
  const loaded = deviceItems(services.store.list(), exclude);
  const fixed: Item[] = [
    ...(loaded.length > 0 ? [{ label: 'Loaded', kind: vscode.QuickPickItemKind.Separator }, ...loaded] : []),
    ...(offered.length > 0 ? [{ label: 'Snapshot files', kind: vscode.QuickPickItemKind.Separator }, ...offered.map(fileItem)] : []),
    { label: '', kind: vscode.QuickPickItemKind.Separator },
    { label: '$(folder-opened) Browse...', description: 'a snapshot file on this machine', browse: true, alwaysShow: true },
  ];
  const quickPick = vscode.window.createQuickPick<Item>();
  quickPick.title = title;
  quickPick.placeholder = 'A loaded snapshot, a snapshot file, or type a path';
  quickPick.matchOnDescription = true;
  quickPick.matchOnDetail = true;
  quickPick.items = fixed;
  const picked = await new Promise<Item | undefined>((resolve) => {
    const typed = () => {
      const file = typedPath(quickPick.value, base, os.homedir());
      quickPick.items = file === undefined ? fixed : [{ label: `$(file) ${file}`, description: 'load this file', file, alwaysShow: true }, ...fixed];
    };
    quickPick.onDidChangeValue(typed);
    quickPick.onDidAccept(() => resolve(quickPick.selectedItems[0]));
    quickPick.onDidHide(() => resolve(undefined));
    quickPick.show();
  });
  quickPick.dispose();
  if (!picked) return undefined;
  if ('side' in picked) return picked.side;
  let uri: vscode.Uri | undefined;
  if ('file' in picked) uri = vscode.Uri.file(picked.file);
  else if ('browse' in picked) {
    uri = (
      await vscode.window.showOpenDialog({
        canSelectMany: false,
        openLabel: 'Compare',
        title,
        filters: { 'PyTorch memory snapshots': ['pickle', 'pkl'], 'All files': ['*'] },
      })
    )?.[0];
  }
  return uri ? loadSide(services, uri, title, exclude) : undefined;
}

/** Loads a snapshot file for a side (without making it the active one), then its device. */
async function loadSide(services: Services, uri: vscode.Uri, title: string, exclude?: ComparedSide): Promise<ComparedSide | undefined> {
  let snapshot: LoadedSnapshot | undefined;
  try {
    snapshot = (await services.store.loadFile(uri, { makeActive: false })).snapshot;
  } catch (e) {
    services.log.warn(`Compare: could not load ${uri.fsPath}:`, e);
    void vscode.window.showErrorMessage(`VRAM Lens: could not compare ${notificationText(uri.fsPath)}: ${notificationText(userMessage(e))}`);
    return undefined;
  }
  if (!snapshot) return undefined;
  const devices = deviceItems([snapshot], exclude);
  if (devices.length === 0) {
    void vscode.window.showWarningMessage(`VRAM Lens: ${notificationText(snapshot.label)} has no device to compare (no trace and no segments, or only the one picked first).`);
    return undefined;
  }
  if (devices.length === 1) return (devices[0] as { side: ComparedSide }).side;
  const device = await vscode.window.showQuickPick(devices, { title: `${title}: which device of ${snapshot.label}?` });
  return device && 'side' in device ? device.side : undefined;
}
