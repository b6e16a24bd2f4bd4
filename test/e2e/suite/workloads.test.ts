/// <reference types="mocha" />
/**
 * Run Built-in Workload inside a real VS Code (code-server), on the CPU: the command, invoked with
 * arguments (no pickers), runs both similarity variants through onnxruntime-node in its worker, loads
 * two snapshots whose lines are the statements of the shipped media/samples/similarity.py, with the
 * fused variant's peak below the baseline's.
 * Runs in the extension host (mocha `bdd`), against the API that activate() returns.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ExtensionApi } from '../../../src/extension/extension';
import type { RunWorkloadOutcome } from '../../../src/extension/workloads/feature';

const EXTENSION_ID = 'vram-lens.vram-lens';
/** The repository root: this file runs from out/test/e2e/suite/. */
const repo = path.resolve(__dirname, '..', '..', '..', '..');
const sample = path.join(repo, 'media', 'samples', 'similarity.py');

describe('Run Built-in Workload (CPU)', function () {
  this.timeout(120_000);
  let api: ExtensionApi;

  before(async () => {
    const extension = vscode.extensions.getExtension<ExtensionApi>(EXTENSION_ID);
    assert.ok(extension, `${EXTENSION_ID} is installed`);
    api = await extension.activate();
    await vscode.workspace.getConfiguration('vramLens').update('workloads.executionProvider', 'cpu', vscode.ConfigurationTarget.Global);
  });

  after(() => vscode.workspace.getConfiguration('vramLens').update('workloads.executionProvider', undefined, vscode.ConfigurationTarget.Global));

  it('runs eager and in-place similarity and annotates similarity.py with both runs', async () => {
    const outcome = await vscode.commands.executeCommand<RunWorkloadOutcome | undefined>('vramLens.runWorkload', {
      workload: 'similarity',
      variants: ['eager', 'inplace'],
      size: 'small',
    });
    assert.ok(outcome, 'the command returns its runs');
    assert.deepEqual(
      outcome.runs.map((r) => r.variant),
      ['eager', 'inplace'],
    );
    const [baseline, fused] = outcome.runs;
    for (const run of outcome.runs) {
      assert.ok(run.snapshot, `${run.variant} loaded`);
      assert.equal(run.snapshot.origin, 'workload');
      assert.equal(run.summary.provider, 'cpu');
      assert.equal(run.summary.figures, 'measured');
      assert.deepEqual(run.summary.unresolvedStatements, [], 'every statement found in the shipped sample');
    }
    assert.ok(fused.summary.snapshotPeakBytes < baseline.summary.snapshotPeakBytes, 'inplace peaks below eager');
    assert.ok(api.services.store.list().includes(baseline.snapshot!) && api.services.store.list().includes(fused.snapshot!), 'two runs in the store');
    assert.equal(api.services.store.active, fused.snapshot, 'the last run is active');

    // Its lines are the statements of similarity_eager in the shipped sample.
    const text = readFileSync(sample, 'utf8').split('\n');
    const lineOf = (prefix: string) => text.findIndex((l) => l.trim().startsWith(prefix)) + 1;
    const lines = await api.services.store.lines(baseline.snapshot!);
    const annotated = new Set(lines.filter((l) => path.resolve(l.file) === sample).map((l) => l.line));
    for (const statement of ['a_sq =', 'two_ab =', 'b_sq =', 'similarity = -a_sq', 'similarity = similarity * ms']) {
      assert.ok(annotated.has(lineOf(statement)), `similarity.py:${lineOf(statement)} (${statement}) has figures`);
    }
    assert.equal(vscode.window.activeTextEditor?.document.uri.fsPath, sample, 'the sample is opened beside the result');
  });
});
