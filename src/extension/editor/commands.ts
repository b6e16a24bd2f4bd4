/** The editor's commands: open, switch, close snapshots; clear annotations; open frames. */
import * as vscode from 'vscode';
import { formatBytes } from '../../engine/text/format';
import { baseName } from '../../engine/paths/recordedPath';
import { notificationText } from '../../engine/text/plainText';
import type { LoadedSnapshot, SnapshotStore } from '../shared/snapshotStore';
import type { Annotator } from './annotator';
import type { OpenFrameArgs } from './hoverMarkdown';
import type { PathResolver } from '../shared/pathResolver';
import { peakBreakdownClause } from './peakBreakdownText';
import { snapshotLoadMessage } from '../../engine/decode/errors';
import { openRecordedLine } from '../shared/openRecordedLine';
import { cellPlacesOf } from '../shared/pathResolver';
import { lineLabel } from '../../engine/paths/places';
import { Commands } from '../shared/commandIds';

export interface CommandDeps {
  readonly store: SnapshotStore;
  readonly annotator: Annotator;
  readonly resolver: PathResolver;
  readonly log: vscode.LogOutputChannel;
}

function describeSnapshot(s: LoadedSnapshot): string {
  const d = s.deviceSummary();
  return d ? `peak ${formatBytes(d.peakBytes)} on device ${d.device}` : 'no device';
}

/** `Open Snapshot...`: from the argument (a URI or a path: Explorer menu, tests) or a file picker. */
export async function openSnapshot(deps: CommandDeps, target?: vscode.Uri | string): Promise<LoadedSnapshot | undefined> {
  let uri = typeof target === 'string' ? vscode.Uri.file(target) : target instanceof vscode.Uri ? target : undefined;
  if (!uri) {
    const picked = await vscode.window.showOpenDialog({
      canSelectMany: false,
      openLabel: 'Open Snapshot',
      title: 'Open a PyTorch memory snapshot',
      filters: { 'PyTorch memory snapshots': ['pickle', 'pkl'], 'All files': ['*'] },
    });
    uri = picked?.[0];
    if (!uri) return undefined;
  }
  let loaded: LoadedSnapshot | undefined;
  try {
    const { snapshot, reused } = await deps.store.loadFile(uri, { makeActive: true });
    if (reused && snapshot) {
      deps.store.setActive(snapshot.id);
      deps.annotator.show();
      return snapshot;
    }
    loaded = snapshot;
  } catch (e) {
    deps.log.error(`Could not open ${uri.toString()}:`, e);
    void vscode.window.showErrorMessage(`VRAM Lens: ${notificationText(snapshotLoadMessage(baseName(uri.path), e), 1000)}`);
    return undefined;
  }
  if (!loaded) return undefined;
  deps.annotator.show();
  const device = loaded.deviceSummary();
  const goToPeak = 'Go to Peak Line';
  const summary = 'Show Summary';
  const peakLine = device?.peakLine;
  const places = peakLine ? cellPlacesOf(await deps.resolver.resolve([peakLine.file])) : undefined;
  const where = peakLine ? ` at ${notificationText(lineLabel(peakLine.file, peakLine.line, places))}` : '';
  const actions = device?.peakLine ? [goToPeak, summary] : [summary];
  // peakBreakdownClause returns notification-safe text already.
  const besides = device ? peakBreakdownClause(device.peakBreakdown, device.peakBytes) : '';
  const text = `VRAM Lens: ${notificationText(loaded.label)}: ${describeSnapshot(loaded)}${where}${besides === '' ? '' : `; ${besides}`}.`;
  void vscode.window.showInformationMessage(text, ...actions).then(async (choice) => {
    if (choice === goToPeak && device?.peakLine) await openRecordedLine(deps.resolver, device.peakLine.file, Number(device.peakLine.line), { snapshot: loaded.persistentKey });
    // The summary is its own feature: reached through its command, as the user would.
    if (choice === summary) await vscode.commands.executeCommand(Commands.showSummary, loaded.id);
  });
  return loaded;
}

interface SnapshotPick extends vscode.QuickPickItem {
  readonly snapshot?: LoadedSnapshot;
  readonly device?: number;
  readonly open?: boolean;
}

/** `Switch Active Snapshot...`: every loaded snapshot, one entry per device where it has several. */
export async function switchSnapshot(deps: CommandDeps): Promise<void> {
  const items: SnapshotPick[] = [];
  const active = deps.store.active;
  for (const s of deps.store.list()) {
    const devices = s.info.devices.length > 1 ? s.info.devices : s.info.devices.slice(0, 1);
    for (const d of devices) {
      const current = active?.id === s.id && s.device === d.device;
      items.push({
        label: `${current ? '$(check) ' : ''}${s.label}${s.info.devices.length > 1 ? ` · device ${d.device}` : ''}`,
        description: `peak ${formatBytes(d.peakBytes)}${d.oomCount > 0 ? ` · ${d.oomCount} OOM` : ''}`,
        detail: s.uri?.scheme === 'file' ? s.uri.fsPath : s.origin,
        snapshot: s,
        device: d.device,
      });
    }
  }
  items.push({ label: '$(folder-opened) Open Snapshot...', open: true });
  const picked = await vscode.window.showQuickPick(items, { title: 'VRAM Lens: annotate the editors with', matchOnDetail: true });
  if (!picked) return;
  if (picked.open) {
    await openSnapshot(deps);
    return;
  }
  if (!picked.snapshot) return;
  if (picked.device !== undefined) deps.store.setDevice(picked.snapshot.id, picked.device);
  deps.store.setActive(picked.snapshot.id);
  deps.annotator.show();
}

/** `Close Snapshot...`: unloads the chosen snapshots (their workers end). */
export async function closeSnapshot(deps: CommandDeps): Promise<void> {
  const loaded = deps.store.list();
  if (loaded.length === 0) {
    void vscode.window.showInformationMessage('VRAM Lens: no snapshot is loaded.');
    return;
  }
  const picked = await vscode.window.showQuickPick(
    loaded.map((s) => ({ label: s.label, description: describeSnapshot(s), detail: s.uri?.fsPath, picked: loaded.length === 1, snapshot: s })),
    { title: 'VRAM Lens: close snapshots', canPickMany: true },
  );
  for (const p of picked ?? []) await deps.store.remove(p.snapshot.id);
}

/** `vramLens.openFrame`: opens the local file of a recorded path at a line, asking where its folder is if unknown. */
export async function openFrame(deps: CommandDeps, args: OpenFrameArgs | undefined): Promise<void> {
  if (!args || typeof args.file !== 'string') return;
  await openRecordedLine(deps.resolver, args.file, Number(args.line));
}
