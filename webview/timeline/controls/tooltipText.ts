/**
 * Words for what the pointer is on: the tooltip's lines, a block's lifetime, and what a block
 * without a line of the user's is (its bucket of the peak breakdown). No DOM: tested in Node.
 */
import { bucketKindName, describeBucket, PEAK_BUCKET_KINDS } from '../../../src/engine/analysis/peakBreakdown';
import { FIGURE, lineFigure } from '../../../src/engine/analysis/lineFigures';
import type { BlockDetail, LineRow, PeakBucketKind, TimelineOverview, TimelineSpan } from '../../../src/protocol/timeline';
import { formatBytes, formatCount } from '../../../src/engine/text/format';
import type { Hit } from '../drawing/hit';
import { lineLabel } from '../../../src/engine/paths/places';
import { formatDuration } from '../drawing/ticks';
import { BEFORE_TRACE, BEFORE_WINDOW } from '../../../src/engine/analysis/replay';


/**
 * The index in the recording of the loaded trace's first event: a window's first (the file's
 * numbering is the one every view uses), else 0.
 */
export function firstEventOf(overview: Pick<TimelineOverview, 'window'>): number {
  return overview.window?.firstEvent ?? 0;
}

/**
 * "after event 1,234" for a state (state s follows event s - 1 of the loaded trace), the event named as
 * the recording numbers it (`first`: `firstEventOf`); state 0 is before the first event, or when a
 * window opens.
 */
export function stateLabel(state: number, first = 0): string {
  if (state === 0) return first > 0 ? 'when the window opens' : 'before the first event';
  return `after event ${formatCount(first + state - 1)}`;
}

export function lifetime(d: BlockDetail, overview: TimelineOverview): string {
  const origin = overview.axis.kind === 'time' ? overview.axis.start : undefined;
  const first = firstEventOf(overview);
  const at = (event: number, time: number | undefined) =>
    `event ${formatCount(first + event)}${time !== undefined && origin !== undefined ? ` (+${formatDuration(time - origin)})` : ''}`;
  const born = d.allocEvent >= 0 ? `allocated at ${at(d.allocEvent, d.allocTimeUs)}` : d.allocEvent === BEFORE_WINDOW ? 'allocated before the loaded window' : 'allocated before recording began';
  const died = d.freeEvent >= 0 ? `freed at ${at(d.freeEvent, d.freeTimeUs)}` : 'still allocated at the end';
  const span = d.allocTimeUs !== undefined && d.freeTimeUs !== undefined ? `, alive ${formatDuration(d.freeTimeUs - d.allocTimeUs)}` : '';
  return `${born}; ${died}${span}`;
}

/** The bucket of the peak breakdown a block without a line of the user's belongs to (from the core's block query). */
interface BlockBucket {
  readonly kind: PeakBucketKind;
  readonly label: string;
}

/** The block's bucket when the host sent one (`bucket` on the block's detail). */
export function bucketOf(detail: BlockDetail | undefined): BlockBucket | undefined {
  const bucket = (detail as { readonly bucket?: unknown } | undefined)?.bucket;
  if (typeof bucket !== 'object' || bucket === null) return undefined;
  const b = bucket as Record<string, unknown>;
  return typeof b.kind === 'string' && typeof b.label === 'string' ? { kind: b.kind as PeakBucketKind, label: b.label } : undefined;
}

/** What a block without a line of the user's is: its bucket, in the words the summary uses. */
export function unattributedLabel(detail: BlockDetail | undefined): string {
  const bucket = bucketOf(detail);
  if (bucket) return describeBucket(bucket.kind, bucket.label);
  if (detail && detail.allocEvent === BEFORE_TRACE) return describeBucket('beforeRecording', '');
  return describeBucket('noFrames', '');
}

/** Whether every number a tooltip would print for this hit is there and finite (a hit from an older span is not). */
function fits(hit: Hit, w: TimelineSpan): boolean {
  const finite = (...values: (number | undefined)[]) => values.every((v) => v !== undefined && Number.isFinite(v));
  switch (hit.kind) {
    case 'block':
      return w.blockRecord[hit.index] === hit.record && finite(w.blockSize[hit.index]);
    case 'rest':
    case 'reserved':
      return hit.step >= 0 && hit.step < w.stepState.length && finite(w.rest[hit.step], w.envelope[hit.step], w.reserved[hit.step]);
    case 'release':
      return finite(w.releaseBytes[hit.index], w.releaseCount[hit.index]);
    default:
      return true;
  }
}

