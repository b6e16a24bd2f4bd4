/**
 * The markdown of a line's hover: its figures in self and inclusive form, its allocation sizes, the
 * call stacks that reached it (frames link to the mapped files) and a link to the timeline. Frame
 * names and paths come from the snapshot: they are escaped as untrusted text everywhere.
 * Free of `vscode` so it is unit-tested in plain Node.
 */
import type { LineDetail } from '../../engine/analysis/lineDetail';
import type { FigureRegistry, LineFigureSpec } from '../../engine/analysis/lineFigures';
import { LINE_FIGURES, inclusiveFormOf } from '../../engine/analysis/lineFigures';
import type { LineFigures } from '../../engine/analysis/lines';
import type { PeakBucket } from '../../engine/analysis/peakBreakdown';
import type { RelocationKind } from '../../engine/annotate/relocation';
import { formatBytes, formatCount, formatPercent } from '../../engine/text/format';
import { escapeMarkdown } from '../../engine/text/plainText';
import type { CellPlaces } from '../../engine/paths/places';
import { cellLine, lineLabel, placeOf } from '../../engine/paths/places';
import { Commands } from '../shared/commandIds';
import { peakBreakdownLines } from './peakBreakdownText';

/** Arguments of `vramLens.openFrame`. */
export interface OpenFrameArgs {
  readonly file: string;
  /** As a string: snapshot line numbers can exceed 2^53. */
  readonly line: string;
}

/**
 * Arguments of `vramLens.showLineInTimeline`: the timeline view reads `file` (as recorded) and
 * `line`; the rest pins the snapshot, device and allocation. Without a timeline the summary opens.
 */
export interface ShowLineInTimelineArgs {
  readonly file: string;
  /** 1-based. */
  readonly line: number;
  readonly snapshotId: string;
  readonly device: number;
  /** Trace index of the line's largest allocation, and its allocation record index. */
  readonly allocEvent: number;
  readonly record: number;
}

export interface HoverInput {
  readonly snapshotId: string;
  readonly snapshotLabel: string;
  readonly device: number;
  readonly peakBytes: number;
  readonly figures: LineFigures;
  readonly detail: LineDetail | undefined;
  readonly stale: boolean;
  /** Whether the recorded line was inside the function its frames name, in the file as it is now. */
  readonly relocation?: { readonly kind: RelocationKind; readonly functionName: string; readonly shownLine: number };
  /** The device peak's named buckets (shown when this line reached the peak). */
  readonly peakBreakdown?: readonly PeakBucket[];
  /** This line's allocation reached the device peak. */
  readonly isPeakLine?: boolean;
  /** Recorded files that map to a local file (their frames become links). */
  readonly isMapped: (recordedFile: string) => boolean;
  /** The notebook cells of recorded cell files: their lines are named by cell. */
  readonly places?: CellPlaces;
  /** The figures the table shows (the registry's; tests plant one more). */
  readonly figureRegistry?: FigureRegistry;
}

const MAX_USER_FRAMES = 6;

/**
 * Space before a figure in the hover's table, so that columns stand apart: no-break spaces written as
 * entities (markdown trims a cell's whitespace, no-break spaces included, but not an entity).
 */
export const COLUMN_GAP = '&nbsp;'.repeat(4);

/** Escapes text for markdown (and for the HTML markdown may carry). */
export function commandUri(command: string, args: unknown): string {
  return `command:${command}?${encodeURIComponent(JSON.stringify([args]))}`;
}

function frameLink(name: string, file: string, line: string, mapped: boolean, places: CellPlaces | undefined): string {
  const label = `${escapeMarkdown(name)} ${escapeMarkdown(lineLabel(file, line, places))}`;
  if (!mapped) return label;
  const args: OpenFrameArgs = { file, line };
  return `[${label}](${commandUri(Commands.openFrame, args)} "${escapeMarkdown(file)}:${line}")`;
}

function bytesAndShare(bytes: number, peak: number): string {
  return bytes > 0 ? `${formatBytes(bytes)} · ${formatPercent(bytes, peak)}` : '—';
}

function figureCell(spec: LineFigureSpec | undefined, f: LineFigures, peak: number): string {
  if (!spec) return '';
  const value = f[spec.key];
  if (spec.unit === 'count') return value > 0 ? formatCount(value) : '—';
  if (spec.share) return bytesAndShare(value, peak);
  return value > 0 ? formatBytes(value) : '—';
}

/** Whether a figure has something to say on this line: a value above zero in either form. */
function hasValue(f: LineFigures, ...specs: (LineFigureSpec | undefined)[]): boolean {
  return specs.some((spec) => spec !== undefined && f[spec.key] > 0);
}

/**
 * The figures table, rows and labels from the registry: each self figure beside its inclusive form
 * (`inclusiveFormOf`); a figure the registry gains shows up here without an edit. A figure beyond the
 * contract (the allocator's: reserved grown, cudaMalloc/cudaFree calls) shows only on lines where it
 * is above zero: most lines make no segment, and a row of dashes there says nothing.
 */
function figureRows(f: LineFigures, peak: number, figures: FigureRegistry): string[] {
  // VS Code draws hover tables without cell padding: the figures would run together ("2.0 GiB · 18%2.0 GiB · 18%").
  const cell = (text: string) => (text === '' ? '' : `${COLUMN_GAP}${text}`);
  const rows = [`| | ${cell('this line')} | ${cell('with its calls')} |`, '|:--|--:|--:|'];
  const paired = new Set<LineFigureSpec>();
  for (const spec of figures) {
    if (spec.inclusive) continue;
    const inclusive = inclusiveFormOf(spec, figures);
    if (inclusive) paired.add(inclusive);
    if (spec.beyondContract && !hasValue(f, spec, inclusive)) continue;
    const label = spec.share ? `${spec.label} (share of ${formatBytes(peak)})` : spec.label;
    rows.push(`| ${label} | ${cell(figureCell(spec, f, peak))} | ${cell(figureCell(inclusive, f, peak))} |`);
  }
  for (const spec of figures) if (spec.inclusive && !paired.has(spec) && (!spec.beyondContract || hasValue(f, spec))) rows.push(`| ${spec.label} | | ${cell(figureCell(spec, f, peak))} |`);
  return rows;
}

