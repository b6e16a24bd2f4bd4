/** The status bar item: the active snapshot's peak and device; a click switches snapshots. */
import * as vscode from 'vscode';
import { formatBytes } from '../../engine/text/format';
import { lineLabel } from '../../engine/paths/places';
import { Commands } from '../shared/commandIds';
import type { SnapshotStore } from '../shared/snapshotStore';
import type { Annotator } from './annotator';
import { peakBreakdownLines } from './peakBreakdownText';
import { deviceLongName, deviceShortName } from './statusText';
import { DisposableOwner } from '../shared/disposables';

export class SnapshotStatusBar extends DisposableOwner {
  private readonly item = this.own(vscode.window.createStatusBarItem('vramLens.snapshot', vscode.StatusBarAlignment.Right, 100));

  constructor(
    private readonly store: SnapshotStore,
    private readonly annotator: Annotator,
  ) {
    super();
    this.item.name = 'VRAM Lens Snapshot';
    this.item.command = Commands.switchSnapshot;
    this.own(store.onDidChange(() => this.update()), annotator.onDidChange(() => this.update()));
    this.update();
  }

  private update(): void {
    const active = this.store.active;
    const loaded = this.store.list().length;
    if (!active) {
      if (loaded === 0) {
        this.item.hide();
        return;
      }
      this.item.text = `$(pulse) VRAM: ${loaded} loaded`;
      this.item.tooltip = 'VRAM Lens: no active snapshot. Click to choose one.';
      this.item.show();
      return;
    }
    const device = active.deviceSummary();
    const hidden = this.annotator.isHidden;
    this.item.text = `$(pulse) ${device ? formatBytes(device.peakBytes) : '?'} peak · ${deviceShortName(active.device, active.ranOn)}${hidden ? ' (hidden)' : ''}`;
    const tooltip = new vscode.MarkdownString();
    tooltip.appendMarkdown('**VRAM Lens** active snapshot\n\n');
    tooltip.appendText(active.label);
    if (device) {
      tooltip.appendMarkdown('\n\n');
      const places = this.annotator.state?.snapshot === active ? this.annotator.state.places : undefined;
      const where = device.peakLine ? ` at ${lineLabel(device.peakLine.file, device.peakLine.line, places)}` : '';
      tooltip.appendText(`Peak ${formatBytes(device.peakBytes)}${where} on ${deviceLongName(device.device, active.ranOn)}; reserved ${device.reservedUnknown === undefined ? `up to ${formatBytes(device.peakReservedBytes)}` : 'unknown'}`);
      if (device.oomCount > 0) tooltip.appendText(`; ${device.oomCount} out-of-memory event${device.oomCount === 1 ? '' : 's'}`);
      const breakdown = peakBreakdownLines(device.peakBreakdown, device.peakBytes);
      if (breakdown.length > 0) tooltip.appendMarkdown(`\n\nHeld at the peak besides lines of your code:\n\n${breakdown.join('\n')}`);
    }
    tooltip.appendMarkdown(`\n\n${loaded > 1 ? `${loaded} snapshots loaded. ` : ''}Click to switch snapshots or devices.`);
    this.item.tooltip = tooltip;
    this.item.show();
  }

}
