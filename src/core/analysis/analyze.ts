/**
 * The whole analysis of a snapshot: every device's replay and per-line figures, under one
 * user-frame filter. This is what the CLI prints and what the editor and views read.
 */
import type { Snapshot } from '../snapshot/model';
import { devicesOf } from '../snapshot/model';
import type { FrameFilterOptions } from './frameFilter';
import { userFramePredicate } from './frameFilter';
import type { LineIndex } from './lineIndex';
import { buildLineIndex } from './lineIndex';
import type { LineFigures } from './lines';
import { attributeLines } from './lines';
import type { DeviceReplay } from './replay';
import { replayDevice } from './replay';

export interface DeviceAnalysis extends DeviceReplay {
  readonly lines: readonly LineFigures[];
}

export interface Analysis {
  readonly snapshot: Snapshot;
  readonly lineIndex: LineIndex;
  readonly devices: readonly DeviceAnalysis[];
}

export function analyzeSnapshot(snapshot: Snapshot, filter: FrameFilterOptions = {}): Analysis {
  const lineIndex = buildLineIndex(snapshot, userFramePredicate(filter));
  const devices = devicesOf(snapshot).map((device): DeviceAnalysis => {
    const replay = replayDevice(snapshot, device);
    return { ...replay, lines: attributeLines(snapshot, replay, lineIndex) };
  });
  return { snapshot, lineIndex, devices };
}
