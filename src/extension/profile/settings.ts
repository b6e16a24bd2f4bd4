/** The `vramLens.profile.*` settings, typed and checked (their reader and defaults: profileSettings.ts). */
import { settingsUnder } from '../shared/config';
import type { ProfileSettings } from './profileSettings';
import { readProfileSettings } from './profileSettings';

export function profileSettings(): ProfileSettings {
  return readProfileSettings(settingsUnder('profile'));
}
