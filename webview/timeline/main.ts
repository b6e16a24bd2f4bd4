/**
 * Entry of the timeline webview bundle (dist/webview/timeline.js), and the page's composition root:
 * it finds the page's elements, builds the parts and wires them by their interfaces (parts.ts).
 *
 * - state/: the store (the UI state and the host's data), its pure transitions, navigation;
 * - drawing/: the chart in layers, the minimap, the segment map;
 * - requests/: request ids, the target's data, span summaries, block details, the allocator view's data;
 * - controls/: the toolbar, the lines table, the chart's input, and what each input does (pageActions.ts);
 * - pageView.ts: one frame of the page from the store, drawing and controls together.
 * Each folder imports only those above it in this list (test/unit/importOrder.test.ts).
 *
 * Messages from the host arrive through the one listener every page uses (webview/shared/host.ts).
 */
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-option/index.js';
import '@vscode-elements/elements/dist/vscode-single-select/index.js';
import '@vscode-elements/elements/dist/vscode-textfield/index.js';
import '@vscode-elements/elements/dist/vscode-toolbar-button/index.js';
import type { HostToTimeline, TimelineToHost } from '../../src/protocol/timeline';
import { isHostToTimeline } from '../../src/guards/timeline';
import { byId } from '../shared/dom';
import { statusText } from './controls/statusText';
import { connectHost, onHostMessage } from '../shared/host';
import { wireChartInput } from './controls/chartInput';
import { pageActions } from './controls/pageActions';
import type { SelectElement } from './controls/selectors';
import { LinesTable } from './controls/table';
import { Toolbar } from './controls/toolbar';
import { Chart } from './drawing/chart';
import { Minimap } from './drawing/minimap';
import { PageView } from './pageView';
import { watchTheme } from './drawing/theme';
import type { Screen } from './parts';
import { AllocatorPanel } from './controls/allocatorPanel';
import { SegmentMapCanvas } from './drawing/segmentMap';
import { AllocatorData } from './requests/allocatorData';
import { BlockDetails } from './requests/blockDetails';
import { Requests } from './requests/requests';
import { TargetData } from './requests/targetData';
import { SpanFetcher } from './requests/spanFetch';
import { Navigation } from './state/navigation';
import type { ViewState } from './state/state';
import { PageStore } from './state/store';
import { installTestHooks } from './testHooks';

/** Widths (CSS px) up to which the page lays out for a narrow side bar (as media/timeline.css's @media). */
const NARROW_WIDTH = 360;

const host = connectHost<TimelineToHost, ViewState>();
const post = (message: TimelineToHost) => host.post(message);
const el = {
  app: byId('app'),
  empty: byId('empty'),
  chartBox: byId('chart-box'),
  chart: byId<HTMLCanvasElement>('chart'),
  minimap: byId<HTMLCanvasElement>('minimap'),
  tooltip: byId('tooltip'),
  detail: byId('detail'),
  detailTitle: byId('detail-title'),
  detailBody: byId('detail-body'),
  goToSource: byId('go-to-source'),
  snapshot: byId<SelectElement>('snapshot'),
  device: byId<SelectElement>('device'),
  axis: byId<SelectElement>('axis'),
  mode: byId<SelectElement>('mode'),
  status: byId('status'),
  filterFile: byId<SelectElement>('filter-file'),
  filterStack: byId<SelectElement>('filter-stack'),
  filterSize: byId<SelectElement>('filter-size'),
};

