/** Small DOM helpers for every page: elements by id with their type, and text-only element building. */

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const node = document.getElementById(id);
  if (!node) throw new Error(`missing #${id}`);
  return node as T;
}

export interface ElementProps {
  readonly className?: string;
  readonly text?: string;
  readonly title?: string;
}

/**
 * An element with classes (or props) and children; strings become text nodes, never HTML.
 * `el('td', 'num', '3 MiB')` and `el('tr', {}, cellA, cellB)` are both this one function.
 */
export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: ElementProps | string = {},
  ...children: (Node | string | undefined)[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  const p: ElementProps = typeof props === 'string' ? { className: props } : props;
  if (p.className) node.className = p.className;
  if (p.text !== undefined) node.textContent = p.text;
  if (p.title !== undefined) node.title = p.title;
  for (const child of children) if (child !== undefined) node.append(child);
  return node;
}
