/** Hovers on annotated lines: the line's figures, allocations, call stacks and a timeline link. */
import * as vscode from 'vscode';
import type { LineDetail } from '../../engine/analysis/lineDetail';
import { Commands } from '../shared/commandIds';
import type { AnnotationState, Annotator } from './annotator';
import { hoverMarkdown } from './hoverMarkdown';
import { placeOf } from '../../engine/paths/places';

export class AnnotationHoverProvider implements vscode.HoverProvider {
  constructor(
    private readonly annotator: Annotator,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  async provideHover(document: vscode.TextDocument, position: vscode.Position): Promise<vscode.Hover | undefined> {
    const annotation = this.annotator.annotationAt(document, position.line);
    const state = this.annotator.state;
    if (!annotation || !state) return undefined;
    const f = annotation.figures;
    const detail = await this.detail(state, f.file, f.line);
    const device = state.snapshot.deviceSummary(state.device);
    const peakLine = device?.peakLine;
    const functionName = state.functionNames[f.lineId] ?? '';
    const mapped = new Set<string>();
    for (const file of state.files.values()) for (const r of file.recorded) mapped.add(r);
    for (const r of Object.keys(state.places)) mapped.add(r); // cells of notebooks that are not open open too
    const markdown = new vscode.MarkdownString(
      hoverMarkdown({
        snapshotId: state.snapshot.id,
        snapshotLabel: state.snapshot.label,
        device: state.device,
        peakBytes: state.peakBytes,
        figures: f,
        detail,
        stale: annotation.stale,
        relocation: functionName === '' && !placeOf(f.file, state.places) ? undefined : { kind: annotation.relocation, functionName, shownLine: annotation.line },
        isPeakLine: peakLine !== undefined && peakLine.file === f.file && String(peakLine.line) === String(f.line),
        peakBreakdown: device?.peakBreakdown,
        isMapped: (file) => mapped.has(file),
        places: state.places,
      }),
    );
    markdown.isTrusted = { enabledCommands: [Commands.openFrame, Commands.showLineInTimeline] };
    return new vscode.Hover(markdown, document.lineAt(position.line).range);
  }

  /** The line's details, from the snapshot's cache (asked of its worker once per line, device and stack count). */
  private detail(state: AnnotationState, file: string, line: number | bigint): Promise<LineDetail | undefined> {
    const maxStacks = this.annotator.editorSettings.hoverStacks;
    return state.snapshot.lineDetail({ device: state.device, file, line, maxSizes: 6, maxStacks }).catch((e: unknown) => {
      this.log.warn(`No details for ${file}:${String(line)}:`, e);
      return undefined;
    });
  }
}
