/**
 * The timeline webview's page: its static markup (no data: everything the view shows arrives by
 * postMessage), built into a document with the shared strict CSP by src/extension/shared/webviewDocument.ts.
 * Free of `vscode`, so the browser tests load the very same page.
 */
import type { PageContent } from '../shared/webviewDocument';

export const TIMELINE_PAGE: PageContent = {
  title: 'VRAM Timeline',
  script: 'timeline.js',
  styles: ['timeline.css'],
  codicons: true,
  dataImages: true,
  body: `<main id="app" hidden>
  <div class="toolbar" role="toolbar" aria-label="Timeline">
    <vscode-single-select id="snapshot" aria-label="Snapshot" class="grow"></vscode-single-select>
    <vscode-single-select id="device" aria-label="Device"></vscode-single-select>
    <vscode-single-select id="axis" aria-label="X axis">
      <vscode-option value="event">Events</vscode-option>
      <vscode-option value="time">Time</vscode-option>
    </vscode-single-select>
    <vscode-single-select id="mode" aria-label="Show" title="Blocks: allocated memory by line. Allocator: reserved memory by segment, and the segment map at a moment">
      <vscode-option value="blocks">Blocks</vscode-option>
      <vscode-option value="allocator">Allocator</vscode-option>
    </vscode-single-select>
    <span class="toolbar-buttons">
      <vscode-toolbar-button id="zoom-in" icon="zoom-in" label="Zoom in (+)" title="Zoom in (+)"></vscode-toolbar-button>
      <vscode-toolbar-button id="zoom-out" icon="zoom-out" label="Zoom out (-)" title="Zoom out (-)"></vscode-toolbar-button>
      <vscode-toolbar-button id="zoom-reset" icon="screen-full" label="Show everything (0)" title="Show everything (0)"></vscode-toolbar-button>
    </span>
  </div>
  <div class="status" id="status" aria-live="polite"></div>
  <div class="chart" id="chart-box">
    <canvas id="chart" tabindex="0" role="img" aria-roledescription="memory timeline"></canvas>
    <div id="tooltip" class="tooltip" role="tooltip" hidden></div>
  </div>
  <div class="legend" aria-hidden="true">
    <span id="legend-buckets" class="legend-buckets for-blocks"></span>
    <span class="for-blocks"><span class="key key-rest"></span>smaller blocks, merged</span>
    <span class="for-allocator"><span class="key key-segment"></span>segments, in the colour of the line that made them</span>
    <span class="for-allocator"><span class="key key-allocated"></span>allocated</span>
    <span class="for-allocator"><span class="key key-unallocated"></span>reserved but unallocated</span>
    <span class="for-allocator"><span class="key key-largest-free"></span>largest free block</span>
    <span id="legend-reserved"><span class="key key-reserved"></span><span>reserved</span></span>
    <span><span class="key key-peak"></span>peak</span>
    <span id="legend-oom" hidden><span class="key key-oom"></span>out of memory</span>
    <span id="legend-release" hidden><span class="key key-release"></span>segment released</span>
  </div>
  <canvas id="minimap" class="minimap" aria-label="Overview: drag to choose the span shown"></canvas>
  <section id="allocator-panel" class="allocator-panel" aria-label="The allocator" hidden>
    <div id="alloc-check" class="alloc-check" aria-live="polite"></div>
    <div id="alloc-ooms" class="alloc-ooms"></div>
    <div class="detail-head"><span id="map-title" class="detail-title">Segment map</span></div>
    <div id="map-figures" class="map-figures"></div>
    <div id="map-oom" class="map-oom" role="note" hidden></div>
    <div id="map-box" class="map-box">
      <canvas id="segment-map" class="segment-map" role="img" aria-label="Segment map: each segment's blocks by address"></canvas>
      <div id="map-tooltip" class="tooltip" role="tooltip" hidden></div>
    </div>
    <div class="legend map-legend" aria-hidden="true">
      <span><span class="key key-segment"></span>allocated (by line)</span>
      <span><span class="key key-waste"></span>rounding waste</span>
      <span><span class="key key-free"></span>free (cached)</span>
    </div>
  </section>
  <section id="detail" class="detail" aria-label="Selected block" hidden>
    <div class="detail-head">
      <span id="detail-title" class="detail-title"></span>
      <vscode-button id="go-to-source" secondary icon="go-to-file">Go to Source</vscode-button>
    </div>
    <div id="detail-body" class="detail-body"></div>
  </section>
  <details id="lines-section" class="lines" open>
    <summary>Lines</summary>
    <div class="filters">
      <vscode-textfield id="filter-file" placeholder="Filter by file" aria-label="Filter by file"><span slot="content-before" class="codicon codicon-file"></span></vscode-textfield>
      <vscode-textfield id="filter-stack" placeholder="Text in stack" aria-label="Filter by text in the stack"><span slot="content-before" class="codicon codicon-search"></span></vscode-textfield>
      <vscode-single-select id="filter-size" aria-label="Minimum size">
        <vscode-option value="0">Any size</vscode-option>
        <vscode-option value="1048576">&ge; 1 MiB</vscode-option>
        <vscode-option value="16777216">&ge; 16 MiB</vscode-option>
        <vscode-option value="134217728">&ge; 128 MiB</vscode-option>
        <vscode-option value="1073741824">&ge; 1 GiB</vscode-option>
      </vscode-single-select>
    </div>
    <table id="lines" class="lines-table">
      <thead><tr>
        <th scope="col" data-sort="line" class="col-line">Line</th>
      </tr></thead>
      <tbody></tbody>
    </table>
    <div id="lines-more" class="lines-more"></div>
  </details>
</main>
<section id="empty" class="empty" hidden>
  <p>No snapshot is loaded. Open a PyTorch memory snapshot (<code>torch.cuda.memory._dump_snapshot()</code>) or profile a script to see its memory over time.</p>
  <div class="empty-actions">
    <vscode-button data-command="openSnapshot" icon="folder-opened">Open Snapshot...</vscode-button>
    <vscode-button data-command="profile" icon="pulse" secondary>Profile VRAM</vscode-button>
    <vscode-button data-command="openSample" secondary>Open Sample...</vscode-button>
  </div>
</section>`,
};
