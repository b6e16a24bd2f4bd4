/** Hovers on annotated lines: the line's figures, allocations, call stacks and a timeline link. */
import * as vscode from 'vscode';
import type { LineDetail } from '../../core/analysis/lineDetail';
import { Commands } from '../commandIds';
import type { Annotator } from './annotator';
import { hoverMarkdown } from './hoverMarkdown';
import { peakBreakdownOf } from './peakBreakdownText';

export class AnnotationHoverProvider implements vscode.HoverProvider {
  private readonly details = new Map<string, Promise<LineDetail | undefined>>();
  private detailsFor: unknown;

  constructor(
    private readonly annotator: Annotator,
    private readonly log: vscode.LogOutputChannel,
  ) {}

  async provideHover(document: vscode.TextDocument, position: vscode.Position): Promise<vscode.Hover | undefined> {
    const annotation = this.annotator.annotationAt(document, position.line);
    const state = this.annotator.state;
    if (!annotation || !state) return undefined;
    const f = annotation.figures;
    const detail = await this.detail(f.file, f.line);
    const device = state.snapshot.info.devices.find((d) => d.device === state.device);
    const peakLine = device?.peakLine;
    const functionName = state.functionNames[f.lineId] ?? '';
    const mapped = new Set<string>();
    for (const file of state.files.values()) for (const r of file.recorded) mapped.add(r);
    const markdown = new vscode.MarkdownString(
      hoverMarkdown({
        snapshotId: state.snapshot.id,
        snapshotLabel: state.snapshot.label,
        device: state.device,
        peakBytes: state.peakBytes,
        figures: f,
        detail,
        stale: annotation.stale,
        relocation: functionName === '' ? undefined : { kind: annotation.relocation, functionName, shownLine: annotation.line },
        isPeakLine: peakLine !== undefined && peakLine.file === f.file && String(peakLine.line) === String(f.line),
        peakBreakdown: peakBreakdownOf(device),
        isMapped: (file) => mapped.has(file),
      }),
    );
    markdown.isTrusted = { enabledCommands: [Commands.openFrame, Commands.showLineInTimeline] };
    return new vscode.Hover(markdown, document.lineAt(position.line).range);
  }

  /** The worker's details of a line, cached while the same snapshot and device are annotated. */
  private detail(file: string, line: number | bigint): Promise<LineDetail | undefined> {
    const state = this.annotator.state!;
    if (this.detailsFor !== state) {
      this.details.clear();
      this.detailsFor = state;
    }
    const key = `${file}\u0000${String(line)}\u0000${this.annotator.editorSettings.hoverStacks}`;
    let pending = this.details.get(key);
    if (!pending) {
      const maxStacks = this.annotator.editorSettings.hoverStacks;
      pending = state.snapshot.worker.call('lineDetail', { device: state.device, file, line, maxSizes: 6, maxStacks }).catch((e: unknown) => {
        this.log.warn(`No details for ${file}:${String(line)}:`, e);
        return undefined;
      });
      this.details.set(key, pending);
    }
    return pending;
  }
}
