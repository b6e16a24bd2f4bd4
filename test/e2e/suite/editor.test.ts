/**
 * The editor feature inside a real VS Code extension host: a corpus snapshot opened with the
 * command lands on the fixture workspace's files (paths recorded on another machine), with the
 * figures the Python oracle computes; hovers, code lenses, edits, settings and clearing behave.
 */
import assert from 'node:assert/strict';
import { copyFileSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'mocha';
import * as vscode from 'vscode';
import type { ExtensionApi } from '../../../src/extension/extension';
import type { OracleDevice } from '../expected';
import { binary, expectedHeatStep, expectedInline, oracle, oracleLine } from '../expected';

const EXTENSION_ID = 'vram-lens.vram-lens';
const SNAPSHOT = 'wedsonlin-cs336-medium-512-training.pickle';

function workspaceRoot(): string {
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.ok(folder, 'the fixture workspace is open');
  return folder.uri.fsPath;
}

function corpusFile(name: string): string {
  const dir = process.env.VRAM_LENS_CORPUS;
  assert.ok(dir, 'VRAM_LENS_CORPUS names the corpus folder');
  return path.join(dir, name);
}

async function openSource(relative: string): Promise<vscode.TextEditor> {
  const document = await vscode.workspace.openTextDocument(path.join(workspaceRoot(), relative));
  return vscode.window.showTextDocument(document, { preview: false });
}

async function setting(key: string, value: unknown): Promise<void> {
  await vscode.workspace.getConfiguration('vramLens').update(key, value, vscode.ConfigurationTarget.Global);
}

function hoverText(hovers: vscode.Hover[]): string {
  return hovers
    .flatMap((h) => h.contents)
    .map((c) => (typeof c === 'string' ? c : 'value' in c ? c.value : ''))
    .join('\n');
}

describe('editor annotations in VS Code', () => {
  let api: ExtensionApi;
  let device: OracleDevice;
  const model = 'cs336-basics/cs336_basics/model.py';

  before(async () => {
    const extension = vscode.extensions.getExtension<ExtensionApi>(EXTENSION_ID);
    assert.ok(extension, `${EXTENSION_ID} is installed in the extension host`);
    api = await extension.activate();
    [device] = oracle(corpusFile(SNAPSHOT));
  });

  after(async () => {
    for (const key of ['inline.figures', 'annotations.thresholdPercent']) await setting(key, undefined);
  });

  it('contributes its commands', async () => {
    const commands = await vscode.commands.getCommands(true);
    for (const id of ['openSnapshot', 'switchSnapshot', 'clearAnnotations', 'closeSnapshot', 'showSummary', 'showLineInTimeline', 'openFrame']) {
      assert.ok(commands.includes(`vramLens.${id}`), `vramLens.${id} is registered`);
    }
  });

  it('Open Snapshot with a path loads it, makes it active and maps every recorded file into the workspace', async () => {
    const loaded = await vscode.commands.executeCommand<{ id: string; label: string } | undefined>('vramLens.openSnapshot', corpusFile(SNAPSHOT));
    assert.ok(loaded, 'the command returns the loaded snapshot');
    assert.equal(loaded.label, SNAPSHOT);
    assert.equal(api.services.store.active?.id, loaded.id);
    await api.editor.annotator.settled();
    const state = api.editor.annotator.state;
    assert.ok(state, 'annotations are shown');
    const root = workspaceRoot();
    const mapped = [...state.files.values()].map((f) => path.relative(root, f.local)).sort();
    assert.deepEqual(mapped, [
      'cs336-basics/cs336_basics/model.py',
      'cs336-basics/cs336_basics/nn_utils.py',
      'cs336-basics/cs336_basics/optimizer.py',
      'cs336_systems/nsys_profile.py',
    ]);
    assert.deepEqual(state.unmapped, []);
    const recorded = [...state.files.values()].flatMap((f) => f.recorded);
    assert.ok(
      recorded.some((r) => r.includes('/scripts/../cs336_systems/')),
      'the recorded path with `..` mapped to the file it names',
    );
  });

  it('a visible source file shows the oracle\'s figures on the recorded lines, quiet lines hidden', async () => {
    const editor = await openSource(model);
    await api.editor.annotator.settled();
    const annotations = api.editor.annotator.annotationsFor(editor.document);
    assert.ok(annotations, 'model.py is annotated');
    const line39 = annotations.lines.find((l) => l.line === 38);
    const expected = oracleLine(device, 'cs336_basics/model.py', 39);
    assert.equal(line39?.text, expectedInline(expected, device.peakBytes));
    assert.ok(line39.text.length <= 30, line39.text);
    assert.equal(line39.bucket, expectedHeatStep(expected, device.peakBytes));
    // Line 524 allocated 96 MiB with its callees: under 1% of the 11.6 GiB peak, so it shows nothing.
    const quiet = oracleLine(device, 'cs336_basics/model.py', 524);
    assert.ok(Math.max(quiet.inclusiveAllocBytes, quiet.inclusiveLiveAtPeakBytes) < device.peakBytes / 100);
    assert.equal(annotations.lines.find((l) => l.line === 523), undefined);
    const shown = device.lines.filter(
      (l) => l.file.endsWith('cs336_basics/model.py') && Math.max(l.inclusiveAllocBytes, l.inclusiveLiveAtPeakBytes) >= device.peakBytes / 100,
    );
    assert.deepEqual(
      annotations.lines.map((l) => l.line + 1),
      shown.map((l) => l.line),
    );
  });

  it('the hover gives self and inclusive figures, allocation sizes, stacks with frame links, and a timeline link', async () => {
    const editor = await openSource(model);
    await api.editor.annotator.settled();
    const hovers = await vscode.commands.executeCommand<vscode.Hover[]>('vscode.executeHoverProvider', editor.document.uri, new vscode.Position(38, 12));
    const text = hoverText(hovers);
    const expected = oracleLine(device, 'cs336_basics/model.py', 39);
    assert.match(text, /VRAM Lens/);
    // Each figure after a gap of no-break spaces (VS Code draws hover tables without padding; issue 29).
    const gap = '&nbsp;'.repeat(4);
    assert.ok(text.includes(`| allocated | ${gap}${binary(expected.allocBytes)} | ${gap}${binary(expected.inclusiveAllocBytes)} |`), text);
    assert.ok(text.includes(`| allocations | ${gap}${expected.allocCount.toLocaleString('en-US')} |`), text);
    assert.ok(text.includes(binary(expected.inclusiveLiveAtPeakBytes)), 'live at peak');
    assert.match(text, /\*\*Allocations\*\*, largest first: /);
    assert.match(text, /\*\*Call stacks through this line\*\*/);
    assert.match(text, /command:vramLens\.openFrame\?/);
    assert.match(text, /command:vramLens\.showLineInTimeline\?/);
  });

  it('a frame link opens the mapped file at the recorded line', async () => {
    const recorded = device.lines.find((l) => l.file.endsWith('cs336_basics/nn_utils.py') && l.line === 6)!.file;
    await vscode.commands.executeCommand('vramLens.openFrame', { file: recorded, line: '6' });
    const editor = vscode.window.activeTextEditor;
    assert.ok(editor, 'an editor opened');
    assert.equal(path.relative(workspaceRoot(), editor.document.uri.fsPath), 'cs336-basics/cs336_basics/nn_utils.py');
    assert.equal(editor.selection.active.line, 5);
  });

  it('code lenses sit on the functions that allocate, with the function\'s peak and live share', async () => {
    const editor = await openSource(model);
    await api.editor.annotator.settled();
    const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', editor.document.uri, 10);
    const linear = lenses.filter((l) => l.range.start.line === 35);
    assert.deepEqual(
      linear.map((l) => l.command?.title.replace(/^\$\(pulse\) /, '')),
      (() => {
        // Linear.forward (lines 36-39) allocates only on line 39: its figures are that line's inclusive ones.
        const l = oracleLine(device, 'cs336_basics/model.py', 39);
        const share = Math.round((100 * l.inclusiveLiveAtPeakBytes) / device.peakBytes);
        return [`VRAM peak ${binary(l.inclusivePeakBytes)} · ${binary(l.inclusiveLiveAtPeakBytes)} live at peak (${share}%)`, 'Clear'];
      })(),
    );
    assert.ok(
      lenses.every((l) => editor.document.lineAt(l.range.start.line).text.trimStart().startsWith('def ')),
      'every lens is on a def line',
    );
  });

  it('edits move annotations with their lines and mark changed lines stale', async () => {
    const editor = await openSource(model);
    await api.editor.annotator.settled();
    const before = api.editor.annotator.annotationsFor(editor.document)!.lines.find((l) => l.line === 38)!;
    await editor.edit((b) => b.insert(new vscode.Position(0, 0), '# one\n# two\n'));
    await api.editor.annotator.settled();
    let now = api.editor.annotator.annotationsFor(editor.document)!;
    const moved = now.lines.find((l) => l.originalLine === 38);
    assert.equal(moved?.line, 40, 'two lines inserted above: line 39 is now 41');
    assert.equal(moved.stale, false);
    assert.equal(moved.text, before.text);
    await editor.edit((b) => b.replace(editor.document.lineAt(40).range, '        return x @ self.weight.T * 2'));
    await api.editor.annotator.settled();
    now = api.editor.annotator.annotationsFor(editor.document)!;
    const changed = now.lines.find((l) => l.originalLine === 38);
    assert.equal(changed?.stale, true);
    assert.ok(changed.text.endsWith('(stale)'), changed.text);
    await vscode.commands.executeCommand('undo');
    await vscode.commands.executeCommand('undo');
    await api.editor.annotator.settled();
    now = api.editor.annotator.annotationsFor(editor.document)!;
    assert.deepEqual(
      [now.lines.find((l) => l.originalLine === 38)?.line, now.lines.find((l) => l.originalLine === 38)?.stale],
      [38, false],
      'undoing both edits puts it back, fresh',
    );
  });

  it('settings choose the figures and the threshold', async () => {
    const editor = await openSource(model);
    await setting('inline.figures', ['allocBytes', 'allocCount']);
    await setting('annotations.thresholdPercent', 0);
    await api.editor.annotator.settled();
    const annotations = api.editor.annotator.annotationsFor(editor.document)!;
    const l39 = oracleLine(device, 'cs336_basics/model.py', 39);
    assert.equal(annotations.lines.find((l) => l.line === 38)?.text, `+${binary(l39.allocBytes)} · x${l39.allocCount}`);
    assert.ok(
      annotations.lines.some((l) => l.line === 523),
      'with no threshold the quiet line 524 shows',
    );
    await setting('inline.figures', undefined);
    await setting('annotations.thresholdPercent', undefined);
    await api.editor.annotator.settled();
  });

  it('Clear Annotations removes them; switching back shows them again', async () => {
    const editor = await openSource(model);
    await vscode.commands.executeCommand('vramLens.clearAnnotations');
    await api.editor.annotator.settled();
    assert.equal(api.editor.annotator.annotationsFor(editor.document), undefined);
    const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', editor.document.uri);
    assert.deepEqual(lenses, []);
    await api.editor.openSnapshot(corpusFile(SNAPSHOT));
    await api.editor.annotator.settled();
    assert.ok(api.editor.annotator.annotationsFor(editor.document), 'opening the same snapshot again shows them without reloading');
    assert.equal(api.services.store.list().length, 1);
  });

  it('a second snapshot becomes active; its unmapped files stay unannotated; closing it falls back to none', async () => {
    const first = api.services.store.active!;
    const second = await api.editor.openSnapshot(corpusFile('silmont2000-cs336-small.pickle'));
    assert.ok(second);
    await api.editor.annotator.settled();
    assert.equal(api.services.store.active?.id, second.id);
    const editor = await openSource(model);
    assert.equal(api.editor.annotator.annotationsFor(editor.document), undefined, 'the other snapshot recorded no model.py');
    const held = second.held();
    assert.ok(held.lineDevices > 0 && held.sources, `the annotator and the source capture asked the snapshot: ${JSON.stringify(held)}`);
    await api.services.store.remove(second.id);
    assert.ok(second.isDisposed);
    assert.deepEqual(second.held(), { lineDevices: 0, lineDetails: 0, lineFunctions: false, sources: false, findings: false }, 'closing it leaves none of its state behind');
    api.services.store.setActive(first.id);
    await api.editor.annotator.settled();
    assert.ok(api.editor.annotator.annotationsFor(editor.document));
  });

  it('steps aside while compare mode draws its deltas, and comes back after', async () => {
    const editor = await openSource(model);
    const current = api.services.store.active!;
    const baseline = await api.services.store.load(vscode.Uri.file(corpusFile('magma27-cs336-user-metadata.pickle')), { makeActive: false });
    assert.ok(baseline);
    try {
      await vscode.commands.executeCommand('vramLens.compareSnapshots', { snapshotId: baseline.id, device: 0 }, { snapshotId: current.id, device: 0 });
      assert.equal(api.services.compareMode.active, true);
      await api.editor.annotator.settled();
      assert.equal(api.editor.annotator.annotationsFor(editor.document), undefined, 'no annotations under the compare deltas');
      await vscode.commands.executeCommand('vramLens.exitCompareMode');
      await api.editor.annotator.settled();
      assert.ok(api.editor.annotator.annotationsFor(editor.document), 'the annotations are back');
    } finally {
      api.services.compareMode.exit();
      await api.services.store.remove(baseline.id);
    }
  });

  it('opening a snapshot file again reuses it, unless the file changed on disk', async () => {
    const annotating = api.services.store.active!;
    const file = path.join(workspaceRoot(), 'rerun.pickle');
    copyFileSync(corpusFile('silmont2000-cs336-small.pickle'), file);
    const [first, twin] = await Promise.all([api.editor.openSnapshot(file), api.editor.openSnapshot(file)]);
    assert.equal(twin?.id, first?.id, 'two requests at once read the file once');
    const again = await api.editor.openSnapshot(file);
    assert.equal(again?.id, first?.id, 'the unchanged file is not read twice');
    // The program ran again and wrote another snapshot to the same path.
    copyFileSync(corpusFile('jaspersolt-eor-nn.pickle'), file);
    const rerun = await api.editor.openSnapshot(file);
    assert.ok(rerun && rerun.id !== first?.id, 'the changed file is read again');
    assert.equal(api.services.store.list().filter((s) => s.uri?.fsPath === file).length, 1, 'the old copy is unloaded');
    assert.equal(rerun.info.devices[0].peakBytes, oracle(corpusFile('jaspersolt-eor-nn.pickle'))[0].peakBytes);
    await api.services.store.remove(rerun.id);
    rmSync(file);
    api.services.store.setActive(annotating.id);
    await api.editor.annotator.settled();
  });

  it('a remembered root mapping sends a recorded folder to a chosen local folder', async () => {
    // Map the snapshot's recorded project root to a folder where only nn_utils.py exists under another name tree.
    const root = workspaceRoot();
    await api.editor.resolver.addMapping({ from: '/home/lin/cs336/assignment2-systems/cs336-basics', to: path.join(root, 'elsewhere') });
    const resolved = await api.editor.resolver.resolve(['/home/lin/cs336/assignment2-systems/cs336-basics/cs336_basics/model.py']);
    assert.equal(resolved.local.get('/home/lin/cs336/assignment2-systems/cs336-basics/cs336_basics/model.py'), path.join(root, 'elsewhere', 'cs336_basics', 'model.py'));
    await api.editor.resolver.forgetMappings();
    await api.editor.annotator.settled();
  });

  it('the snapshot file opens in the summary editor', async () => {
    await vscode.commands.executeCommand('vscode.openWith', vscode.Uri.file(corpusFile(SNAPSHOT)), 'vramLens.snapshotSummary');
    const tab = vscode.window.tabGroups.all
      .flatMap((g) => g.tabs)
      .find((t) => t.input instanceof vscode.TabInputCustom && t.input.viewType === 'vramLens.snapshotSummary');
    assert.ok(tab, 'a summary tab is open');
    assert.equal(tab.label, SNAPSHOT);
    await vscode.window.tabGroups.close(tab);
  });
});
