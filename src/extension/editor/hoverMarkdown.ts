/**
 * The markdown of a line's hover: its figures in self and inclusive form, its allocation sizes, the
 * call stacks that reached it (frames link to the mapped files) and a link to the timeline. Frame
 * names and paths come from the snapshot: they are escaped as untrusted text everywhere.
 * Free of `vscode` so it is unit-tested in plain Node.
 */
import type { LineDetail } from '../../core/analysis/lineDetail';
import type { LineFigures } from '../../core/analysis/lines';
import { formatBytes, formatPercent } from '../../core/format';
import { baseName } from '../../core/paths/recordedPath';
import { Commands } from '../commandIds';

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
  /** Recorded files that map to a local file (their frames become links). */
  readonly isMapped: (recordedFile: string) => boolean;
}

const MAX_USER_FRAMES = 6;

/** Escapes text for markdown (and for the HTML markdown may carry). */
export function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_{}[\]()#+\-.!|<>~&"']/g, (c) => `\\${c}`).replace(/\r?\n/g, ' ');
}

export function commandUri(command: string, args: unknown): string {
  return `command:${command}?${encodeURIComponent(JSON.stringify([args]))}`;
}

function frameLink(name: string, file: string, line: string, mapped: boolean): string {
  const label = `${escapeMarkdown(name)} ${escapeMarkdown(baseName(file))}:${line}`;
  if (!mapped) return label;
  const args: OpenFrameArgs = { file, line };
  return `[${label}](${commandUri(Commands.openFrame, args)} "${escapeMarkdown(file)}:${line}")`;
}

function bytesAndShare(bytes: number, peak: number): string {
  return bytes > 0 ? `${formatBytes(bytes)} · ${formatPercent(bytes, peak)}` : '—';
}

function sizesList(sizes: readonly number[], total: number): string {
  const shown = sizes.map((s) => formatBytes(s)).join(', ');
  return total > sizes.length ? `${shown}, … and ${total - sizes.length} more` : shown;
}

export function hoverMarkdown(input: HoverInput): string {
  const { figures: f, detail, peakBytes } = input;
  const line = String(f.line);
  const out: string[] = [];
  out.push(
    `**VRAM Lens** · ${escapeMarkdown(baseName(f.file))}:${line} · device ${input.device} · ${escapeMarkdown(input.snapshotLabel)}` +
      (input.stale ? ' · *this line changed since the snapshot*' : ''),
  );
  out.push('');
  out.push('| | this line | with its calls |');
  out.push('|:--|--:|--:|');
  const count = f.allocCount === 1 ? '1 allocation' : `${f.allocCount} allocations`;
  out.push(`| allocated | ${f.allocBytes > 0 ? `${formatBytes(f.allocBytes)} in ${count}` : '—'} | ${f.inclusiveAllocBytes > 0 ? formatBytes(f.inclusiveAllocBytes) : '—'} |`);
  out.push(`| peak while allocating | ${f.peakBytes > 0 ? formatBytes(f.peakBytes) : '—'} | ${f.inclusivePeakBytes > 0 ? formatBytes(f.inclusivePeakBytes) : '—'} |`);
  out.push(`| live at peak (share of ${formatBytes(peakBytes)}) | ${bytesAndShare(f.liveAtPeakBytes, peakBytes)} | ${bytesAndShare(f.inclusiveLiveAtPeakBytes, peakBytes)} |`);
  if (f.freedBytes > 0) out.push(`| freed | ${formatBytes(f.freedBytes)} | |`);

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
        for (const frame of stack.frames) {
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
          parts.push(frameLink(frame.name, frame.filename, String(frame.line), input.isMapped(frame.filename)));
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