/** Frames of the caching allocator and of the unwinder that recorded the stack: nobody's code. */
const ALLOCATOR_FRAME = /\b(?:torch::unwind::|CapturedTraceback|c10::cuda::CUDACachingAllocator|CUDACachingAllocator|c10::Caching|unwind::unwind|gather_traceback|torch::CapturedTraceback)/;

/**
 * The stack as people read it: the allocator's and the unwinder's own frames at its innermost end left out.
 * (One place: the numbers helper adds a core trimming function that replaces this.)
 */
function withoutAllocatorFrames<F extends { readonly name: string }>(frames: readonly F[]): readonly F[] {
  let start = 0;
  while (start < frames.length && ALLOCATOR_FRAME.test(frames[start].name)) start++;
  return start === 0 ? frames : frames.slice(start);
}

function sizesList(sizes: readonly number[], total: number): string {
  const shown = sizes.map((s) => formatBytes(s)).join(', ');
  return total > sizes.length ? `${shown}, … and ${total - sizes.length} more` : shown;
}

export function hoverMarkdown(input: HoverInput): string {
  const { figures: f, detail, peakBytes, places } = input;
  const line = String(f.line);
  const cell = placeOf(f.file, places);
  const out: string[] = [];
  out.push(
    `**VRAM Lens** · ${escapeMarkdown(lineLabel(f.file, f.line, places))} · device ${input.device} · ${escapeMarkdown(input.snapshotLabel)}` +
      (input.stale ? ' · *this line changed since the snapshot*' : ''),
  );
  out.push('');
  out.push(...figureRows(f, peakBytes, input.figureRegistry ?? LINE_FIGURES));
  if (cell && input.relocation && input.relocation.kind !== 'inside') {
    out.push('');
    out.push(
      input.relocation.kind === 'relocated'
        ? `*The cell changed since it ran: the code of its line ${cellLine(cell, f.line)} is now on line ${input.relocation.shownLine + 1}, where these figures are shown.*`
        : `*The cell changed since it ran: its line ${cellLine(cell, f.line)} no longer reads as it did.*`,
    );
  } else if (input.relocation && input.relocation.kind !== 'inside') {
    out.push('');
    const fn = `\`${escapeMarkdown(input.relocation.functionName)}\``;
    out.push(
      input.relocation.kind === 'relocated'
        ? `*The file changed since the recording: line ${line} is no longer in ${fn}; these figures are shown on line ${input.relocation.shownLine + 1}, in ${fn}.*`
        : `*The file changed since the recording? Line ${line} was recorded in ${fn}, and no function of that name is close by.*`,
    );
  }
  if (input.isPeakLine && input.peakBreakdown && input.peakBreakdown.length > 0) {
    out.push('');
    out.push(`**This line reached the peak** (${formatBytes(peakBytes)}). Held at the peak besides lines of your code:`);
    out.push('');
    out.push(...peakBreakdownLines(input.peakBreakdown, peakBytes));
  }

  if (detail) {
    if (detail.largest) {
      const args: ShowLineInTimelineArgs = {
        snapshotId: input.snapshotId,
        device: input.device,
        file: f.file,
        line: Number(f.line),
        allocEvent: detail.largest.allocEvent,
        record: detail.largest.record,
      };
      const what = detail.largest.self ? 'its largest allocation' : 'the largest allocation made through it';
      out.push('');
      out.push(`[Show ${what} (${formatBytes(detail.largest.bytes)}) in the timeline](${commandUri(Commands.showLineInTimeline, args)})`);
    }
    if (detail.stacks.length > 0) {
      out.push('');
      const of = detail.stackCount > detail.stacks.length ? ` (top ${detail.stacks.length} of ${detail.stackCount})` : '';
      out.push(`**Call stacks through this line**${of}, innermost first:`);
      out.push('');
      detail.stacks.forEach((stack, i) => {
        const parts: string[] = [];
        let library = 0;
        let users = 0;
        const flush = () => {
          if (library > 0) parts.push(`*${library} library frame${library === 1 ? '' : 's'}*`);
          library = 0;
        };
        for (const frame of withoutAllocatorFrames(stack.frames)) {
          if (!frame.user) {
            library++;
            continue;
          }
          if (users === MAX_USER_FRAMES) {
            parts.push('…');
            library = 0;
            break;
          }
          flush();
          parts.push(frameLink(frame.name, frame.filename, String(frame.line), input.isMapped(frame.filename), places));
          users++;
        }
        flush();
        const allocations = stack.count === 1 ? '1 allocation' : `${stack.count} allocations`;
        out.push(`${i + 1}. ${formatBytes(stack.bytes)} in ${allocations}: ${parts.join(' ← ')}`);
      });
    }
    if (detail.allocationCount > 0) {
      out.push('');
      out.push(`**Allocations**, largest first: ${sizesList(detail.allocationSizes, detail.allocationCount)}`);
    }
    if (detail.liveBlockCount > 0) {
      out.push('');
      out.push(`**Held at the peak**: ${sizesList(detail.liveBlockSizes, detail.liveBlockCount)}`);
    }
  }
  return out.join('\n');
}
