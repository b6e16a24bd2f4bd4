/** The webview's handle on VS Code: typed posting to the host and the persisted UI state. */
import type { WebviewMessage } from './protocol';

interface VsCodeApi {
  postMessage(message: unknown): void;
  getState(): unknown;
  setState(state: unknown): void;
}

declare function acquireVsCodeApi(): VsCodeApi;

export interface Host {
  post(message: WebviewMessage): void;
  getState(): unknown;
  setState(state: unknown): void;
}

/** Acquires the API once (VS Code allows one call per page). */
export function connectHost(): Host {
  const api = acquireVsCodeApi();
  return {
    post: (message) => api.postMessage(message),
    getState: () => api.getState(),
    setState: (state) => api.setState(state),
  };
}
