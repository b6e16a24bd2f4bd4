/**
 * The memory timeline feature: the `VRAM` container's `Timeline` view, `Open Timeline`, and
 * `Show Line in Timeline` (from a command argument or the editor's cursor line).
 */
import * as vscode from 'vscode';
import { Commands } from '../shared/commandIds';
import type { Services } from '../shared/services';
import type { LoadedSnapshot } from '../shared/snapshotStore';
import { localKey } from '../shared/pathResolver';
import { TIMELINE_VIEW_ID, TimelineView } from './timelineView';
import { notificationText } from '../../engine/text/plainText';

/**
 * `Show Line in Timeline` arguments: a file (as the snapshot or the workspace names it) and a 1-based
 * line; from a hover also the snapshot, device and block it was built for (`ShowLineInTimelineArgs`).
 */
interface LineArgument {
  readonly file: string;
  readonly line: number;
  readonly snapshotId?: string;
  readonly device?: number;
  readonly record?: number;
}

function isLineArgument(value: unknown): value is LineArgument {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.file === 'string' &&
    Number.isInteger(v.line) &&
    (v.snapshotId === undefined || typeof v.snapshotId === 'string') &&
    (v.device === undefined || Number.isInteger(v.device)) &&
    (v.record === undefined || Number.isInteger(v.record))
  );
}

export function timelineFeature(services: Services): void {
  const view = new TimelineView(services);
  const { context, log, resolver } = services;

  /**
   * The snapshot's recorded file and line that `file`'s `line` stands for, as the editor maps it: `file`
   * is recorded, a workspace file's path, or an open notebook cell's document URI (its lines are the
   * cell's; recorded lines count from its first non-blank line).
   */
  const recordedLine = async (file: string, line: number, recorded: readonly string[]): Promise<{ file: string; line: number } | undefined> => {
    if (recorded.includes(file)) return { file, line };
    const { local, cells } = await resolver.resolve(recorded);
    for (const [r, cell] of cells) {
      if (cell.location.cell?.document.uri.toString() === file) return { file: r, line: line - cell.place.lineOffset };
    }
    const wanted = localKey(file);
    const found = recorded.find((r) => {
      const here = local.get(r);
      return here !== undefined && localKey(here) === wanted;
    });
    return found === undefined ? undefined : { file: found, line };
  };
  context.subscriptions.push(
    view,
    vscode.window.registerWebviewViewProvider(TIMELINE_VIEW_ID, view),
    vscode.commands.registerCommand(Commands.openTimeline, () => vscode.commands.executeCommand(`${TIMELINE_VIEW_ID}.focus`)),
    // The one registration of `Show Line in Timeline` (hover links, the command palette, keybindings).
    vscode.commands.registerCommand(Commands.showLineInTimeline, async (arg?: unknown) => {
      let wanted: LineArgument | undefined = isLineArgument(arg) ? arg : undefined;
      if (!wanted) {
        const editor = vscode.window.activeTextEditor;
        if (!editor) {
          void vscode.window.showInformationMessage('VRAM Lens: put the cursor on a line of a Python file first.');
          return;
        }
        const document = editor.document;
        wanted = { file: document.uri.scheme === 'file' ? document.uri.fsPath : document.uri.toString(), line: editor.selection.active.line + 1 };
      }
      // A link built for a snapshot shows that snapshot (and device), whatever the timeline shows now.
      let target: { snapshot: LoadedSnapshot; device: number } | undefined;
      if (wanted.snapshotId !== undefined) {
        const named = services.store.get(wanted.snapshotId);
        if (!named) {
          void vscode.window.showInformationMessage('VRAM Lens: the snapshot this link was made for is no longer loaded.');
          return;
        }
        const device = wanted.device !== undefined && named.info.devices.some((d) => d.device === wanted.device) ? wanted.device : named.device;
        target = { snapshot: named, device };
      } else {
        target = view.currentTarget();
      }
      if (!target) {
        void vscode.window.showInformationMessage('VRAM Lens: open a snapshot first (VRAM Lens: Open Snapshot...).');
        return;
      }
      const { snapshot, device } = target;
      const lines = await snapshot.lines(device);
      const files = [...new Set(lines.map((l) => l.file))];
      const at = await recordedLine(wanted.file, wanted.line, files);
      const shown = at !== undefined && (await view.showLine(snapshot, device, at.file, at.line, wanted.record));
      if (!shown) {
        log.info(`Show Line in Timeline: no blocks for ${wanted.file}:${wanted.line} (matched ${at ? `${at.file}:${at.line}` : 'no file'}) in ${snapshot.label}`);
        void vscode.window.showInformationMessage(
          `VRAM Lens: ${notificationText(snapshot.label)} (device ${device}) has no allocations made by line ${wanted.line} of ${notificationText(wanted.file)}.`,
        );
      }
    }),
  );
}
