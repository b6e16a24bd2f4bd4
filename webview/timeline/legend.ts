/** The legend under the chart: the entries that depend on the overview (OOMs, segment releases, measured memory). */
import type { MeasuredLine } from '../../src/core/timeline/measuredLine';
import type { TimelineOverview } from '../../src/core/timeline/types';
import { byId } from '../shared/dom';

/** The legend entry of the measured line, added to the legend the first time a snapshot has one. */
function showMeasuredLegend(measured: MeasuredLine | undefined): void {
  let entry = document.getElementById('legend-measured');
  if (!measured) {
    if (entry) entry.hidden = true;
    return;
  }
  if (!entry) {
    entry = document.createElement('span');
    entry.id = 'legend-measured';
    const key = document.createElement('span');
    key.className = 'key key-measured';
    entry.append(key, document.createElement('span'));
    document.querySelector('.legend')?.append(entry);
  }
  (entry.lastChild as HTMLElement).textContent = `measured (${measured.source === 'nvml' ? 'NVML' : measured.source})`;
  entry.hidden = false;
}

/** Shows the legend entries of what this overview has. */
export function showOverviewLegend(overview: TimelineOverview): void {
  byId('legend-oom').hidden = overview.ooms.length === 0;
  byId('legend-release').hidden = overview.summary.releaseX.length === 0;
  showMeasuredLegend(overview.measured);
}