/** Tooltip lines for a hit; `detail` adds the stack once the host has sent it, `rowOf` a line's figures (the lines table's rows). */
export function tooltipLines(
  hit: Hit,
  w: TimelineSpan | undefined,
  overview: TimelineOverview,
  detail: BlockDetail | undefined,
  rowOf: (lineId: number) => LineRow | undefined = () => undefined,
): string[] {
  if (w && !fits(hit, w)) return [];
  switch (hit.kind) {
    case 'block': {
      if (!w) return [];
      const line = w.lines.find((l) => l.id === w.blockLine[hit.index]);
      const mine = detail && detail.record === hit.record ? detail : undefined;
      // Before the detail (and its bucket's label) arrives, a block without a line is named by its bucket's kind.
      const kind = PEAK_BUCKET_KINDS[w.blockBucket[hit.index]] as PeakBucketKind | undefined;
      const unlined = mine || kind === undefined ? unattributedLabel(mine) : bucketKindName(kind);
      const head = `${formatBytes(w.blockSize[hit.index])}  ${line ? lineLabel(line.file, line.line, overview.places) : unlined}`;
      const out = [head];
      // The line's own figure (one truth: the analysis' live-at-peak bytes, as the hover and the summary show it).
      const row = line ? rowOf(line.id) : undefined;
      if (line && row) out.push(`${lineLabel(line.file, line.line, overview.places)} holds ${formatBytes(row[FIGURE.heldAtPeak])} ${lineFigure(FIGURE.heldAtPeak).label}`);
      if (mine) {
        out.push(lifetime(mine, overview));
        for (const f of mine.frames.slice(0, 4)) out.push(`${f.user ? '▸' : ' '} ${f.name}  ${lineLabel(f.file, f.line, overview.places)}`);
      }
      // Only a block with a line of the user's has a line to open.
      out.push(line ? 'Click to pin, double-click to open the line' : 'Click to pin and see its stack');
      return out;
    }
    case 'rest':
      return w
        ? [
            `${formatBytes(w.rest[hit.step])} in smaller blocks, merged`,
            `of ${formatBytes(w.envelope[hit.step])} allocated ${stateLabel(w.stepState[hit.step], firstEventOf(overview))}`,
            'Zoom in to see them one by one',
          ]
        : [];
    case 'reserved':
      return w
        ? [
            `${formatBytes(w.reserved[hit.step] - w.envelope[hit.step])} reserved but not allocated (cached by PyTorch)`,
            `${formatBytes(w.reserved[hit.step])} reserved, ${formatBytes(w.envelope[hit.step])} allocated`,
          ]
        : [];
    case 'peak': {
      const p = overview.peak;
      return [`Peak: ${formatBytes(p.bytes)} ${stateLabel(p.state, firstEventOf(overview))}`, p.line ? `reached by ${lineLabel(p.line.file, p.line.line, overview.places)}` : ''];
    }
    case 'finding':
      return [hit.marker.title, hit.marker.message];
    case 'oom': {
      const o = overview.ooms[hit.index];
      return [
        `Out of memory ${stateLabel(o.state, firstEventOf(overview))}`,
        `requested ${formatBytes(o.requestedBytes)}${o.deviceFreeBytes !== undefined ? `, ${formatBytes(o.deviceFreeBytes)} free on the device` : ''}`,
        o.line ? `at ${lineLabel(o.line.file, o.line.line, overview.places)}` : '',
      ];
    }
    case 'release':
      return w
        ? [`Segment release: ${formatBytes(w.releaseBytes[hit.index])} returned to the device (${w.releaseCount[hit.index]} segment(s))`, 'e.g. torch.cuda.empty_cache()']
        : [];
    case 'annotation': {
      const a = overview.annotations[hit.index];
      return [a.name];
    }
    case 'segment':
    case 'allocatorStep':
      // The allocator view's own words (allocatorText.ts).
      return [];
  }
}

