/**
 * The inputs of a user's ONNX model: read from the file (our own bounds-checked decoder), and the
 * sizes of its dynamic dimensions, asked once per model and remembered in the workspace state.
 */
import * as vscode from 'vscode';
import { decodeModel } from '../../core/onnx/decode';
import type { OnnxModel } from '../../core/onnx/model';
import { dimensionKey, modelInputs, openDimensions } from '../../core/workloads/onnxModelGraph';
import { notificationText } from '../../core/text/plainText';
import { errorMessage } from '../../core/errors';

const DIMENSIONS_KEY = 'vramLens.onnxDimensions';

/** The decoded model, or undefined after telling the user why it cannot be read. */
export async function readModelInputs(uri: vscode.Uri): Promise<OnnxModel | undefined> {
  try {
    return decodeModel(await vscode.workspace.fs.readFile(uri));
  } catch (e) {
    void vscode.window.showErrorMessage(`VRAM Lens: cannot read ${notificationText(vscode.workspace.asRelativePath(uri))}: ${notificationText(errorMessage(e))}`);
    return undefined;
  }
}

/** Where a dimension appears, for the prompt: `input_ids[0], attention_mask[0]`. */
function usesOf(model: OnnxModel, key: string): string {
  const uses: string[] = [];
  for (const input of modelInputs(model)) {
    (input.shape ?? []).forEach((dim, axis) => {
      if (dimensionKey(input.name, axis, dim) === key) uses.push(`${input.name}[${axis}]`);
    });
  }
  return uses.join(', ');
}

/** Sizes for every open dimension: remembered ones, and the rest asked (undefined if the user cancels). */
export async function chooseModelDimensions(state: vscode.Memento, uri: vscode.Uri, model: OnnxModel): Promise<Record<string, number> | undefined> {
  const all = state.get<Record<string, Record<string, number>>>(DIMENSIONS_KEY, {});
  const remembered = { ...(all[uri.fsPath] ?? {}) };
  const open = openDimensions(model);
  const missing = open.filter((key) => remembered[key] === undefined);
  for (const [i, key] of missing.entries()) {
    const value = await vscode.window.showInputBox({
      title: `VRAM Lens: size of '${key}' (${i + 1} of ${missing.length})`,
      prompt: `The model leaves this dimension open (${usesOf(model, key)}). Memory is measured for the size you give; it is remembered for this model.`,
      value: /batch/i.test(key) ? '1' : '',
      validateInput: (text) => (/^[1-9]\d{0,8}$/.test(text.trim()) ? undefined : 'A whole number from 1 up'),
      ignoreFocusOut: true,
    });
    if (value === undefined) return undefined;
    remembered[key] = Number(value.trim());
  }
  if (missing.length > 0) await state.update(DIMENSIONS_KEY, { ...all, [uri.fsPath]: remembered });
  return Object.fromEntries(open.map((key) => [key, remembered[key]]));
}
