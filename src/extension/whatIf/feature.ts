/**
 * VRAM Lens: What If... — the caching allocator replayed with other settings or on another GPU size,
 * in a panel beside the summary (whatIfView.ts). Without an argument it asks about the active
 * snapshot (or the only one loaded, or the one the user picks); the summary's button passes
 * `{ snapshotId, device }`.
 */
import * as vscode from 'vscode';
import { formatBytes } from '../../engine/text/format';
import { Commands } from '../shared/commandIds';
import type { Feature, Services } from '../shared/services';
import type { LoadedSnapshot } from '../shared/snapshotStore';
import { WhatIfView } from './whatIfView';

/** What the command may be given (from the summary page, or a keybinding). */
export interface WhatIfArgs {
  readonly snapshotId?: unknown;
  readonly device?: unknown;
}

async function chooseSnapshot(services: Services): Promise<LoadedSnapshot | undefined> {
  const { store } = services;
  const loaded = store.list();
  if (store.active) return store.active;
  if (loaded.length === 1) return loaded[0];
  if (loaded.length === 0) {
    const open = 'Open Snapshot...';
    const choice = await vscode.window.showInformationMessage('VRAM Lens: What If needs a loaded snapshot. Open one first.', open);
    if (choice === open) await vscode.commands.executeCommand(Commands.openSnapshot);
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(
    loaded.map((s) => ({ label: s.label, description: s.info.devices.some((d) => d.reservedUnknown !== undefined) ? 'peak reserved unknown' : `peak reserved ${formatBytes(Math.max(0, ...s.info.devices.map((d) => d.peakReservedBytes)))}`, snapshot: s })),
    { title: 'VRAM Lens: What If...', placeHolder: 'Which snapshot?' },
  );
  return picked?.snapshot;
}

export const whatIfFeature: Feature = (services) => {
  const { context, store, resolver, log } = services;
  const panel = new WhatIfView(context.extensionUri, store, resolver, log);
  context.subscriptions.push(
    panel,
    vscode.commands.registerCommand(Commands.whatIf, async (args?: WhatIfArgs) => {
      const named = typeof args?.snapshotId === 'string' ? store.get(args.snapshotId) : undefined;
      const snapshot = named ?? (await chooseSnapshot(services));
      if (!snapshot) return;
      const device = Number.isInteger(args?.device) && snapshot.deviceSummary(args?.device as number) ? (args?.device as number) : snapshot.device;
      panel.show({ snapshotId: snapshot.id, device });
    }),
  );
};
