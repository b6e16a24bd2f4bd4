/**
 * VRAM Lens: Compare Snapshots... — pick two snapshots (loaded ones, devices of one, or files loaded
 * on the spot: pickSide.ts), then see
 * what changed: deltas next to the lines of the current run, a results panel, and a status bar
 * item that leaves compare mode.
 */
import * as vscode from 'vscode';
import { compareRuns } from '../../engine/compare/diff';
import { sideFromSummary } from '../../engine/compare/side';
import { cellPlacesOf } from '../shared/pathResolver';
import { formatBytes, formatDelta } from '../../engine/text/format';
import { Commands } from '../shared/commandIds';
import type { Feature, Services } from '../shared/services';
import { CompareDecorations } from './compareDecorations';
import type { ActiveComparison, ComparedSide } from '../shared/compareMode';
import { CompareView } from './compareView';
import type { SourceTexts } from '../shared/sourceTexts';
import { pickSide } from './pickSide';
import { notificationText } from '../../engine/text/plainText';
import { errorMessage, userMessage } from '../../engine/base/errors';

/** Runs a comparison between two loaded snapshot devices and enters compare mode. */
export class Comparer {
  constructor(
    private readonly services: Services,
    private readonly texts: SourceTexts,
  ) {}

  async compare(baseline: ComparedSide, current: ComparedSide): Promise<ActiveComparison> {
    const { store, compareMode } = this.services;
    const side = async (s: ComparedSide) => {
      const snapshot = store.get(s.snapshotId);
      if (!snapshot) throw new Error('that snapshot is no longer loaded');
      const summary = snapshot.deviceSummary(s.device);
      if (!summary) throw new Error(`${snapshot.label} has no device ${s.device}`);
      const revision = snapshot.revision;
      const [lines, text] = await Promise.all([snapshot.lines(s.device), this.texts.provider(s.snapshotId)]);
      const places = cellPlacesOf(await this.services.resolver.resolve([...new Set(lines.map((l) => l.file))]));
      const label = snapshot.info.devices.length > 1 ? `${snapshot.label} (device ${s.device})` : snapshot.label;
      return { run: sideFromSummary(label, summary, lines, text, places), revision, places };
    };
    const [a, b] = await Promise.all([side(baseline), side(current)]);
    const active: ActiveComparison = {
      comparison: compareRuns(a.run, b.run),
      baseline,
      current,
      revisions: [a.revision, b.revision],
      places: { ...a.places, ...b.places },
    };
    // The current run is the one the status bar and the Problems panel describe while compare mode is on.
    store.setDevice(current.snapshotId, current.device);
    if (store.active?.id !== current.snapshotId) store.setActive(current.snapshotId);
    compareMode.enter(active);
    return active;
  }

  /** Whether a side's snapshot was re-analysed (or closed) since the comparison was made. */
  isStale(active: ActiveComparison): boolean {
    const { store } = this.services;
    return [active.baseline, active.current].some((side, i) => store.get(side.snapshotId)?.revision !== active.revisions[i]);
  }
}

/** The two sides: each a loaded snapshot's device, or a snapshot file loaded for it (pickSide.ts). */
async function pickSides(services: Services): Promise<[ComparedSide, ComparedSide] | undefined> {
  const first = await pickSide(services, 'Compare Snapshots (1/2): the baseline, the run before your change');
  if (!first) return undefined;
  const baseline = services.store.get(first.snapshotId);
  const second = await pickSide(services, `Compare Snapshots (2/2): the current run, compared with ${baseline?.label ?? 'the baseline'}`, first);
  if (!second) return undefined;
  return [first, second];
}

function statusText(active: ActiveComparison): { text: string; tooltip: string } {
  const c = active.comparison;
  return {
    text: `$(diff) VRAM ${formatDelta(c.totalsDelta.peakBytes)} peak vs baseline`,
    tooltip: `VRAM Lens compare mode: ${c.current.label} against ${c.baseline.label}\nPeak ${formatBytes(c.baseline.totals.peakBytes)} → ${formatBytes(c.current.totals.peakBytes)}\nClick to leave compare mode.`,
  };
}

export const compareFeature: Feature = (services) => {
  const { context, store, compareMode, log, resolver: files, sources: texts } = services;
  const decorations = new CompareDecorations(compareMode, files);
  const panel = new CompareView(context.extensionUri, store, compareMode, files, log);
  const comparer = new Comparer(services, texts);
  const status = vscode.window.createStatusBarItem('vramLens.compare', vscode.StatusBarAlignment.Left, 90);
  status.name = 'VRAM Lens Compare';
  status.command = Commands.exitCompareMode;

  context.subscriptions.push(
    decorations,
    panel,
    status,
    compareMode.onDidChange((on) => {
      const active = compareMode.comparison;
      if (!on || !active) {
        status.hide();
        return;
      }
      Object.assign(status, statusText(active));
      status.show();
    }),
    // A compared snapshot that is closed ends compare mode; one re-attributed (frame filter settings) is compared again.
    store.onDidChange(() => {
      const active = compareMode.comparison;
      if (!active) return;
      const [a, b] = [store.get(active.baseline.snapshotId), store.get(active.current.snapshotId)];
      if (!a || !b) compareMode.exit();
      else if (comparer.isStale(active)) void comparer.compare(active.baseline, active.current).catch((e: unknown) => log.warn(`Compare: ${String(e)}`));
    }),
    vscode.commands.registerCommand(Commands.compareSnapshots, async (baseline?: ComparedSide, current?: ComparedSide) => {
      const sides = baseline && current ? ([baseline, current] as const) : await pickSides(services);
      if (!sides) return undefined;
      try {
        const active = await comparer.compare(sides[0], sides[1]);
        panel.show();
        return active;
      } catch (e) {
        log.error(`Compare failed: ${errorMessage(e)}`);
        void vscode.window.showErrorMessage(`VRAM Lens: could not compare: ${notificationText(userMessage(e))}`);
        return undefined;
      }
    }),
    vscode.commands.registerCommand(Commands.exitCompareMode, () => compareMode.exit()),
    vscode.commands.registerCommand(Commands.showComparison, () => {
      if (compareMode.active) panel.show();
      else void vscode.commands.executeCommand(Commands.compareSnapshots);
    }),
  );
};
