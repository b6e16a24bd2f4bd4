/** Small DOM helpers: elements by id with their type, and text-only element building. */

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`missing #${id}`);
  return el as T;
}

/** An element with classes and text content (never HTML). */
export function el<K extends keyof HTMLElementTagNameMap>(tag: K, className = '', text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (className) e.className = className;
  if (text !== undefined) e.textContent = text;
  return e;
}

/** The last path segment, for compact labels (the full path goes in a title). */
export { baseName } from '../../src/core/paths/recordedPath';
