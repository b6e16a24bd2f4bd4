/**
 * The one guard every side of every webview protocol uses on what it receives: a message is an
 * object whose `type` is one of the protocol's types (the unions of src/protocol). Each type is listed once, in a record keyed by
 * the union's types, so a new message that is not listed fails to compile. Fields are checked where
 * a message is handled (the host's routing); this only keeps unknown shapes out.
 */

/** The guard of a protocol direction whose messages are the union `M`. */
export function messageGuard<M extends { readonly type: string }>(types: Record<M['type'], true>): (value: unknown) => value is M {
  const known: ReadonlySet<string> = new Set(Object.keys(types));
  return (value: unknown): value is M => {
    if (typeof value !== 'object' || value === null) return false;
    const type = (value as { type?: unknown }).type;
    return typeof type === 'string' && known.has(type);
  };
}

/** A short, plain description of a message that was refused, for the log (never the whole message). */
export function describeRefused(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = Object.prototype.toString.call(value);
  }
  return text.length > 200 ? `${text.slice(0, 200)}...` : text;
}
