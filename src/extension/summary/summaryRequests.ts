/**
 * What the summary posts, free of `vscode`: the page's model of a loaded snapshot (its figures, the
 * recorded files found on this machine, the advisor's findings) and the caching allocator replayed for
 * the device shown (its self-check, its OOMs explained), each from the snapshot's worker. The view
 * (summaryView.ts) decides when to post them.
 */
import { userMessage } from '../../engine/base/errors';
import type { Finding } from '../../engine/advice/finding';
import { topLines } from '../../engine/analysis/summary';
import type { LineFigures } from '../../engine/analysis/lines';
import { figureValues } from '../../engine/analysis/lineFigures';
import { isCellName } from '../../engine/notebook/cellNames';
import type { SummaryAdvice, SummaryAllocator, SummaryLine, SummaryModel } from '../../protocol/summary';
import type { LoadedSnapshot } from '../shared/snapshotStore';
import type { ResolvedPaths } from '../shared/pathResolver';
import { cellPlacesOf } from '../shared/pathResolver';

const TOP_LINES = 15;
/** Recorded OOMs the summary explains. */
const SUMMARY_OOMS = 5;

/** The recorded files with figures in any of the snapshot's devices. */
export async function recordedFiles(snapshot: LoadedSnapshot): Promise<string[]> {
  const recorded = new Set<string>();
  for (const d of snapshot.info.devices) for (const l of await snapshot.lines(d.device)) recorded.add(l.file);
  return [...recorded];
}

/** How many unmapped files the page lists (it says how many more there are). */
const UNMAPPED_SHOWN = 10;

/** The advisor's findings, when they are ready (or undefined while they are worked out). */
export type Findings = readonly Finding[] | 'off' | undefined;

/**
 * The page's model; `resolved` undefined while the recorded files are still being looked for on this
 * machine (the page says so, and no line is a link yet). `active`: the snapshot annotates the editors.
 */
export async function summaryModel(snapshot: LoadedSnapshot, active: boolean, findings: Findings, resolved: ResolvedPaths | undefined, recordedCount: number): Promise<SummaryModel> {
  const perDevice = await Promise.all(
    snapshot.info.devices.map(async (d) => ({ summary: d, lines: await snapshot.lines(d.device) })),
  );
  const mapped = (file: string) => (resolved?.local.has(file) ?? false) || (resolved?.cells.has(file) ?? false);
  const notFound = resolved?.unmapped ?? [];
  const filesNotFound = notFound.filter((f) => !isCellName(f));
  const advice: SummaryAdvice =
    findings === 'off'
      ? { state: 'off' }
      : findings === undefined
        ? { state: 'pending' }
        : {
            state: 'ready',
            findings: findings.map((f) => ({
              device: f.device,
              rule: f.rule,
              severity: f.severity,
              title: f.title,
              message: f.message,
              ...(f.file !== undefined && f.line !== undefined ? { at: { file: f.file, line: String(f.line), mapped: mapped(f.file) } } : {}),
            })),
          };
  const line = (l: LineFigures): SummaryLine => ({
    file: l.file,
    line: String(l.line),
    mapped: mapped(l.file),
    figures: figureValues(l),
  });
  return {
    label: snapshot.label,
    path: snapshot.uri?.scheme === 'file' ? snapshot.uri.fsPath : snapshot.uri?.toString(),
    layout: snapshot.info.layout,
    byteLength: snapshot.info.byteLength,
    hasTimes: snapshot.info.hasTimes,
    active,
    selectedDevice: snapshot.device,
    devices: perDevice.map(({ summary: d, lines }) => ({
      device: d.device,
      events: d.events,
      allocations: d.allocations,
      peakBytes: d.peakBytes,
      peakEventIndex: d.peakEventIndex,
      peakLine: d.peakLine && { file: d.peakLine.file, line: String(d.peakLine.line), mapped: mapped(d.peakLine.file) },
      peakReservedBytes: d.peakReservedBytes,
      finalReservedBytes: d.finalReservedBytes,
      initialActiveBytes: d.initialActiveBytes,
      finalActiveBytes: d.finalActiveBytes,
      oomCount: d.oomCount,
      linesWithFigures: d.linesWithFigures,
      topLines: topLines({ lines }, TOP_LINES).map(line),
      peakBreakdown: d.peakBreakdown,
      ...(d.window === undefined ? {} : { window: d.window }),
      ...(d.reservedUnknown === undefined ? {} : { reservedUnknown: d.reservedUnknown }),
    })),
    // The first few files not found, and every cell not found (the page says which notebooks' cells they are).
    unmappedFiles: [...filesNotFound.slice(0, UNMAPPED_SHOWN), ...notFound.filter(isCellName)],
    unmappedCount: filesNotFound.length,
    ...(resolved ? {} : { findingFiles: recordedCount }),
    advice,
    places: resolved ? cellPlacesOf(resolved) : {},
  };
}

/**
 * The allocator replayed for one device: the self-check and the first recorded OOMs explained, with
 * which of their files `resolve` finds on this machine (their lines are links).
 */
export async function summaryAllocator(snapshot: LoadedSnapshot, device: number, resolve: (files: string[]) => Promise<ResolvedPaths>): Promise<SummaryAllocator> {
  const [check, ooms] = await Promise.all([snapshot.call('allocatorCheck', { device }), snapshot.call('allocatorOoms', { device })]);
  const shown = ooms.slice(0, SUMMARY_OOMS);
  const files = [...new Set(shown.flatMap((o) => (o.file ? [o.file] : [])))];
  const local = files.length > 0 ? (await resolve(files)).local : new Map<string, string>();
  return { device, check, ooms: shown, mapped: files.filter((f) => local.has(f)) };
}

/** The allocator section when the replay could not be made (a window of the recording: the replay needs all of it), in the user's words. */
export function allocatorUnavailable(device: number, error: unknown): SummaryAllocator {
  const why = userMessage(error);
  return { device, unavailable: why.charAt(0).toUpperCase() + why.slice(1) };
}
