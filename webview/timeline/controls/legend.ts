/**
 * The legend under the chart: the entries that depend on the overview (OOMs, segment releases,
 * measured memory) and one per bucket kind of the blocks no line holds (bucketLegend), in its colour.
 */
import type { MeasuredLine, TimelineOverview } from '../../../src/protocol/timeline';
import { byId, el } from '../../shared/dom';
import type { BucketLegendEntry } from './bucketLegend';
import { legendText } from './bucketLegend';
import type { Theme } from '../drawing/theme';

/** The legend entry of the measured line, added to the legend the first time a snapshot has one. */
function showMeasuredLegend(measured: MeasuredLine | undefined): void {
  let entry = document.getElementById('legend-measured');
  if (!measured) {
    if (entry) entry.hidden = true;
    return;
  }
  if (!entry) {
    entry = el('span', {}, el('span', 'key key-measured'), el('span'));
    entry.id = 'legend-measured';
    document.querySelector('.legend')?.append(entry);
  }
  (entry.lastChild as HTMLElement).textContent = `measured (${measured.source === 'nvml' ? 'NVML' : measured.source})`;
  entry.hidden = false;
}

/** Shows the legend entries of what this overview has. */
export function showOverviewLegend(overview: TimelineOverview): void {
  byId('legend-oom').hidden = overview.ooms.length === 0;
  byId('legend-release').hidden = overview.summary.releaseX.length === 0;
  // Unknown reserved memory is said, not drawn: no key line, and the reason on hover.
  const reserved = byId('legend-reserved');
  (reserved.firstElementChild as HTMLElement).hidden = overview.reservedUnknown !== undefined;
  (reserved.lastElementChild as HTMLElement).textContent = overview.reservedUnknown === undefined ? 'reserved' : 'reserved: unknown';
  reserved.title = overview.reservedUnknown ?? '';
  showMeasuredLegend(overview.measured);
}

/** The bucket entries, each with its colour key; the title lists the kind's buckets at the peak. */
export function showBucketLegend(entries: readonly BucketLegendEntry[], theme: Theme): void {
  const box = byId('legend-buckets');
  const key = JSON.stringify([entries, theme.buckets]);
  if (box.dataset.shown === key) return;
  box.dataset.shown = key;
  box.replaceChildren(
    ...entries.map((entry) => {
      const swatch = el('span', 'key');
      swatch.style.background = theme.buckets[entry.kind];
      const item = el('span', { className: 'legend-bucket', title: entry.buckets.join('\n') }, swatch, legendText(entry));
      item.dataset.kind = entry.kind;
      return item;
    }),
  );
}
