/**
 * The chart's colours, read from VS Code's theme variables (our contributed colours included)
 * and read again when the theme changes (VS Code swaps the body's classes).
 */
import type { PeakBucketKind } from '../../../src/protocol/timeline';
import { PALETTE_SIZE } from '../../../src/engine/timeline/colors';

export interface Theme {
  readonly kind: 'light' | 'dark' | 'high-contrast' | 'high-contrast-light';
  readonly background: string;
  readonly foreground: string;
  readonly muted: string;
  readonly grid: string;
  /** Font family for canvas text (sizes are set where it is drawn). */
  readonly fontFamily: string;
  readonly allocated: string;
  readonly reserved: string;
  readonly rest: string;
  /** The allocator view: reserved but unallocated memory, and the largest cached free block. */
  readonly unallocated: string;
  readonly largestFree: string;
  /** Blocks with no Python line of the user's code and no better name (the `noFrames` bucket). */
  readonly unattributed: string;
  /** Blocks no line holds, by bucket kind (spec "Explaining the peak"); `noFrames` is `unattributed`. */
  readonly buckets: Readonly<Record<PeakBucketKind, string>>;
  readonly peak: string;
  readonly oom: string;
  /** Device memory measured beside the trace (NVML). */
  readonly measured: string;
  /** The advisor's findings. */
  readonly finding: string;
  readonly release: string;
  readonly annotation: string;
  readonly selection: string;
  readonly palette: readonly string[];
}

/** Used when a variable is missing (the same defaults package.json declares). */
const FALLBACK_PALETTE = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#86bcb6', '#d37295', '#a0cbe8'];

function themeKind(body: HTMLElement): Theme['kind'] {
  if (body.classList.contains('vscode-high-contrast-light')) return 'high-contrast-light';
  if (body.classList.contains('vscode-high-contrast')) return 'high-contrast';
  if (body.classList.contains('vscode-light')) return 'light';
  return 'dark';
}

export function readTheme(): Theme {
  const body = document.body;
  const style = getComputedStyle(body);
  const kind = themeKind(body);
  const light = kind === 'light' || kind === 'high-contrast-light';
  const v = (name: string, fallback: string) => style.getPropertyValue(`--vscode-${name}`).trim() || fallback;
  const foreground = v('foreground', light ? '#3b3b3b' : '#cccccc');
  const unattributed = v('vramLens-timeline-unattributed', light ? '#aab4c0' : '#5f6b7a');
  return {
    kind,
    background: v('sideBar-background', v('editor-background', light ? '#f8f8f8' : '#181818')),
    foreground,
    muted: v('descriptionForeground', light ? '#717171' : '#9d9d9d'),
    grid: v('widget-border', light ? '#e5e5e5' : '#2b2b2b'),
    fontFamily: v('font-family', 'system-ui, sans-serif'),
    allocated: v('vramLens-timeline-allocated', foreground),
    reserved: v('vramLens-timeline-reserved', light ? '#616161' : '#c5c5c5'),
    rest: v('vramLens-timeline-rest', light ? '#8b8b8b59' : '#8b8b8b66'),
    unallocated: v('vramLens-timeline-unallocated', light ? '#d18616' : '#cca700'),
    largestFree: v('vramLens-timeline-largestFree', light ? '#652d90' : '#b180d7'),
    unattributed,
    buckets: {
      backward: v('vramLens-timeline-bucketBackward', light ? '#b4a9e0' : '#5d4f9e'),
      annotation: v('vramLens-timeline-bucketAnnotation', light ? '#d9cb8f' : '#7d6d32'),
      library: v('vramLens-timeline-bucketLibrary', light ? '#9fcfbf' : '#2e6b5e'),
      noFrames: unattributed,
      beforeRecording: v('vramLens-timeline-bucketBeforeRecording', light ? '#d9b2c2' : '#6b4456'),
    },
    peak: v('vramLens-timeline-peak', light ? '#bf8803' : '#cca700'),
    oom: v('vramLens-timeline-oom', light ? '#e51400' : '#f14c4c'),
    measured: v('vramLens-timeline-measured', light ? '#388a34' : '#89d185'),
    finding: v('vramLens-timeline-finding', light ? '#bf8803' : '#cca700'),
    release: v('vramLens-timeline-release', light ? '#1a85ff' : '#3794ff'),
    annotation: v('vramLens-timeline-annotation', light ? '#652d90' : '#b180d7'),
    selection: v('vramLens-timeline-selection', v('focusBorder', '#0078d4')),
    palette: Array.from({ length: PALETTE_SIZE }, (_, i) => v(`vramLens-timeline-palette${i + 1}`, FALLBACK_PALETTE[i])),
  };
}

/**
 * Calls `onChange` with the new theme whenever VS Code changes it: it swaps the body's classes
 * and rewrites the variables on the root element. Returns a disposer.
 */
export function watchTheme(onChange: (theme: Theme) => void): () => void {
  const observer = new MutationObserver(() => onChange(readTheme()));
  observer.observe(document.body, { attributes: true, attributeFilter: ['class'] });
  observer.observe(document.documentElement, { attributes: true, attributeFilter: ['style'] });
  return () => observer.disconnect();
}
