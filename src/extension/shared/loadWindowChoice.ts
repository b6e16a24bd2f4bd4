/**
 * The choice a big snapshot file offers before it is loaded: all of it (the default, first in the
 * list), or a window of its events or of its time (`LoadWindow`), whose ends the user types. Free of
 * `vscode` at run time: the store passes the quick pick and the input box.
 */
import type { LoadWindow } from '../../engine/snapshot/model';
import { parseLoadWindow } from '../../engine/snapshot/window';
import { formatBytes } from '../../engine/text/format';

/** Files from this size on offer the choice (smaller ones load whole at once). */
export const WINDOW_CHOICE_BYTES = 1e9;

export interface WindowPrompts {
  /** A quick pick of `items` (the first is the default); undefined when dismissed. */
  pick(title: string, items: readonly { readonly label: string; readonly detail: string }[]): Promise<number | undefined>;
  /** An input box; `validate` says what is wrong with a value (undefined: nothing); undefined when dismissed. */
  input(title: string, prompt: string, placeholder: string, validate: (value: string) => string | undefined): Promise<string | undefined>;
}

/** What to load: all of it, a window, or nothing (the user dismissed a prompt). */
export type WindowChoice = { readonly kind: 'all' } | { readonly kind: 'window'; readonly window: LoadWindow } | { readonly kind: 'cancel' };

/** `from-to` as typed: `1000-5000`, `10s-25.5s`, `-5000` (from the start), `1000-` (to the end). */
export function parseRange(text: string): LoadWindow | undefined | { readonly problem: string } {
  const dash = text.indexOf('-');
  if (dash < 0) return { problem: 'write the window as from-to, e.g. 1000-5000 or 10s-25s (leave an end out for the start or the end)' };
  return parseLoadWindow(text.slice(0, dash), text.slice(dash + 1));
}

/** Asks how much of a file of `fileBytes` to load. */
export async function chooseLoadWindow(name: string, fileBytes: number, prompts: WindowPrompts): Promise<WindowChoice> {
  // In the units the summary and every view use (binary: a 4.3 GB file is 4.0 GiB).
  const title = `${name} is ${formatBytes(fileBytes)}`;
  const picked = await prompts.pick(title, [
    { label: 'Load all of it', detail: 'Every event: the figures, the timeline and the advice cover the whole recording.' },
    { label: 'Load a window of events…', detail: 'Events from-to of each device: faster and smaller, live memory carried in.' },
    { label: 'Load a window of time…', detail: 'A span of time (10s-25s): faster and smaller, live memory carried in.' },
  ]);
  if (picked === undefined) return { kind: 'cancel' };
  if (picked === 0) return { kind: 'all' };
  const events = picked === 1;
  const axis = events ? 'event' : 'time';
  const typed = await prompts.input(
    title,
    events
      ? 'Events to load, as from-to: 1000000-2000000 loads events 1,000,000 up to, not including, 2,000,000 (the first event is 0; leave an end out for the start or the end)'
      : 'Time to load after the first event, as from-to with units (s, ms, us): 10s-25s loads from 10 s up to, not including, 25 s',
    events ? '1000000-2000000' : '10s-25s',
    (value) => {
      const window = parseRange(value);
      if (window === undefined) return 'give at least one end';
      if ('problem' in window) return window.problem;
      return window.axis === axis ? undefined : events ? 'give event indices (whole numbers), not times' : 'give times with units (10s, 250ms), not event indices';
    },
  );
  if (typed === undefined) return { kind: 'cancel' };
  const window = parseRange(typed);
  return window === undefined || 'problem' in window ? { kind: 'cancel' } : { kind: 'window', window };
}
