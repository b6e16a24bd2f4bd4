/** What the host sends the timeline page about snapshots and lines (free of `vscode`, shared with the tests). */
import type { LineFigures } from '../../engine/analysis/lines';
import type { FigureRegistry } from '../../engine/analysis/lineFigures';
import { LINE_FIGURES, figureValues } from '../../engine/analysis/lineFigures';
import type { SnapshotInfo } from '../../protocol/worker';
import { lineColor } from '../../engine/timeline/colors';
import type { LineRow, SnapshotChoice } from '../../protocol/timeline';

export function lineRow(l: LineFigures, figures: FigureRegistry = LINE_FIGURES): LineRow {
  return { id: l.lineId, file: l.file, line: Number(l.line), color: lineColor(l.file, l.line), ...figureValues(l, figures) };
}

export function snapshotChoice(s: { id: string; label: string; device: number; info: SnapshotInfo }): SnapshotChoice {
  return {
    id: s.id,
    label: s.label,
    devices: s.info.devices.map((d) => ({ device: d.device, peakBytes: d.peakBytes, events: d.events })),
    device: s.device,
    hasTimes: s.info.hasTimes,
  };
}
