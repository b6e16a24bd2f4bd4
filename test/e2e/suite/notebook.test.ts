/// <reference types="mocha" />
/**
 * Notebook cells as sources inside a real VS Code (code-server), in the extension host: a cell that ran and
 * was edited since still gets its figures, because the text it ran with was kept from the notebook's
 * execution events (a test controller runs the cell, as a kernel would); the lines that no longer read as
 * they did are marked. The snapshot's frames carry the name ipykernel gives the text that ran.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ExtensionApi } from '../../../src/extension/extension';
import { ipykernelCellHash } from '../../../src/engine/notebook/murmur2';
import { MiB, TraceBuilder, native, torch } from '../../helpers/traceBuilder';

const EXTENSION_ID = 'vram-lens.vram-lens';

async function waitFor<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe('notebook cells in VS Code', function () {
  this.timeout(60_000);
  let api: ExtensionApi;

  before(async () => {
    const extension = vscode.extensions.getExtension<ExtensionApi>(EXTENSION_ID);
    assert.ok(extension);
    api = await extension.activate();
  });

  it('a cell edited since it ran keeps its figures from the text it ran with, its edited line marked', async () => {
    const ran = 'a = torch.empty(8 * 1024 * 1024)\nb = torch.empty(16 * 1024 * 1024)';
    const dir = mkdtempSync(path.join(os.tmpdir(), 'vl-nb-ran-'));
    const file = path.join(dir, 'edited.ipynb');
    writeFileSync(
      file,
      JSON.stringify({ nbformat: 4, nbformat_minor: 5, metadata: {}, cells: [{ cell_type: 'code', metadata: {}, execution_count: null, outputs: [], source: ran.split(/(?<=\n)/) }] }),
    );
    const notebook = await vscode.workspace.openNotebookDocument(vscode.Uri.file(file));
    await vscode.window.showNotebookDocument(notebook);

    // A controller that "runs" the cell, as a kernel would: the notebook's execution events follow.
    const controller = vscode.notebooks.createNotebookController('vram-lens-test', 'jupyter-notebook', 'VRAM Lens test kernel', (cells) => {
      for (const cell of cells) {
        const execution = controller.createNotebookCellExecution(cell);
        execution.executionOrder = 1;
        execution.start(Date.now());
        execution.end(true, Date.now());
      }
    });
    try {
      controller.updateNotebookAffinity(notebook, vscode.NotebookControllerAffinity.Preferred);
      await vscode.commands.executeCommand('notebook.selectKernel', { id: controller.id, extension: EXTENSION_ID });
      await vscode.commands.executeCommand('notebook.cell.execute', { ranges: [{ start: 0, end: 1 }], document: notebook.uri });
      await waitFor('the cell to have run', () => (notebook.cellAt(0).executionSummary?.executionOrder === 1 ? true : undefined));

      // Edited after the run: a line added on top, the second line changed.
      const edit = new vscode.WorkspaceEdit();
      const cell = notebook.cellAt(0).document;
      edit.replace(cell.uri, new vscode.Range(0, 0, cell.lineCount, 0), 'import torch\na = torch.empty(8 * 1024 * 1024)\nb = torch.empty(32 * 1024 * 1024)');
      await vscode.workspace.applyEdit(edit);

      // The snapshot, recorded from the text that ran (its name is that text's hash).
      const name = `/tmp/ipykernel_777/${ipykernelCellHash(ran)}.py`;
      const t = new TraceBuilder();
      t.alloc(8 * MiB, [torch('_tensor.py', 1, 'empty'), { filename: name, line: 1, name: '<module>' }]);
      t.alloc(16 * MiB, [torch('_tensor.py', 1, 'empty'), { filename: name, line: 2, name: '<module>' }]);
      const snapshot = path.join(dir, 'ran.pickle');
      writeFileSync(snapshot, t.pickle());
      await api.editor.openSnapshot(snapshot);
      const annotator = api.editor.annotator;
      const shown = await waitFor('the edited cell annotated', async () => {
        await annotator.settled();
        const a = annotator.annotationsFor(cell);
        return a && a.lines.length === 2 ? a : undefined;
      });
      // Line 1 as it ran is line 2 now (moved); line 2 as it ran no longer reads the same (changed?).
      assert.deepEqual(
        shown.lines.map((l) => [l.line, l.figures.allocBytes, l.relocation]),
        [
          [1, 8 * MiB, 'relocated'],
          [2, 16 * MiB, 'notFound'],
        ],
      );
      const place = annotator.state?.places[name];
      assert.deepEqual(place && [place.cell, place.changed], [0, true]);
    } finally {
      controller.dispose();
      await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
    }
  });

  it('the advisor puts its finding on the cell line, and its quick fix edits that line of the cell', async () => {
    // `x = x / 2` in a loop of a function that owns x: each new x is made beside the old one, then the old
    // one goes. In a cell with a blank line on top (recorded line k is cell line k + 1).
    const source = '\nimport torch\ndef scale(n):\n    x = torch.ones(n)\n    for i in range(3):\n        x = x / 2\n        y = torch.empty(n // 64)\n    return x\nx = scale(1 << 24)\n';
    const dir = mkdtempSync(path.join(os.tmpdir(), 'vl-nb-advice-'));
    const file = path.join(dir, 'rebind.ipynb');
    writeFileSync(
      file,
      JSON.stringify({
        nbformat: 4,
        nbformat_minor: 5,
        metadata: {},
        cells: [
          { cell_type: 'markdown', metadata: {}, source: ['A loop that rebinds x'] },
          { cell_type: 'code', metadata: {}, execution_count: 1, outputs: [], source: source.split(/(?<=\n)/) },
        ],
      }),
    );
    const notebook = await vscode.workspace.openNotebookDocument(vscode.Uri.file(file));
    await vscode.window.showNotebookDocument(notebook);
    const name = `/tmp/ipykernel_778/${ipykernelCellHash(source)}.py`;
    const at = (line: number) => [{ filename: name, line, name: 'scale' }, { filename: name, line: 8, name: '<module>' }];
    const t = new TraceBuilder();
    let x = t.alloc(64 * MiB, [torch('_tensor.py', 1, 'ones'), ...at(3)]);
    for (let i = 0; i < 3; i++) {
      const next = t.alloc(64 * MiB, [native('at::div'), ...at(5)]);
      t.free(x, at(5));
      x = next;
      t.free(t.alloc(MiB, [torch('_tensor.py', 1, 'empty'), ...at(6)]), at(6));
    }
    const snapshot = path.join(dir, 'rebind.pickle');
    writeFileSync(snapshot, t.pickle());
    await api.editor.openSnapshot(snapshot);
    const cell = notebook.cellAt(1).document;
    const finding = await waitFor('the in-place finding on the cell', () =>
      vscode.languages.getDiagnostics(cell.uri).find((d) => d.source === 'VRAM Lens' && d.code === 'in-place-arithmetic'),
    );
    assert.equal(finding.range.start.line, 5, 'on cell line 6 (0-based 5): the x = x / 2 line');
    assert.match(finding.message, /rebind\.ipynb, cell 2, line 6/);
    const actions = await vscode.commands.executeCommand<vscode.CodeAction[]>('vscode.executeCodeActionProvider', cell.uri, finding.range, vscode.CodeActionKind.QuickFix.value);
    const item = actions.find((a) => a.edit && a.title.includes('div_'));
    assert.ok(item?.edit, `an in-place quick fix among: ${actions.map((a) => a.title).join('; ')} (${finding.message})`);
    assert.ok(await vscode.workspace.applyEdit(item.edit));
    assert.equal(cell.lineAt(5).text, '        x.div_(2)');
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
  });
});
