/** A page's handle on VS Code: typed posting to the host and the persisted UI state. */

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
