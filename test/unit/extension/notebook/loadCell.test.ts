/** The cell `Record in Notebook Kernel...` inserts: Python reads back exactly the folders it was given. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { KERNEL_MODULE, SNAPSHOT_DIR_VARIABLE, loadExtensionCell } from '../../../../src/extension/notebook/loadCell';

describe('loadExtensionCell', () => {
  it('puts the package folder on sys.path, names the watched folder, then loads the kernel extension', (t) => {
    const pythonDir = 'C:\\Users\\Zoë "z"\\.vscode\\extensions\\vram-lens\\src\\python';
    const snapshotDir = "/home/a/it's here/日本/\u2028odd";
    const cell = loadExtensionCell(pythonDir, snapshotDir);
    const [first, second] = cell.split('\n');
    assert.equal(second, `%load_ext ${KERNEL_MODULE}`);
    // The first line is plain Python: run it with sys and os stubbed, and print what it set.
    const script = `import json, sys, os\nsys.path = []\nos.environ = {}\n${first}\nprint(json.dumps([sys.path[0], os.environ[${JSON.stringify(SNAPSHOT_DIR_VARIABLE)}]]))`;
    const run = spawnSync('python3', ['-c', script], { encoding: 'utf8' });
    if (run.error) {
      t.skip('no python3');
      return;
    }
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout), [pythonDir, snapshotDir]);
  });
});
