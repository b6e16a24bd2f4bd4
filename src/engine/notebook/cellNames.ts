/**
 * The file names IPython gives the code of a notebook cell, as frames record them:
 * - ipykernel 6 and later: `<tempdir>/ipykernel_<pid>/<hash>.py`, the hash of the cell's raw text
 *   (`murmur2.ts`); Windows writes `C:\Users\a\AppData\Local\Temp\ipykernel_1234\123.py`.
 * - IPython's own compiler (the terminal, ipykernel before 6): `<ipython-input-N-HASH>`, N the
 *   execution count, HASH the first 12 hex digits of the SHA-1 of the transformed code.
 * - one fixed name for every cell when the kernel's environment sets `IPYKERNEL_CELL_NAME`
 *   (the test suites of nbclient, nbconvert and papermill set `<IPY-INPUT>`): the frames then
 *   cannot say which cell they are in.
 */

export type CellName =
  | { readonly kind: 'ipykernel'; readonly hash: number; readonly pid: number }
  | { readonly kind: 'ipython-input'; readonly executionCount: number; readonly digest: string }
  | { readonly kind: 'fixed'; readonly name: string };

const IPYKERNEL = /(?:^|[\\/])ipykernel_(\d+)[\\/](\d+)\.py$/;
const IPYTHON_INPUT = /^<ipython-input-(\d+)-([0-9a-f]+)>$/;

/** The name every cell gets under `IPYKERNEL_CELL_NAME` in the nbclient/nbconvert/papermill test suites. */
export const IPY_INPUT = '<IPY-INPUT>';

/** What kind of cell name `filename` is, or undefined when it is not one. */
export function parseCellName(filename: string): CellName | undefined {
  const kernel = IPYKERNEL.exec(filename);
  if (kernel) {
    const hash = Number(kernel[2]);
    if (Number.isSafeInteger(hash) && hash <= 0xffffffff) return { kind: 'ipykernel', hash, pid: Number(kernel[1]) };
    return undefined;
  }
  const input = IPYTHON_INPUT.exec(filename);
  if (input) return { kind: 'ipython-input', executionCount: Number(input[1]), digest: input[2] };
  if (filename === IPY_INPUT) return { kind: 'fixed', name: filename };
  return undefined;
}

/** Whether `filename` is the code of a notebook cell (of any kind above). */
export function isCellName(filename: string): boolean {
  return parseCellName(filename) !== undefined;
}
