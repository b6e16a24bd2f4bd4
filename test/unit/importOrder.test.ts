/**
 * No import circles, and no import inside a folder that runs back up: in every folder of src/ and
 * webview/, the entries (files, and sub-folders taken whole) import each other in one direction only
 * (test/helpers/importGraph.ts). Type-only imports count: a circle of types is still two modules that
 * cannot be read one without the other.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { repoRoot } from '../helpers/corpus';
import { folderCircles, readImportGraph } from '../helpers/importGraph';

/** Imports from one feature folder of src/extension into another (`shared/` and the root's files are no feature). */
function crossFeatureImports(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const featureOf = (file: string): string | undefined => {
    const parts = file.split('/');
    return parts.length > 3 && parts[2] !== 'shared' ? parts[2] : undefined;
  };
  const across: string[] = [];
  for (const [file, targets] of graph) {
    const from = featureOf(file);
    if (from === undefined) continue;
    for (const target of targets) {
      const to = featureOf(target);
      if (to !== undefined && to !== from) across.push(`${file} -> ${target}`);
    }
  }
  return across;
}

describe('imports run one way inside every folder', () => {
  it('no folder of src/ or webview/ has entries that import each other in a loop', () => {
    const graph = readImportGraph(repoRoot, ['src', 'webview']);
    assert.ok(graph.size > 300, `read ${graph.size} files`);
    const circles = folderCircles(graph).map((c) => `${c.folder}: ${c.entries.join(', ')} (${c.imports.join('; ')})`);
    assert.deepEqual(circles, []);
  });

  it("the extension's features import no other feature's folder: they meet through src/extension/shared/", () => {
    const graph = readImportGraph(repoRoot, ['src/extension']);
    assert.ok(graph.size > 50, `read ${graph.size} files`);
    assert.deepEqual(crossFeatureImports(graph), []);
    // And the check finds one: a feature reaching into another's folder (shared/ and the root are fine).
    const planted = new Map([
      ['src/extension/summary/summaryView.ts', ['src/extension/editor/annotator.ts', 'src/extension/shared/services.ts']],
      ['src/extension/extension.ts', ['src/extension/summary/feature.ts']],
      ['src/extension/editor/annotator.ts', []],
    ]);
    assert.deepEqual(crossFeatureImports(planted), ['src/extension/summary/summaryView.ts -> src/extension/editor/annotator.ts']);
  });

  it('finds two files that import each other, and a sub-folder that imports back up into its sibling', () => {
    const graph = new Map([
      ['a/x.ts', ['a/y.ts']],
      ['a/y.ts', ['a/x.ts']],
      ['b/draw/page.ts', ['b/controls/button.ts']],
      ['b/controls/button.ts', ['b/draw/canvas.ts']],
      ['b/draw/canvas.ts', []],
      ['c/top.ts', ['c/low/base.ts']],
      ['c/low/base.ts', []],
    ]);
    assert.deepEqual(folderCircles(graph), [
      { folder: 'a', entries: ['x.ts', 'y.ts'], imports: ['a/x.ts -> a/y.ts', 'a/y.ts -> a/x.ts'] },
      { folder: 'b', entries: ['controls', 'draw'], imports: ['b/draw/page.ts -> b/controls/button.ts', 'b/controls/button.ts -> b/draw/canvas.ts'] },
    ]);
  });
});
