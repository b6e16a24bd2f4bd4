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
import type { FigureRegistry } from './lineFigures';
import { LINE_FIGURES } from './lineFigures';
import type { LineFigures } from './lines';
import { attributeLines } from './lines';
import type { DeviceReplay } from './replay';
import type { LiveBlock } from './liveAtPeak';
import { liveAtPeak } from './liveAtPeak';
import type { PeakBucket } from './peakBreakdown';
import { PeakBucketClassifier, peakBreakdown } from './peakBucketClassifier';
import { replayDevice } from './replay';

export interface DeviceAnalysis extends DeviceReplay {
  readonly lines: readonly LineFigures[];
  /** The blocks live at the peak (spec: "Live at peak"); every figure "at the peak" reads these. */
  readonly liveAtPeak: readonly LiveBlock[];
  /** The live-at-peak bytes no self line holds, by bucket (spec: "Explaining the peak"). */
  readonly peakBreakdown: readonly PeakBucket[];
  /** Names the bucket of any allocation record without a self line (timeline block details). */
  readonly buckets: PeakBucketClassifier;
}

export interface Analysis {
  readonly snapshot: Snapshot;
  readonly lineIndex: LineIndex;
  readonly devices: readonly DeviceAnalysis[];
}

/** `figures`: the per-line figures to compute (the registry's; tests plant more). */
export function analyzeSnapshot(snapshot: Snapshot, filter: FrameFilterOptions = {}, figures: FigureRegistry = LINE_FIGURES): Analysis {
  const lineIndex = buildLineIndex(snapshot, userFramePredicate(filter));
  const devices = devicesOf(snapshot).map((device): DeviceAnalysis => {
    const replay = replayDevice(snapshot, device);
    const live = liveAtPeak(replay);
    const buckets = new PeakBucketClassifier(snapshot, replay, lineIndex);
    // Added to the replay itself, not spread into a copy: its `reserved` is worked out when first read.
    return Object.assign(replay, {
      lines: attributeLines(snapshot, replay, lineIndex, live, figures),
      liveAtPeak: live,
      peakBreakdown: peakBreakdown(buckets, live),
      buckets,
    });
  });
  return { snapshot, lineIndex, devices };
}
