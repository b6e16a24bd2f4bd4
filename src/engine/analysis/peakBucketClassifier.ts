/**
 * Which bucket a block with no self line belongs to (spec: "Explaining the peak"): the autograd node
 * that allocated it in the backward pass, the annotated range it was allocated in, the library file
 * that allocated it, no frames, or before recording. The vocabulary is in peakBreakdown.ts.
 */
import type { Snapshot } from '../snapshot/model';
import { AnnotationIndex, annotationRanges } from './annotationRanges';
import { NO_STACK } from '../snapshot/model';
import type { PeakBucket, PeakBucketKind } from './peakBreakdown';
import type { LineIndex } from './lineIndex';
import { NO_LINE } from './lineIndex';
import { isSourceFrame } from './frameFilter';
import { baseName } from '../paths/recordedPath';
import type { LiveBlock } from './liveAtPeak';
import { attributingStack, recordOrigin } from './liveAtPeak';
import type { DeviceReplay } from './replay';
import { allocTimeUs, traceOf } from './replay';

export interface BucketName {
  readonly kind: PeakBucketKind;
  readonly label: string;
}

const AUTOGRAD_NODE = /torch::autograd::(?:generated::)?([A-Za-z_][A-Za-z0-9_]*)::apply/;
const AUTOGRAD_ENGINE = 'torch::autograd::Engine';

/** Classifies the blocks of one device's replay that no self line holds. */
export class PeakBucketClassifier {
  private readonly ranges: AnnotationIndex;
  /** Per stack: the frame-based bucket (backward or library or noFrames), computed on first use. */
  private readonly byStack = new Map<number, { first?: BucketName; last: BucketName }>();

  constructor(
    private readonly snapshot: Snapshot,
    private readonly replay: DeviceReplay,
    private readonly lineIndex: LineIndex,
  ) {
    this.ranges = new AnnotationIndex(annotationRanges(snapshot.externalAnnotations, replay.device));
  }

  /** Whether record r is held by a self line (then it has no bucket). */
  hasSelfLine(record: number): boolean {
    const stack = attributingStack(this.replay.allocations, record);
    return stack !== NO_STACK && this.lineIndex.selfLine[stack] !== NO_LINE;
  }

  /** The bucket of allocation record r, or undefined when a self line holds it. */
  bucketOf(record: number): BucketName | undefined {
    if (this.hasSelfLine(record)) return undefined;
    const records = this.replay.allocations;
    const origin = recordOrigin(records, record);
    const stack = attributingStack(records, record);
    const frames = stack === NO_STACK ? [] : this.snapshot.stacks[stack];
    if (origin !== 'trace' && frames.length === 0) return { kind: 'beforeRecording', label: '' };
    const byFrames = this.framesBuckets(stack);
    if (byFrames.first !== undefined) return byFrames.first;
    if (origin === 'trace') {
      const range = this.ranges.innermost(allocTimeUs(traceOf(this.snapshot, this.replay.device), records, record));
      if (range !== undefined) return { kind: 'annotation', label: range.name };
    }
    return byFrames.last;
  }

  /** Rule 1 (before annotations) and rules 3-4 (after), from a stack alone. */
  private framesBuckets(stack: number): { first?: BucketName; last: BucketName } {
    const known = this.byStack.get(stack);
    if (known !== undefined) return known;
    const frames = stack === NO_STACK ? [] : this.snapshot.stacks[stack].map((f) => this.snapshot.frames[f]);
    let result: { first?: BucketName; last: BucketName } = { last: { kind: 'noFrames', label: '' } };
    const node = frames.map((f) => AUTOGRAD_NODE.exec(f.name)).find((m) => m !== null);
    const source = frames.find(isSourceFrame);
    if (node) result = { first: { kind: 'backward', label: node[1] }, last: result.last };
    else if (frames.some((f) => f.name.includes(AUTOGRAD_ENGINE))) result = { first: { kind: 'backward', label: 'autograd' }, last: result.last };
    else if (source !== undefined) result = { last: { kind: 'library', label: baseName(source.filename) } };
    this.byStack.set(stack, result);
    return result;
  }
}

/** Orders buckets by bytes descending, then kind, then label (spec). */
export function compareBuckets(a: PeakBucket, b: PeakBucket): number {
  if (a.bytes !== b.bytes) return b.bytes - a.bytes;
  if (a.kind !== b.kind) return a.kind < b.kind ? -1 : 1;
  if (a.label !== b.label) return a.label < b.label ? -1 : 1;
  return 0;
}

/** Every live-at-peak byte no self line holds, one entry per (kind, label) with non-zero bytes. */
export function peakBreakdown(classifier: PeakBucketClassifier, live: readonly LiveBlock[]): PeakBucket[] {
  const totals = new Map<string, { kind: PeakBucketKind; label: string; bytes: number }>();
  for (const block of live) {
    const bucket = classifier.bucketOf(block.record);
    if (bucket === undefined) continue;
    const key = `${bucket.kind}\u0000${bucket.label}`;
    const entry = totals.get(key) ?? { kind: bucket.kind, label: bucket.label, bytes: 0 };
    entry.bytes += block.size;
    totals.set(key, entry);
  }
  return [...totals.values()].filter((b) => b.bytes !== 0).sort(compareBuckets);
}
