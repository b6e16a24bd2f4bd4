/// <reference types="mocha" />
/**
 * Profile VRAM inside a real VS Code (code-server), with the stand-in torch of test/fixtures/fake-torch:
 * the command runs a fixture script, loads its snapshot as the active one with figures on the script's
 * lines, and leaves a loadable snapshot when the program runs out of memory or is cancelled.
 * Runs in the extension host (mocha `bdd`), against the API that activate() returns.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ExtensionApi } from '../../../src/extension/extension';
import type { ProfileResult } from '../../../src/extension/profile/profiler';

const EXTENSION_ID = 'vram-lens.vram-lens';
/** The repository root: this file runs from out/test/e2e/suite/. */
const repo = path.resolve(__dirname, '..', '..', '..', '..');
const fakeTorch = path.join(repo, 'test', 'fixtures', 'fake-torch');
const script = path.join(repo, 'test', 'fixtures', 'profile', 'workload.py');
const scriptLines = readFileSync(script, 'utf8').split('\n');
const lineOf = (text: string): number => scriptLines.findIndex((l) => l.includes(text)) + 1;
const MiB = 1 << 20;

async function configure(configurations: object[]): Promise<void> {
  const config = vscode.workspace.getConfiguration('vramLens');
  await config.update('pythonPath', 'python3', vscode.ConfigurationTarget.Global);
  await config.update('profile.env', { PYTHONPATH: fakeTorch, FAKE_TORCH_CAPACITY: String(1024 * MiB) }, vscode.ConfigurationTarget.Global);
  await config.update('profile.sampleIntervalMs', 50, vscode.ConfigurationTarget.Global);
  await config.update('profile.configurations', configurations, vscode.ConfigurationTarget.Global);
}

