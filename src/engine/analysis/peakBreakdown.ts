/**
 * The named buckets of the live-at-peak bytes that no self line holds (spec: "Explaining the peak").
 * The classification itself is in peakBucketClassifier.ts; this module is the vocabulary every view shares.
 */
export type PeakBucketKind = 'backward' | 'annotation' | 'library' | 'noFrames' | 'beforeRecording';

export interface PeakBucket {
  readonly kind: PeakBucketKind;
  readonly label: string;
  readonly bytes: number;
}

/** How a bucket reads to people: "backward: BmmBackward0", "gradients (AccumulateGrad)", ... */
export function describeBucket(kind: PeakBucketKind, label: string): string {
  switch (kind) {
    case 'backward':
      if (label === 'AccumulateGrad') return 'gradients (AccumulateGrad)';
      if (label === 'PyNode') return 'backward: custom autograd Function (PyNode)';
      return label === 'autograd' || label === '' ? 'backward (autograd engine)' : `backward: ${label}`;
    case 'annotation':
      return `inside ${label}`;
    case 'library':
      return `library code: ${label}`;
    case 'noFrames':
      return 'no Python line recorded';
    case 'beforeRecording':
      return 'allocated before recording began';
  }
}

/** Every bucket kind, in a fixed order (the timeline sends a block's kind as its index here). */
export const PEAK_BUCKET_KINDS: readonly PeakBucketKind[] = ['backward', 'annotation', 'library', 'noFrames', 'beforeRecording'];

/** A bucket kind as a legend names it (its buckets read as describeBucket says). */
export function bucketKindName(kind: PeakBucketKind): string {
  switch (kind) {
    case 'backward':
      return 'backward pass';
    case 'annotation':
      return 'annotated ranges';
    case 'library':
      return 'library code';
    case 'noFrames':
      return 'no Python line recorded';
    case 'beforeRecording':
      return 'allocated before recording began';
  }
}
