/** Colour arithmetic for the chart: parsing `#rgb`/`#rrggbb(aa)` and mixing two colours. */

/** How far the alternate shade of a line's colour moves towards the background. */
export const SHADE = 0.2;

/** `#rrggbb` components of a `#rgb`/`#rrggbb(aa)` colour, or undefined. */
export function hexComponents(color: string): [number, number, number] | undefined {
  const m = /^#([0-9a-f]{3}|[0-9a-f]{6}|[0-9a-f]{8})$/i.exec(color.trim());
  if (!m) return undefined;
  const h = m[1].length === 3 ? [...m[1]].map((c) => c + c).join('') : m[1].slice(0, 6);
  return [0, 2, 4].map((i) => parseInt(h.slice(i, i + 2), 16)) as [number, number, number];
}

/** `a` moved `t` of the way towards `b`, as `#rrggbb`; `a` unchanged when either is not a hex colour. */
export function mixColors(a: string, b: string, t: number): string {
  const x = hexComponents(a);
  const y = hexComponents(b);
  if (!x || !y) return a;
  return `#${x.map((v, i) => Math.round(v + (y[i] - v) * t).toString(16).padStart(2, '0')).join('')}`;
}
