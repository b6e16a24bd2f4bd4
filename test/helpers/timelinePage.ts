/**
 * The timeline page's DOM-free parts (webview/timeline: store, requests, target data, span
 * summaries, block details, navigation, the actions), wired as main.ts wires them, with a recording
 * screen and plot in place of the DOM; and small overviews and spans to answer them with.
 */
import type { TimelineOverview, TimelineSpan } from '../../src/engine/timeline/types';
import type { HostToTimeline, SnapshotChoice, TimelineToHost } from '../../src/protocol/timeline';
import type { PageActions } from '../../webview/timeline/controls/pageActions';
import { pageActions } from '../../webview/timeline/controls/pageActions';
import type { Hit } from '../../webview/timeline/drawing/hit';
import type { PlotSize, Screen } from '../../webview/timeline/parts';
import { AllocatorData } from '../../webview/timeline/requests/allocatorData';
import { BlockDetails } from '../../webview/timeline/requests/blockDetails';
import type { TimelineAnswer } from '../../webview/timeline/requests/requests';
import { Requests } from '../../webview/timeline/requests/requests';
import { TargetData } from '../../webview/timeline/requests/targetData';
import { SpanFetcher } from '../../webview/timeline/requests/spanFetch';
import { Navigation } from '../../webview/timeline/state/navigation';
import type { ViewState } from '../../webview/timeline/state/state';
import { PageStore } from '../../webview/timeline/state/store';

export const MiB = 1024 ** 2;

/** A loaded snapshot as the host lists it. */
export function choice(id: string, devices: number[], hasTimes = true): SnapshotChoice {
  return { id, label: `${id}.pickle`, devices: devices.map((device) => ({ device, peakBytes: MiB, events: 1000 })), device: devices[0] ?? 0, hasTimes };
}

/** A span over [x0, x1) of `axis` with two steps and one block (record 10, 4 MiB, line 1 = model.py:7). */
export function spanOf(x0: number, x1: number, axis: 'event' | 'time' = 'event', states: [number, number] = [1, 2]): TimelineSpan {
  return {
    axis,
    x0,
    x1,
    columns: 300,
    stepX: new Float64Array([x0, (x0 + x1) / 2, x1]),
    stepState: new Int32Array(states),
    stepFirst: new Int32Array(states),
    stepLast: new Int32Array(states),
    envelope: new Float64Array([4 * MiB, 4 * MiB]),
    reserved: new Float64Array([8 * MiB, 8 * MiB]),
    rest: new Float64Array([0, 0]),
    blockRecord: new Int32Array([10]),
    blockSize: new Float64Array([4 * MiB]),
    blockLine: new Int32Array([1]),
    blockBucket: new Int8Array([-1]),
    blockFirstStep: new Int32Array([0]),
    blockLastStep: new Int32Array([1]),
    blockRunStart: new Int32Array([0, 1]),
    runStep: new Int32Array([0]),
    runOffset: new Float64Array([0]),
    lines: [{ id: 1, file: '/home/u/proj/model.py', line: 7, color: 0 }],
    releaseX: new Float64Array(0),
    releaseBytes: new Float64Array(0),
    releaseCount: new Int32Array(0),
    moreBlocks: false,
    computeMs: 0,
  };
}

/** An overview of 1000 events (1001 states) on the event axis, or of 1000 s from t = 5000 µs on the time axis. */
export function overviewOf(axis: 'event' | 'time' = 'event'): TimelineOverview {
  const [start, end] = axis === 'event' ? [0, 1000] : [5000, 5000 + 1e9];
  return {
    device: 0,
    axis: { kind: axis, start, end, states: 1001 },
    hasTimes: true,
    peak: { state: 500, x: (start + end) / 2, bytes: 12 * MiB, line: undefined },
    peakReservedBytes: 16 * MiB,
    ooms: [],
    annotations: [],
    annotationsOmitted: 0,
    summary: spanOf(start, end, axis),
    peakBreakdown: [],
    allocations: 1,
  };
}

