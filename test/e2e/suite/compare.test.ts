/**
 * Compare and advice inside a real VS Code extension host (code-server), against the API that
 * activate() returns (services.store, services.compareMode): two corpus runs of the cs336 model
 * compared (deltas on the fixture workspace's model.py, results panel, leaving compare mode), the
 * advisor's OOM finding in the Problems panel, and a leak trace whose quick fix is `.item()`.
 * Needs the fixture workspace (test/fixtures/workspace, cs336-basics/cs336_basics/*.py) and the corpus.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { suite, suiteSetup, teardown, test } from 'mocha';
import * as vscode from 'vscode';
import type { ExtensionApi } from '../../../src/extension/extension';
import type { ActiveComparison } from '../../../src/extension/shared/compareMode';
import type { LoadedSnapshot } from '../../../src/extension/shared/snapshotStore';

const EXTENSION_ID = 'vram-lens.vram-lens';
/** The repository root: this file runs from out/test/e2e/suite/. */
const repo = path.resolve(__dirname, '..', '..', '..', '..');

function corpusFile(name: string): vscode.Uri {
  const dir = process.env.VRAM_LENS_CORPUS ?? path.resolve(repo, '..', 'shared', 'snapshots');
  return vscode.Uri.file(path.join(dir, name));
}

function workspaceRoot(): string {
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.ok(folder, 'the fixture workspace is open');
  return folder.uri.fsPath;
}

async function until<T>(what: string, probe: () => T | undefined, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function ours(uri: vscode.Uri): vscode.Diagnostic[] {
  return vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'VRAM Lens');
}

function comparePanelOpen(): boolean {
  return vscode.window.tabGroups.all.some((g) => g.tabs.some((t) => t.input instanceof vscode.TabInputWebview && t.input.viewType.endsWith('vramLens.compareResults')));
}