// What the page holds, what draws it, and the controls that show it.
const store = new PageStore(host.getState(), (state) => host.setState(state));
const requests = new Requests(post, (message) => screen.setStatus(`Error: ${message}`));
const details = new BlockDetails(requests, (target) => store.showing(target), () => view.render());
const chart = new Chart(el.chart);
const minimap = new Minimap(el.minimap, (v) => navigation.setViewport(v));
const segmentMap = new SegmentMapCanvas(byId<HTMLCanvasElement>('segment-map'));
const allocatorPanel = new AllocatorPanel(
  {
    panel: byId('allocator-panel'),
    check: byId('alloc-check'),
    ooms: byId('alloc-ooms'),
    title: byId('map-title'),
    figures: byId('map-figures'),
    oom: byId('map-oom'),
    box: byId('map-box'),
    tooltip: byId('map-tooltip'),
  },
  segmentMap,
);
const view = new PageView(chart, minimap, el, store, (record) => details.get(record), allocatorPanel);
const toolbar = new Toolbar(el);
const table = new LinesTable(byId<HTMLTableElement>('lines'), byId('lines-more'));
const screen: Screen = {
  render: () => view.render(),
  renderTable: () => table.render(store.data.rows, store.state, store.data.stackIds, store.data.overview?.places),
  setStatus: (text) => toolbar.setStatus(text),
  windowShown: () => {
    const { overview, span } = store.data;
    if (overview) toolbar.setStatus(statusText(overview, span, store.data.notice));
    view.render();
  },
  fillSelectors: () => toolbar.fillSelectors(store.data.snapshots, store.data.target, store.state.axis),
  showEmpty: (empty) => {
    el.empty.hidden = !empty;
    el.app.hidden = empty;
  },
  showDeviceless: (deviceless) => el.app.classList.toggle('no-devices', deviceless),
  showMode: () => {
    el.app.classList.toggle('mode-allocator', store.state.mode === 'allocator');
    // The Show selector follows the state (the page may fall back to the blocks itself).
    if (el.mode.value !== store.state.mode) el.mode.value = store.state.mode;
  },
  segmentMapShown: () => view.render(),
};

// What changes it: requests for data, navigation, and the user's input.
const allocator = new AllocatorData({ requests, store, plot: chart, screen });
const spans = new SpanFetcher({
  requests,
  store,
  plot: chart,
  arrived: () => {
    screen.windowShown();
    allocator.windowArrived();
  },
  failed: (message) => screen.setStatus(`Error: ${message}`),
});
const navigation = new Navigation({
  store,
  screen,
  requestSpan: (refresh) => (refresh ? spans.refresh() : spans.request()),
  drawnYRange: () => chart.yRange(),
});
const targets = new TargetData({
  requests,
  store,
  spans,
  details,
  allocator,
  screen,
  overviewColumns: () => {
    minimap.resize();
    return minimap.columns();
  },
  paletteSize: () => view.palette.length,
  showing: (target) => post({ type: 'showing', target }),
});
const actions = pageActions({
  store,
  navigation,
  targets,
  allocator,
  screen,
  hoverAt: (x, y) => view.hoverAt(x, y),
  leave: () => view.leave(),
  detail: (record) => details.get(record),
  refreshSpan: () => spans.refresh(),
  post,
});
wireChartInput(chart, actions);
toolbar.wire(actions);
table.wire(actions);
allocatorPanel.wire(actions);
toolbar.restore(store.state);
screen.showMode();
// In a narrow side bar the chart gets the height: the lines table starts collapsed below it.
if (window.innerWidth <= NARROW_WIDTH) byId<HTMLDetailsElement>('lines-section').open = false;
const resized = new ResizeObserver(() => {
  const plotChanged = chart.resize();
  const stripChanged = minimap.resize();
  if (plotChanged || stripChanged) view.render();
  if (plotChanged) spans.request();
});
resized.observe(el.chartBox);
resized.observe(el.minimap);
// The segment map is laid out for the panel's width.
new ResizeObserver(() => view.render()).observe(byId('map-box'));
watchTheme((theme) => view.setTheme(theme));

// The host's messages, through the one listener of every page; what it refuses is logged to the host.
onHostMessage(
  'timeline',
  isHostToTimeline,
  (message: HostToTimeline) => {
    if (message.type === 'snapshots') targets.listSnapshots(message.snapshots, message.activeId);
    else if (message.type === 'showLine') targets.showLine(message.target, message.blocks);
    else requests.settle(message);
  },
  (refused) => post({ type: 'log', level: 'warn', message: `ignored an unknown message: ${refused}` }),
);
installTestHooks({
  draw: () => view.draw(),
  inspect: () => ({ state: store.state, status: toolbar.status, span: store.data.span, viewport: store.data.viewport }),
  inspectAllocator: () => ({
    span: store.data.allocatorSpan,
    facts: store.data.allocatorFacts,
    map: store.data.segmentMap,
    drawnMap: segmentMap.drawn,
    check: byId('alloc-check').textContent ?? '',
    figures: byId('map-figures').textContent ?? '',
    oom: byId('map-oom').hidden ? '' : (byId('map-oom').textContent ?? ''),
  }),
  segmentMapPoint: (segment, block) => segmentMap.pointOf(segment, block),
  pointOf: (record) => chart.pointOf(record),
});
post({ type: 'ready' });
