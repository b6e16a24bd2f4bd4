/**
 * Snapshot files already loaded are reused, unless the file changed on disk since (a program that
 * re-recorded to the same path): then the old copy is unloaded and the file read again.
 */
import * as vscode from 'vscode';
import type { LoadRequest, LoadedSnapshot, SnapshotStore } from '../snapshotStore';

/** Loads in progress by URI: a second request for the same file waits for the first. */
const inFlight = new Map<string, Promise<{ snapshot: LoadedSnapshot | undefined; reused: boolean }>>();

async function fileVersion(uri: vscode.Uri): Promise<string | undefined> {
  try {
    const stat = await vscode.workspace.fs.stat(uri);
    return `${stat.mtime}:${stat.size}`;
  } catch {
    return undefined;
  }
}

/** The loaded snapshot read from `uri`, if any (whether or not the file changed since). */
export function snapshotForUri(store: SnapshotStore, uri: vscode.Uri): LoadedSnapshot | undefined {
  return store.list().find((s) => s.uri?.toString() === uri.toString());
}

/**
 * The snapshot of `uri`: the loaded one while the file is unchanged, else freshly loaded
 * (undefined when the user cancels). `reused` tells which. A reloaded snapshot stays active if it was;
 * a new one is active only when `request.makeActive` says so.
 */
export function loadSnapshotFile(
  store: SnapshotStore,
  uri: vscode.Uri,
  request: LoadRequest = {},
): Promise<{ snapshot: LoadedSnapshot | undefined; reused: boolean }> {
  const key = uri.toString();
  const pending = inFlight.get(key);
  if (pending) return pending.then(({ snapshot }) => ({ snapshot, reused: true }));
  const load = loadOrReuse(store, uri, request).finally(() => inFlight.delete(key));
  inFlight.set(key, load);
  return load;
}

async function loadOrReuse(
  store: SnapshotStore,
  uri: vscode.Uri,
  request: LoadRequest,
): Promise<{ snapshot: LoadedSnapshot | undefined; reused: boolean }> {
  const version = await fileVersion(uri);
  const known = snapshotForUri(store, uri);
  if (known && version !== undefined && known.fileVersion === version) return { snapshot: known, reused: true };
  const wasActive = known !== undefined && store.active?.id === known.id;
  if (known) await store.remove(known.id);
  const snapshot = await store.load(uri, { ...request, makeActive: request.makeActive ?? wasActive });
  if (snapshot) snapshot.fileVersion = version;
  return { snapshot, reused: false };
}
