/**
 * Running cells in a real Jupyter kernel for the notebook tests: `test/notebook/kernel_driver.py` under the
 * python that `npm run test:notebook` names (VRAM_LENS_NOTEBOOK_PYTHON, default /usr/bin/python3; in a
 * chroot when VRAM_LENS_NOTEBOOK_ROOT is set: the script bind-mounts the clone and /tmp there, so paths
 * mean the same inside), and writing the notebook those cells are.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import assert from 'node:assert/strict';
import { main } from '../../src/cli/main';
import { repoRoot } from '../helpers/corpus';

export const kernelPython = process.env.VRAM_LENS_NOTEBOOK_PYTHON ?? '/usr/bin/python3';
export const kernelRoot = process.env.VRAM_LENS_NOTEBOOK_ROOT;
export const fakeTorch = path.join(repoRoot, 'test', 'fixtures', 'fake-torch');

/** argv of the kernel's python (in the chroot when there is one). */
export function pythonArgv(...args: string[]): string[] {
  return kernelRoot ? ['chroot', kernelRoot, '/usr/bin/env', '-C', repoRoot, kernelPython, ...args] : [kernelPython, ...args];
}

/** Why the kernel tests cannot run here, or undefined when they can. */
export function kernelMissing(): string | undefined {
  const [command, ...args] = pythonArgv('-c', 'import ipykernel, jupyter_client');
  const r = spawnSync(command, args, { encoding: 'utf8' });
  return r.status === 0 ? undefined : `no ipykernel for ${kernelPython}${kernelRoot ? ` in ${kernelRoot}` : ''} (run bash scripts/setup-notebook.sh)`;
}

export interface CellRun {
  readonly status: 'ok' | 'error' | 'aborted';
  readonly executionCount: number | null;
  readonly stdout: string;
  readonly stderr: string;
  /** The value the cell displayed (its text/plain), if any. */
  readonly result: string | null;
  readonly error: { readonly ename: string; readonly evalue: string; readonly traceback: readonly string[] } | null;
}

export interface KernelRun {
  readonly cells: readonly CellRun[];
  /** Every file name the kernel's compiler gave code it ran -> the execution count it ran under. */
  readonly names: Readonly<Record<string, number>>;
  readonly ipykernel: string;
  readonly ipython: string;
  readonly python: string;
}

/** Runs `sources` as cells, one execute_request each (as a frontend sends them), in a fresh kernel. */
export function runKernel(sources: readonly string[], options: { cwd: string; env?: Record<string, string>; timeoutS?: number }): KernelRun {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'vl-kernel-'));
  const job = path.join(dir, 'job.json');
  const result = path.join(dir, 'result.json');
  writeFileSync(job, JSON.stringify({ cells: sources, cwd: options.cwd, env: options.env ?? {}, timeout: options.timeoutS ?? 60 }));
  const [command, ...args] = pythonArgv(path.join(repoRoot, 'test', 'notebook', 'kernel_driver.py'), job, result);
  const r = spawnSync(command, args, { encoding: 'utf8', timeout: 5 * 60_000 });
  if (r.status !== 0) throw new Error(`kernel_driver.py failed (${r.status ?? r.signal}): ${r.stderr}`);
  return JSON.parse(readFileSync(result, 'utf8')) as KernelRun;
}

export type TestCell = { readonly type: 'code' | 'markdown'; readonly source: string };

/** An nbformat 4 notebook of `cells` (sources split into lines as Jupyter saves them). */
export function notebookJson(cells: readonly TestCell[], counts: readonly (number | null)[] = []): string {
  return JSON.stringify(
    {
      nbformat: 4,
      nbformat_minor: 5,
      metadata: { kernelspec: { name: 'python3', display_name: 'Python 3', language: 'python' }, language_info: { name: 'python' } },
      cells: cells.map((c, i) => ({
        cell_type: c.type,
        id: `cell-${i}`,
        metadata: {},
        source: c.source.split(/(?<=\n)/),
        ...(c.type === 'code' ? { execution_count: counts[i] ?? null, outputs: [] } : {}),
      })),
    },
    null,
    1,
  );
}

/** (0-based cell index, 1-based line in the cell) of the line holding `marker`, read from the cells' text. */
export function markerLine(cells: readonly TestCell[], marker: string): { cell: number; line: number } {
  for (let i = 0; i < cells.length; i++) {
    const lines = cells[i].source.split(/\r\n|\r|\n/);
    const at = lines.findIndex((l) => l.includes(marker));
    if (at >= 0) return { cell: i, line: at + 1 };
  }
  throw new Error(`no cell has ${marker}`);
}

/** `vram-lens ARGS...` in this process: its exit code and output. */
export async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(args, { out: (t) => (out += t), err: (t) => (err += t) });
  return { code, out, err };
}

/** A line of `analyze --json --notebook`: a cell's (notebook, cell, line in the cell) or a file's. */
export type CellRow = { readonly file: string; readonly cell?: number; readonly line: number; readonly allocBytes: number; readonly recordedFile?: string };

/** The lines of `snapshot` that allocated, placed on the cells of `notebook`. */
export async function cellRows(snapshot: string, notebook: string): Promise<CellRow[]> {
  const r = await cli(['analyze', snapshot, '--json', '--notebook', notebook]);
  assert.equal(r.code, 0, r.err);
  return (JSON.parse(r.out) as { devices: { lines: CellRow[] }[] }).devices[0].lines.filter((l) => l.allocBytes > 0);
}
