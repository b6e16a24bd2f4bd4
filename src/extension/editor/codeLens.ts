/**
 * A code lens over each Python function that allocates: its inclusive peak and the memory it holds
 * at the peak (each allocation counted once per function, computed by the worker), and `Clear`.
 * Function ranges come from the language server's document symbols when one answers, else from
 * an indentation scan of the file.
 */
import * as vscode from 'vscode';
import { FIGURE, lineFigure } from '../../engine/analysis/lineFigures';
import type { FunctionRange } from '../../engine/annotate/pythonFunctions';
import { findPythonFunctions } from '../../engine/annotate/pythonFunctions';
import type { LineAnnotation } from '../../engine/annotate/lineAnnotations';
import { formatBytes, formatPercent } from '../../engine/text/format';
import { Commands } from '../shared/commandIds';
import type { Annotator } from './annotator';
import type { OpenFrameArgs } from './hoverMarkdown';
import { errorMessage } from '../../engine/base/errors';
import { DisposableOwner } from '../shared/disposables';

const FUNCTION_KINDS = new Set([vscode.SymbolKind.Function, vscode.SymbolKind.Method, vscode.SymbolKind.Constructor]);

function symbolFunctions(symbols: readonly vscode.DocumentSymbol[], out: FunctionRange[] = [], parent = ''): FunctionRange[] {
  for (const s of symbols) {
    const qualifiedName = parent ? `${parent}.${s.name}` : s.name;
    if (FUNCTION_KINDS.has(s.kind)) out.push({ name: s.name, qualifiedName, line: s.range.start.line, endLine: s.range.end.line });
    symbolFunctions(s.children ?? [], out, qualifiedName);
  }
  return out;
}

/** Function ranges of `document`: document symbols if a provider gives them, else the indentation scan. */
export async function functionRanges(document: vscode.TextDocument): Promise<FunctionRange[]> {
  try {
    const symbols = await vscode.commands.executeCommand<(vscode.DocumentSymbol | vscode.SymbolInformation)[] | undefined>(
      'vscode.executeDocumentSymbolProvider',
      document.uri,
    );
    if (symbols && symbols.length > 0 && 'children' in symbols[0]) {
      const found = symbolFunctions(symbols as vscode.DocumentSymbol[]);
      if (found.length > 0) return found;
    }
  } catch {
    // No symbol provider: scan below.
  }
  const lines: string[] = [];
  for (let i = 0; i < document.lineCount; i++) lines.push(document.lineAt(i).text);
  return findPythonFunctions(lines);
}

export class FunctionCodeLensProvider extends DisposableOwner implements vscode.CodeLensProvider {
  private readonly changed = this.own(new vscode.EventEmitter<void>());
  readonly onDidChangeCodeLenses = this.changed.event;

  constructor(
    private readonly annotator: Annotator,
    private readonly log: vscode.LogOutputChannel,
  ) {
    super();
    this.own(annotator.onDidChange(() => this.changed.fire()));
  }

  async provideCodeLenses(document: vscode.TextDocument, token: vscode.CancellationToken): Promise<vscode.CodeLens[]> {
    const state = this.annotator.state;
    const file = this.annotator.fileOf(document);
    const annotations = this.annotator.annotationsFor(document);
    if (!state || !file || !annotations || !this.annotator.editorSettings.codeLens || annotations.lines.length === 0) return [];
    const functions = await functionRanges(document);
    if (token.isCancellationRequested) return [];

    // The annotated lines inside each function; a nested function's lines count for its parents too.
    const within = functions
      .map((fn) => ({ fn, lines: annotations.lines.filter((l) => l.line >= fn.line && l.line <= fn.endLine) }))
      .filter((x) => x.lines.length > 0);
    if (within.length === 0) return [];
    const ranges = within.map(({ lines }) => ({
      files: file.recorded,
      startLine: Math.min(...lines.map((l) => l.originalLine)) + 1,
      endLine: Math.max(...lines.map((l) => l.originalLine)) + 1,
    }));
    let figures;
    try {
      figures = await state.snapshot.call('rangeFigures', { device: state.device, ranges });
    } catch (e) {
      this.log.warn(`Code lens figures of ${state.snapshot.label}: ${errorMessage(e)}`);
      return [];
    }
    if (token.isCancellationRequested || this.annotator.state !== state) return [];

    const minimum = this.annotator.editorSettings.annotation.thresholdFraction * state.peakBytes;
    const lenses: vscode.CodeLens[] = [];
    within.forEach(({ fn, lines }, i) => {
      // The function's figures (each allocation counted once), by what they mean.
      const range = figures[i];
      const allocated = range[FIGURE.allocated] ?? 0;
      const held = range[FIGURE.heldAtPeak] ?? 0;
      const peak = range[FIGURE.peakWhileAllocating] ?? 0;
      const allocations = range[FIGURE.allocations] ?? 0;
      if (Math.max(allocated, held) < minimum || allocated + held === 0) return;
      const heldWithCalls = (l: LineAnnotation) => l.figures[FIGURE.heldAtPeakWithCalls];
      const allocatedWithCalls = (l: LineAnnotation) => l.figures[FIGURE.allocatedWithCalls];
      const heaviest = lines.reduce((a: LineAnnotation, b) =>
        heldWithCalls(b) > heldWithCalls(a) || (heldWithCalls(b) === heldWithCalls(a) && allocatedWithCalls(b) > allocatedWithCalls(a)) ? b : a,
      );
      const heldLabel = lineFigure(FIGURE.heldAtPeak).label;
      const parts = peak > 0 ? [`VRAM peak ${formatBytes(peak)}`] : ['VRAM'];
      if (held > 0) parts.push(`${formatBytes(held)} ${heldLabel} (${formatPercent(held, state.peakBytes)})`);
      else parts.push(`+${formatBytes(allocated)} ${lineFigure(FIGURE.allocated).label}, none ${heldLabel}`);
      const where = document.lineAt(fn.line).range;
      const args: OpenFrameArgs = { file: heaviest.figures.file, line: String(heaviest.figures.line) };
      lenses.push(
        new vscode.CodeLens(where, {
          title: `$(pulse) ${parts.join(' · ')}`,
          tooltip: `${fn.qualifiedName}: ${allocations} allocations, ${formatBytes(allocated)} in all. Go to its heaviest line.`,
          command: Commands.openFrame,
          arguments: [args],
        }),
        new vscode.CodeLens(where, { title: 'Clear', tooltip: 'Remove the VRAM Lens annotations', command: Commands.clearAnnotations }),
      );
    });
    return lenses;
  }
}
