/** `vram-lens analyze F | head`: a reader that closes the pipe early ends the CLI quietly, not with an EPIPE trace. */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, it } from 'node:test';
import { repoRoot } from '../helpers/corpus';


describe('CLI on a closed pipe', () => {
  it('exits 0 with nothing on stderr when stdout is closed before it writes', async () => {
    const bin = path.join(repoRoot, 'bin', 'vram-lens.js');
    const sample = path.join(repoRoot, 'media', 'samples', 'similarity-eager.pickle');
    const child = spawn(process.execPath, [bin, 'analyze', sample, '--json']);
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => { stderr += chunk.toString('utf8'); });
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    assert.equal(stderr, '');
    assert.equal(code, 0);
  });
});
