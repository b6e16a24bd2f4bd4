/**
 * The interfaces the timeline page's parts talk through, besides the store (state/store.ts) they
 * all read. main.ts builds the parts and wires them with these; no part reaches into another's fields.
 */

/** What the requests and actions ask of the screen; main.ts implements it with the drawing and controls parts. */
export interface Screen {
  /** Draws the chart, minimap, legend, tooltip and pinned panel from the store on the next animation frame. */
  render(): void;
  /** Renders the lines table from the store (rows, filters, sort, selected line). */
  renderTable(): void;
  /** The status line under the selectors. */
  setStatus(text: string): void;
  /** A span summary is in the store: the status line says what is shown (statusText.ts), the chart draws it. */
  windowShown(): void;
  /** The snapshot, device and axis selectors from the store. */
  fillSelectors(): void;
  /** Whether the page shows its empty state (no snapshot loaded) or the timeline. */
  showEmpty(empty: boolean): void;
  /** Whether the snapshot shown holds no device (nothing to draw). */
  showDeviceless(deviceless: boolean): void;
  /** The chart shows the blocks or the allocator (state.mode): the legend, the panels that go with it, and the Show selector. */
  showMode(): void;
  /** The allocator panel from the store: the segment map at the chosen moment, the OOMs, the self-check. */
  segmentMapShown(): void;
}

/** The chart's size, which the span requests read. */
export interface PlotSize {
  /** Matches the canvas to its CSS size; true when that changed it. */
  resize(): boolean;
  /** Plot width in CSS pixels: the columns to ask the host for. */
  plotColumns(): number;
  /** Plot height in device pixels. */
  plotHeightPixels(): number;
}
