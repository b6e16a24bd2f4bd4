/** Typed access to the `vramLens.*` settings. */
import * as vscode from 'vscode';
import type { FrameFilterOptions } from '../engine/analysis/frameFilter';
import { PROFILER_LIBRARY_PATHS } from '../engine/analysis/frameFilter';
import type { ProfileSettings } from './profile/profileSettings';
import { readProfileSettings } from './profile/profileSettings';

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

/** The `vramLens.profile.*` settings, typed and checked (src/extension/profile/profileSettings.ts). */
export function profileSettings(): ProfileSettings {
  const c = vscode.workspace.getConfiguration(`${SECTION}.profile`);
  return readProfileSettings((key) => c.get(key));
}
