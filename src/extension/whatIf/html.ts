/**
 * The what-if panel's page: its static markup (no data: everything arrives by postMessage), built
 * into a document with the shared strict CSP by src/extension/shared/webviewDocument.ts. Free of `vscode`,
 * so the browser tests load the very same page.
 */
import type { PageContent } from '../shared/webviewDocument';

export const WHAT_IF_PAGE: PageContent = {
  title: 'VRAM Lens: What If',
  script: 'whatIf.js',
  styles: ['whatIf.css'],
  codicons: true,
  dataImages: true,
  body: `<main id="app">
  <header>
    <h1>What if…</h1>
    <p id="subtitle" class="muted" aria-live="polite">Loading…</p>
    <vscode-single-select id="device" aria-label="Device" hidden></vscode-single-select>
  </header>
  <section id="check" class="check" aria-label="Can the replay be trusted?" aria-live="polite"></section>
  <div id="form" class="form" role="form" aria-label="What if">
    <div class="field">
      <vscode-label for="capacity">GPU memory</vscode-label>
      <vscode-textfield id="capacity" placeholder="as recorded, e.g. 12 GB" aria-describedby="capacity-help"></vscode-textfield>
      <div id="capacity-help" class="help">What PyTorch may use: leave room for the CUDA context and other processes. A size as GPUs are sold: 12 GB is 12 GiB. Empty: what the recording had, else no limit.</div>
    </div>
    <div class="field">
      <vscode-label for="alloc-conf">PYTORCH_CUDA_ALLOC_CONF</vscode-label>
      <vscode-textfield id="alloc-conf" placeholder="e.g. expandable_segments:True" aria-describedby="alloc-conf-help"></vscode-textfield>
      <div id="alloc-conf-help" class="help">Options over the recorded settings: expandable_segments, max_split_size_mb, roundup_power2_divisions, garbage_collection_threshold…</div>
    </div>
    <div class="field">
      <vscode-label for="fraction">Memory fraction</vscode-label>
      <vscode-textfield id="fraction" placeholder="1" aria-describedby="fraction-help"></vscode-textfield>
      <div id="fraction-help" class="help">torch.cuda.set_per_process_memory_fraction, of the GPU memory above.</div>
    </div>
    <div id="form-error" class="form-error" role="alert" hidden></div>
    <div class="form-actions"><vscode-button id="predict" icon="play">Predict</vscode-button></div>
  </div>
  <section id="result" class="result" aria-live="polite" hidden></section>
  <section class="table-section">
    <h2>On common GPU sizes</h2>
    <p class="muted">The trace replayed on each GPU size with the recorded settings, expandable segments toggled, and a max_split_size_mb chosen from the trace: fits, or the line where it runs out.</p>
    <div id="table-box" class="table-box" aria-live="polite"><p class="muted">Replaying…</p></div>
  </section>
  <p id="blind-spots" class="muted note"></p>
</main>`,
};
