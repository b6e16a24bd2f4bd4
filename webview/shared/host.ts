/** A page's handle on VS Code: typed posting to the host, checked messages from it, and the persisted UI state. */
import { describeRefused } from '../../src/guards/messageGuard';

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

/** `ToHost` is the page's message union (src/protocol), `State` what it keeps across hide/show. */
export interface Host<ToHost, State = unknown> {
  post(message: ToHost): void;
  /** The saved state; the page checks its shape (it may come from an older version). */
  getState(): Partial<State> | undefined;
  setState(state: State): void;
}

/** Acquires the API once (VS Code allows one call per page). */
export function connectHost<ToHost, State = unknown>(): Host<ToHost, State> {
  const api = acquireVsCodeApi();
  return {
    post: (message) => api.postMessage(message),
    getState: () => {
      const state = api.getState();
      return typeof state === 'object' && state !== null ? (state) : undefined;
    },
    setState: (state) => api.setState(state),
  };
}

/**
 * The one way every page receives messages from its host: calls `handle` with each message that
 * `guard` accepts (the page's `isHostTo<Page>`, src/protocol). What it refuses is never handled: it
 * goes to `refused` as a short description (the timeline logs it to the host), by default to the
 * webview's console under `page`'s name.
 */
export function onHostMessage<FromHost>(
  page: string,
  guard: (value: unknown) => value is FromHost,
  handle: (message: FromHost) => void,
  refused: (description: string) => void = (description) => console.warn(`VRAM Lens ${page}: ignored an unknown message: ${description}`),
): void {
  window.addEventListener('message', (event: MessageEvent<unknown>) => {
    if (guard(event.data)) handle(event.data);
    else refused(describeRefused(event.data));
  });
}