suite('compare and advice in VS Code', () => {
  let api: ExtensionApi;
  const loaded: LoadedSnapshot[] = [];

  async function load(uri: vscode.Uri): Promise<LoadedSnapshot> {
    const s = await api.services.store.load(uri);
    assert.ok(s, `${uri.fsPath} loaded`);
    loaded.push(s);
    return s;
  }

  suiteSetup(async () => {
    const extension = vscode.extensions.getExtension<ExtensionApi>(EXTENSION_ID);
    assert.ok(extension, `${EXTENSION_ID} is installed`);
    api = await extension.activate();
  });

  teardown(async () => {
    api.services.compareMode.exit();
    for (const s of loaded.splice(0)) await api.services.store.remove(s.id);
  });

  test('compares two cs336 runs: totals, ranked lines, compare mode, panel, and leaving it', async () => {
    const baseline = await load(corpusFile('magma27-cs336-user-metadata.pickle'));
    const current = await load(corpusFile('wedsonlin-cs336-medium-512-training.pickle'));
    const changes: boolean[] = [];
    const listener = api.services.compareMode.onDidChange((on) => changes.push(on));
    try {
      const active = await vscode.commands.executeCommand<ActiveComparison>(
        'vramLens.compareSnapshots',
        { snapshotId: baseline.id, device: 0 },
        { snapshotId: current.id, device: 0 },
      );
      assert.ok(active, 'the command returns the comparison');
      assert.equal(api.services.compareMode.active, true);
      const c = active.comparison;
      assert.equal(c.totalsDelta.peakBytes, current.info.devices[0].peakBytes - baseline.info.devices[0].peakBytes);
      const ranked = c.lines.map((l) => Math.abs(l.delta.liveAtPeakBytes));
      assert.deepEqual(ranked, [...ranked].sort((x, y) => y - x), 'ranked by change in live-at-peak bytes');
      assert.equal(c.files.size, 2, 'model.py and nn_utils.py are paired across the Windows and Linux checkouts');
      await until('the results panel', () => (comparePanelOpen() ? true : undefined));

      // The model file of the fixture workspace is where the deltas are drawn.
      const model = vscode.Uri.file(path.join(workspaceRoot(), 'cs336-basics', 'cs336_basics', 'model.py'));
      await vscode.window.showTextDocument(model);
      assert.ok(c.lines.some((l) => l.current?.file.endsWith('cs336_basics/model.py') && l.delta.liveAtPeakBytes !== 0));

      await vscode.commands.executeCommand('vramLens.exitCompareMode');
      assert.equal(api.services.compareMode.active, false);
      assert.deepEqual(changes, [true, false]);
      await until('the panel to close', () => (comparePanelOpen() ? undefined : true));
    } finally {
      listener.dispose();
    }
  });

  test('closing a compared snapshot ends compare mode', async () => {
    const a = await load(corpusFile('silmont2000-cs336-small.pickle'));
    const b = await load(corpusFile('magma27-cs336-user-metadata.pickle'));
    await vscode.commands.executeCommand('vramLens.compareSnapshots', { snapshotId: a.id, device: 0 }, { snapshotId: b.id, device: 0 });
    assert.equal(api.services.compareMode.active, true);
    await api.services.store.remove(b.id);
    loaded.splice(loaded.indexOf(b), 1);
    assert.equal(api.services.compareMode.active, false);
  });

  test('the OOM of constructor-sun, whose line is not in this workspace, is on the summary, not on the .pickle', async () => {
    const snapshot = await load(corpusFile('constructor-sun-expandable-oom-4dev.pickle'));
    api.services.store.setActive(snapshot.id);
    // models.py is not in the workspace: the finding is the summary's (the advisor's answer it shows), never a diagnostic of the binary file.
    const findings = await snapshot.findings(() => api.services.sources.texts(snapshot.id));
    const oom = findings.find((f) => f.rule === 'out-of-memory');
    assert.ok(oom, 'the OOM post-mortem');
    assert.equal(oom.severity, 'error', 'an out-of-memory is an error');
    assert.match(oom.message, /asked for 4\.9 GiB/);
    assert.match(oom.message, /91\.3 MiB free/);
    assert.match(oom.file ?? '', /models\.py$/);
    // Other findings of this snapshot reach the Problems panel meanwhile; the .pickle never gets one.
    await new Promise((r) => setTimeout(r, 2_000));
    assert.deepEqual(ours(snapshot.uri!), []);
  });

  test('a leaking evaluation loop is flagged on its line and names the accumulation, with no fix that would change what it computes', async () => {
    const dir = path.join(workspaceRoot(), 'leak');
    mkdirSync(dir, { recursive: true });
    const evalPy = path.join(dir, 'eval_leak.py');
    const modelPy = path.join(dir, 'leak_model.py');
    writeFileSync(evalPy, ['import torch', '', '', '', '', '', '', '', 'for x, y in loader:', '    x = x.cuda()', '    out = model(x)', '    total += criterion(out, y)', ''].join('\n'));
    writeFileSync(modelPy, Array.from({ length: 25 }, (_, i) => (i === 19 ? '        return self.fc(h)' : '')).join('\n'));
    const pickle = path.join(dir, 'leak.pickle');
    execFileSync('python3', [path.join(repo, 'test', 'fixtures', 'compare', 'make_leak_snapshot.py'), pickle, evalPy, modelPy]);
    const snapshot = await load(vscode.Uri.file(pickle));
    api.services.store.setActive(snapshot.id);

    const modelUri = vscode.Uri.file(modelPy);
    const [leak] = await until('the leak finding', () => {
      const d = ours(modelUri).filter((x) => x.code === 'growing-memory');
      return d.length > 0 ? d : undefined;
    });
    assert.equal(leak.range.start.line, 19, 'on the allocating line (20)');
    assert.match(leak.message, /5 separate iterations/);
    assert.ok(leak.relatedInformation?.some((r) => r.location.uri.fsPath === evalPy && r.location.range.start.line === 10));

    const accumulation = leak.relatedInformation?.find((r) => r.location.uri.fsPath === evalPy && r.location.range.start.line === 11);
    assert.ok(accumulation, 'the accumulation on line 12 is named');
    assert.match(accumulation.message, /total \+= criterion\(out, y\)/);
    // `.item()` or `.detach()` would change what the program computes (a number, or no graph): none is offered.
    await vscode.workspace.openTextDocument(modelUri);
    const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', modelUri, leak.range, vscode.CodeActionKind.QuickFix.value);
    assert.deepEqual(
      actions.filter((a) => a.edit).map((a) => a.title),
      [],
      'no quick fix edits the program',
    );
    // Written by hand, `.item()` on the accumulation lets the finding go from the model's line.
    const evalDoc = await vscode.workspace.openTextDocument(evalPy);
    const edit = new vscode.WorkspaceEdit();
    edit.replace(evalDoc.uri, evalDoc.lineAt(11).range, '    total += criterion(out, y).item()');
    assert.ok(await vscode.workspace.applyEdit(edit));
    await until('the leak finding resolved by the edit', () => (ours(modelUri).some((x) => x.code === 'growing-memory') ? undefined : true));
  });
});
