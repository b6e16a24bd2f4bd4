/** The `vramLens.workloads.*` settings: which execution provider runs, and the session options that change memory. */
import type { ProviderChoice } from '../../runtime/ort/providers';
import { isProviderChoice } from '../../runtime/ort/providers';
import type { SessionSettings } from '../../runtime/ort/session';
import { DEFAULT_SESSION_SETTINGS } from '../../runtime/ort/session';
import { setting } from '../shared/config';

export function providerSetting(): ProviderChoice {
  const value = setting<string>('workloads.executionProvider', 'auto');
  return isProviderChoice(value) ? value : 'auto';
}

export function sessionSettings(): SessionSettings {
  const optimization = setting<string>('workloads.graphOptimization', DEFAULT_SESSION_SETTINGS.optimization);
  return {
    memoryArena: setting<boolean>('workloads.memoryArena', DEFAULT_SESSION_SETTINGS.memoryArena),
    memoryPattern: setting<boolean>('workloads.memoryPattern', DEFAULT_SESSION_SETTINGS.memoryPattern),
    optimization: (['disabled', 'basic', 'extended', 'all'] as const).find((o) => o === optimization) ?? DEFAULT_SESSION_SETTINGS.optimization,
  };
}