/** Polls until `probe` gives a value (the annotator draws after the snapshot and the notebook settle). */
async function waitFor<T>(probe: () => T | undefined, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

function profile(): Thenable<ProfileResult | undefined> {
  return vscode.commands.executeCommand<ProfileResult | undefined>('vramLens.profile', vscode.Uri.file(script));
}

describe('Profile VRAM (stand-in torch)', function () {
  this.timeout(60_000);
  let api: ExtensionApi;

  before(async () => {
    const extension = vscode.extensions.getExtension<ExtensionApi>(EXTENSION_ID);
    assert.ok(extension, `${EXTENSION_ID} is installed`);
    api = await extension.activate();
    await vscode.window.showTextDocument(vscode.Uri.file(script));
  });

  after(() => configure([]));

  it('runs the active script, then loads and annotates its snapshot', async () => {
    await configure([]);
    const result = await profile();
    assert.ok(result, 'the command returns the run');
    assert.equal(result.outcome.kind, 'completed', result.outcome.headline);
    const snapshot = api.services.store.active;
    assert.ok(snapshot && snapshot === result.snapshot, 'the run\'s snapshot is the active one');
    assert.equal(snapshot.origin, 'profile');
    assert.equal(snapshot.uri?.fsPath, result.run.snapshots[0].path);
    const lines = await api.services.store.lines(snapshot);
    const build = lines.find((l) => l.file === script && l.line === lineOf('return torch.empty(mib << 20)'));
    assert.ok(build, 'the allocating line of the script has figures');
    assert.equal(build.allocBytes, (64 + 256) * MiB);
    assert.ok(!lines.some((l) => /[\\/]vram_lens[\\/][^\\/]+\.py$|vram_lens_bootstrap\.py$/.test(l.file)), 'the bootstrap (src/python/vram_lens/) is never annotated');
    assert.equal(result.run.peakBytes, (64 + 256) * MiB);
    assert.deepEqual(result.run.peakLine, { file: script, line: lineOf('return torch.empty(mib << 20)') });
  });

  it('an OOM ends with a loadable snapshot that holds the OOM', async () => {
    await configure([{ name: 'workload oom', script, args: ['oom'] }]);
    const result = await profile();
    assert.ok(result);
    assert.equal(result.outcome.kind, 'oom', result.outcome.headline);
    assert.equal(result.run.configuration.name, 'workload oom');
    const snapshot = api.services.store.active;
    assert.ok(snapshot && snapshot === result.snapshot);
    const device = snapshot.info.devices[0];
    assert.equal(device.oomCount, 1);
    assert.equal(device.finalActiveBytes, 64 * MiB, 'the weights were live at the OOM');
  });

  it('Cancel ends with a loadable snapshot of the moment it was cancelled', async () => {
    await configure([{ name: 'workload sleep', script, args: ['sleep'] }]);
    const running = profile();
    await new Promise((resolve) => setTimeout(resolve, 2000));
    await vscode.commands.executeCommand('vramLens.cancelProfile');
    const result = await running;
    assert.ok(result);
    assert.equal(result.outcome.kind, 'cancelled', result.outcome.headline);
    assert.ok(existsSync(result.run.snapshots[0].path));
    const snapshot = api.services.store.active;
    assert.ok(snapshot && snapshot === result.snapshot);
    assert.equal(snapshot.info.devices[0].finalActiveBytes, (64 + 32) * MiB);
  });

  it('profiles a notebook: its cells run top to bottom in IPython, and the snapshot annotates the open cells', async function () {
    // The notebook runs in an IPython shell: Debian's python3 has one once scripts/setup-notebook.sh ran.
    if (spawnSync('/usr/bin/python3', ['-c', 'import IPython']).status !== 0) this.skip();
    await configure([]);
    await vscode.workspace.getConfiguration('vramLens').update('pythonPath', '/usr/bin/python3', vscode.ConfigurationTarget.Global);
    const dir = mkdtempSync(path.join(os.tmpdir(), 'vl-profile-nb-'));
    const file = path.join(dir, 'steps.ipynb');
    const cell = '\nweights = torch.empty(64 * 1024 * 1024)\nacts = torch.empty(32 * 1024 * 1024)';
    writeFileSync(
      file,
      JSON.stringify({
        nbformat: 4,
        nbformat_minor: 5,
        metadata: {},
        cells: [
          { cell_type: 'markdown', metadata: {}, source: ['# Steps'] },
          { cell_type: 'code', metadata: {}, execution_count: null, outputs: [], source: ['import torch'] },
          { cell_type: 'code', metadata: {}, execution_count: null, outputs: [], source: cell.split(/(?<=\n)/) },
        ],
      }),
    );
    const notebook = await vscode.workspace.openNotebookDocument(vscode.Uri.file(file));
    await vscode.window.showNotebookDocument(notebook);
    const result = await vscode.commands.executeCommand<ProfileResult | undefined>('vramLens.profile', vscode.Uri.file(file));
    assert.ok(result);
    assert.equal(result.outcome.kind, 'completed', result.outcome.headline);
    assert.equal(result.run.configuration.target.kind, 'notebook');
    assert.equal(api.services.store.active, result.snapshot);
    const annotator = api.editor.annotator;
    await annotator.settled();
    const third = notebook.cellAt(2).document;
    const shown = await waitFor(() => annotator.annotationsFor(third));
    // Cell lines (1-based): 1 blank, 2 weights, 3 acts; the document's 0-based lines 1 and 2.
    assert.deepEqual(
      shown.lines.map((l) => [l.line, l.figures.allocBytes]),
      [
        [1, 64 * MiB],
        [2, 32 * MiB],
      ],
    );
    const place = annotator.state?.places[shown.lines[0].figures.file];
    assert.deepEqual(place && [place.notebook, place.cell, place.lineOffset], [file, 2, 1]);
    assert.deepEqual(result.run.peakLine, { file: shown.lines[1].figures.file, line: 2 }, 'the peak on the acts line, as recorded (line 2 of the code that ran)');
  });

  it('opens a bundled sample', async () => {
    const editor = await vscode.commands.executeCommand<vscode.TextEditor | undefined>('vramLens.openSample', 'similarity.py');
    assert.ok(editor);
    assert.equal(path.basename(editor.document.uri.fsPath), 'similarity.py');
    assert.match(editor.document.getText(), /def similarity_inplace\(mk, ms, qk, qe\):/);
  });
});