export interface PageUnderTest {
  readonly store: PageStore;
  readonly requests: Requests;
  readonly targets: TargetData;
  readonly spans: SpanFetcher;
  readonly details: BlockDetails;
  readonly allocator: AllocatorData;
  readonly navigation: Navigation;
  readonly actions: PageActions;
  /** Every message the page posted to the host, in order. */
  readonly posted: TimelineToHost[];
  /** Every call the page made to the screen, as `name(args)` (renders counted apart). */
  readonly screen: string[];
  /** How many times the page asked for a redraw. */
  renders(): number;
  /** The states the page saved, in order. */
  readonly saved: ViewState[];
  /** The last message of `type` the page posted. */
  last<T extends TimelineToHost['type']>(type: T): Extract<TimelineToHost, { type: T }> | undefined;
  /** Answers the last request of `type` (its id filled in). */
  answer<T extends TimelineAnswer['type']>(type: T, fields: Omit<Extract<TimelineAnswer, { type: T }>, 'type' | 'requestId'>): void;
  /** A message from the host, as main.ts routes it. */
  receive(message: HostToTimeline): void;
}

/** The parts as main.ts wires them; `saved` is the state VS Code kept, `hit` what the chart has under any point. */
export function pageUnderTest(saved?: unknown, hit?: Hit): PageUnderTest {
  const posted: TimelineToHost[] = [];
  const screenCalls: string[] = [];
  const savedStates: ViewState[] = [];
  let renders = 0;
  const post = (m: TimelineToHost) => posted.push(m);
  const record = (name: string) => (...args: unknown[]) => void screenCalls.push(`${name}(${args.map((a) => JSON.stringify(a)).join(', ')})`);
  const screen: Screen = {
    render: () => void renders++,
    renderTable: record('renderTable'),
    setStatus: record('setStatus'),
    windowShown: record('windowShown'),
    fillSelectors: record('fillSelectors'),
    showEmpty: record('showEmpty'),
    showDeviceless: record('showDeviceless'),
    showMode: record('showMode'),
    segmentMapShown: record('segmentMapShown'),
  };
  const plot: PlotSize = { resize: () => false, plotColumns: () => 300, plotHeightPixels: () => 400 };
  const store = new PageStore(saved, (s) => savedStates.push(s));
  const requests = new Requests(post, (message) => screen.setStatus(`Error: ${message}`));
  const details = new BlockDetails(requests, (t) => store.showing(t), () => screen.render());
  const allocator = new AllocatorData({ requests, store, plot, screen });
  const spans = new SpanFetcher({
    requests,
    store,
    plot,
    arrived: () => {
      screen.windowShown();
      allocator.windowArrived();
    },
    failed: (m) => screen.setStatus(`Error: ${m}`),
  });
  const navigation = new Navigation({ store, screen, requestSpan: (refresh) => (refresh ? spans.refresh() : spans.request()), drawnYRange: () => ({ min: 0, max: 8 * MiB * 1.06 }) });
  const targets = new TargetData({ requests, store, spans, details, allocator, screen, overviewColumns: () => 280, paletteSize: () => 12, showing: (target) => post({ type: 'showing', target }) });
  const actions = pageActions({
    store,
    navigation,
    targets,
    allocator,
    screen,
    hoverAt: () => hit,
    leave: () => undefined,
    detail: (r) => details.get(r),
    refreshSpan: () => spans.refresh(),
    post,
  });
  const last = <T extends TimelineToHost['type']>(type: T) => posted.filter((m): m is Extract<TimelineToHost, { type: T }> => m.type === type).at(-1);
  return {
    store,
    requests,
    targets,
    spans,
    details,
    allocator,
    navigation,
    actions,
    posted,
    screen: screenCalls,
    renders: () => renders,
    saved: savedStates,
    last,
    answer: (type, fields) => {
      const asked = last(type as TimelineToHost['type']) as { requestId?: number } | undefined;
      if (asked?.requestId === undefined) throw new Error(`no ${type} request to answer`);
      requests.settle({ type, requestId: asked.requestId, ...fields } as unknown as TimelineAnswer);
    },
    receive: (message) => {
      if (message.type === 'snapshots') targets.listSnapshots(message.snapshots, message.activeId);
      else if (message.type === 'showLine') targets.showLine(message.target, message.blocks);
      else requests.settle(message);
    },
  };
}
