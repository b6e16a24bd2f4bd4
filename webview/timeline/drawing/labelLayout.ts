/**
 * Places the chart's text labels (the peak, OOMs, the advisor's findings) so that no two overlap:
 * each label asks for an anchor x and a list of rows (baselines) it may sit in, in order of
 * preference; it goes right of its anchor, else left, in the first row where its box meets no
 * placed box and fits the plot; then its shorter forms the same way; a label that fits nowhere is dropped (its marker still shows, and
 * its hover names it). Higher priority labels are placed first. No DOM: tested in Node.
 */

export interface LabelRequest {
  readonly text: string;
  /** Where the marker is (device pixels). */
  readonly anchorX: number;
  /** Text width as measured (device pixels). */
  readonly width: number;
  /** Baselines the label may use, preferred first. */
  readonly rows: readonly number[];
  /** Lower goes first. */
  readonly priority: number;
  /** Shorter texts to try, in order, where the full one fits nowhere ("peak 12 GiB" for "peak 12 GiB · model.py:7"). */
  readonly shorter?: readonly { readonly text: string; readonly width: number }[];
}

export interface LabelBox {
  readonly x0: number;
  readonly x1: number;
  readonly y0: number;
  readonly y1: number;
}

export interface PlacedLabel extends LabelBox {
  readonly request: number;
  readonly text: string;
  /** The text's left edge and baseline. */
  readonly x: number;
  readonly y: number;
  readonly row: number;
}

export interface LabelSpace {
  readonly left: number;
  readonly right: number;
  /** Height of the text above and below its baseline. */
  readonly ascent: number;
  readonly descent: number;
  /** Space between the anchor and the text, and between two labels. */
  readonly gap: number;
}

export function boxesIntersect(a: LabelBox, b: LabelBox): boolean {
  return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1;
}

export function placeLabels(requests: readonly LabelRequest[], space: LabelSpace): PlacedLabel[] {
  const order = requests.map((_, i) => i).sort((a, b) => requests[a].priority - requests[b].priority || requests[a].anchorX - requests[b].anchorX);
  const placed: PlacedLabel[] = [];
  const { gap } = space;
  for (const i of order) {
    const r = requests[i];
    if (!Number.isFinite(r.anchorX)) continue;
    let chosen: PlacedLabel | undefined;
    for (const form of [{ text: r.text, width: r.width }, ...(r.shorter ?? [])]) {
      if (!(form.width > 0)) continue;
      const starts = [r.anchorX + gap, r.anchorX - gap - form.width];
      for (let row = 0; row < r.rows.length && !chosen; row++) {
        const y = r.rows[row];
        for (const x of starts) {
          if (x < space.left || x + form.width > space.right) continue;
          const box = { x0: x, x1: x + form.width, y0: y - space.ascent, y1: y + space.descent };
          // The gap keeps neighbours from touching.
          const padded = { x0: box.x0 - gap / 2, x1: box.x1 + gap / 2, y0: box.y0, y1: box.y1 };
          if (placed.some((p) => boxesIntersect(padded, p))) continue;
          chosen = { ...box, request: i, text: form.text, x, y, row };
          break;
        }
      }
      if (chosen) break;
    }
    if (chosen) placed.push(chosen);
  }
  return placed;
}
