/** Typed access to the `vramLens.*` settings. */
import * as vscode from 'vscode';
import type { FrameFilterOptions } from '../../engine/analysis/frameFilter';
import { PROFILER_LIBRARY_PATHS } from '../../engine/analysis/frameFilter';
import type { WorkerOptions } from '../../runtime/worker/client';
import { DEFAULT_WORKER_HEAP_MB, MIN_WORKER_HEAP_MB } from '../../runtime/worker/client';

export const SECTION = 'vramLens';

function section(): vscode.WorkspaceConfiguration {
  return vscode.workspace.getConfiguration(SECTION);
}

export function frameFilter(): FrameFilterOptions {
  const c = section();
  return {
    includeLibraryFrames: c.get<boolean>('annotateLibraryFrames', false),
    extraLibraryPaths: [...c.get<string[]>('libraryPaths', []), ...PROFILER_LIBRARY_PATHS],
  };
}

/** True when a configuration change touches one of our settings under `key`. */
export function affects(event: vscode.ConfigurationChangeEvent, key: string): boolean {
  return event.affectsConfiguration(`${SECTION}.${key}`);
}

export function setting<T>(key: string, fallback: T): T {
  return section().get<T>(key, fallback);
}

/** A reader of the settings under `vramLens.<prefix>.`, by their key there (a section's typed reader reads through it). */
export function settingsUnder(prefix: string): (key: string) => unknown {
  const c = vscode.workspace.getConfiguration(`${SECTION}.${prefix}`);
  return (key) => c.get(key);
}

/** How much memory a snapshot's analysis may use (`vramLens.analysis.memoryLimitMb`), and what to do when it is not enough. */
export function analysisWorkerOptions(): WorkerOptions {
  const value = Math.floor(Number(setting<number>('analysis.memoryLimitMb', DEFAULT_WORKER_HEAP_MB)));
  const maxHeapMb = Number.isFinite(value) ? Math.max(MIN_WORKER_HEAP_MB, value) : DEFAULT_WORKER_HEAP_MB;
  return {
    maxHeapMb,
    memoryAdvice: `Close other snapshots, or raise the setting vramLens.analysis.memoryLimitMb (now ${maxHeapMb}) if this machine has memory to spare, and open it again.`,
  };
}
