/**
 * The commands a webview page may ask its host to run: an allowlist per page, built from `Commands`
 * and keyed by their names there (the page sends `openSnapshot`, never a command id). Anything not on
 * the list is refused. Free of `vscode`, so the browser tests' host double uses the same lists.
 */
import { Commands } from './commandIds';

export type CommandKey = keyof typeof Commands;

export interface CommandAllowlist<K extends CommandKey> {
  readonly keys: readonly K[];
  /** The command id `requested` stands for, or undefined when the page may not run it. */
  commandFor(requested: unknown): (typeof Commands)[K] | undefined;
}

export function commandAllowlist<K extends CommandKey>(keys: readonly K[]): CommandAllowlist<K> {
  const allowed: ReadonlySet<string> = new Set(keys);
  return {
    keys,
    commandFor: (requested) => (typeof requested === 'string' && allowed.has(requested) ? Commands[requested as K] : undefined),
  };
}
