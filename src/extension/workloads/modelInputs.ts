/**
 * The inputs of a user's ONNX model: read from the file (our own bounds-checked decoder); what to feed
 * each (the `vramLens.workloads.modelInputs` setting, then `MODEL.onnx.inputs.json` next to the model,
 * then values the user accepted for its integer scalars); and the sizes of its dynamic dimensions.
 * Answers are asked once per model and remembered in the workspace state.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import { decodeModel } from '../../engine/onnx/decode';
import type { OnnxModel } from '../../engine/onnx/model';
import { DEFAULT_DIMENSION_SIZE, dimensionKey, modelInputs, openDimensions } from '../../engine/workloads/onnxModelGraph';
import { notificationText } from '../../engine/text/plainText';
import { errorMessage, userMessage } from '../../engine/base/errors';
import type { InputSpec } from '../../engine/workloads/modelInputSpec';
import { checkValues, defaultScalarValue, inputSpecsFromJson, inputsFilePath, isIntegerScalar, parseInputsFile } from '../../engine/workloads/modelInputSpec';
import { setting } from '../shared/config';

const DIMENSIONS_KEY = 'vramLens.onnxDimensions';
const SCALARS_KEY = 'vramLens.onnxScalarInputs';

/** The decoded model, or undefined after telling the user why it cannot be read. */
export async function readModelInputs(uri: vscode.Uri): Promise<OnnxModel | undefined> {
  try {
    return decodeModel(await vscode.workspace.fs.readFile(uri));
  } catch (e) {
    void vscode.window.showErrorMessage(`VRAM Lens: cannot read ${notificationText(vscode.workspace.asRelativePath(uri))} as an ONNX model: ${notificationText(userMessage(e))}`);
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
export async function chooseModelDimensions(
  state: vscode.Memento,
  uri: vscode.Uri,
  model: OnnxModel,
  given: Readonly<Record<string, InputSpec>> = {},
): Promise<Record<string, number> | undefined> {
  const all = state.get<Record<string, Record<string, number>>>(DIMENSIONS_KEY, {});
  const remembered = { ...(all[uri.fsPath] ?? {}) };
  const open = openDimensions(model, new Set(Object.keys(given)));
  const missing = open.filter((key) => remembered[key] === undefined);
  for (const [i, key] of missing.entries()) {
    const value = await vscode.window.showInputBox({
      title: `VRAM Lens: size of '${key}' (${i + 1} of ${missing.length})`,
      prompt: `The model leaves this dimension open (${usesOf(model, key)}). Press Enter for ${DEFAULT_DIMENSION_SIZE}, or give another size: memory is measured for it, and it is remembered for this model.`,
      value: String(DEFAULT_DIMENSION_SIZE),
      validateInput: (text) => (/^[1-9]\d{0,8}$/.test(text.trim()) ? undefined : 'A whole number from 1 up'),
      ignoreFocusOut: true,
    });
    if (value === undefined) return undefined;
    remembered[key] = Number(value.trim());
  }
  if (missing.length > 0) await state.update(DIMENSIONS_KEY, { ...all, [uri.fsPath]: remembered });
  return Object.fromEntries(open.map((key) => [key, remembered[key]]));
}

/** The inputs file next to the model, when there is one. */
async function readInputsFile(uri: vscode.Uri): Promise<string | undefined> {
  const file = vscode.Uri.file(inputsFilePath(uri.fsPath));
  try {
    return new TextDecoder().decode(await vscode.workspace.fs.readFile(file));
  } catch {
    return undefined;
  }
}

/**
 * What to feed each input: the setting's entries for the model's inputs, overridden by the inputs file
 * next to the model, then every integer scalar neither gives (offered with a default the user accepts
 * or changes, remembered per model). Undefined when the user cancels or an entry cannot be read (the
 * user is told which input and where).
 */
export async function chooseModelInputs(state: vscode.Memento, uri: vscode.Uri, model: OnnxModel): Promise<Record<string, InputSpec> | undefined> {
  const inputs = modelInputs(model);
  const specs: Record<string, InputSpec> = {};
  try {
    const fromSetting = inputSpecsFromJson(setting<unknown>('workloads.modelInputs', {}), 'setting vramLens.workloads.modelInputs');
    for (const input of inputs) if (Object.hasOwn(fromSetting, input.name)) specs[input.name] = fromSetting[input.name];
    const text = await readInputsFile(uri);
    if (text !== undefined) Object.assign(specs, parseInputsFile(text, path.basename(inputsFilePath(uri.fsPath))));
  } catch (e) {
    void vscode.window.showErrorMessage(`VRAM Lens: ${notificationText(userMessage(e))}`);
    return undefined;
  }
  const all = state.get<Record<string, Record<string, number>>>(SCALARS_KEY, {});
  const remembered = { ...(all[uri.fsPath] ?? {}) };
  const scalars = inputs.filter((i) => isIntegerScalar(i) && !Object.hasOwn(specs, i.name));
  for (const [i, input] of scalars.entries()) {
    const value = await vscode.window.showInputBox({
      title: `VRAM Lens: value of input '${input.name}' (${i + 1} of ${scalars.length})`,
      prompt: `An integer the model reads (zeros are rarely what it expects). Press Enter to run with this value; it is remembered for this model (or write ${path.basename(inputsFilePath(uri.fsPath))}).`,
      value: String(remembered[input.name] ?? defaultScalarValue(input.name)),
      validateInput: (text) => {
        if (!/^-?\d{1,15}$/.test(text.trim())) return 'A whole number';
        try {
          checkValues(input, [Number(text.trim())]);
          return undefined;
        } catch (e) {
          return errorMessage(e);
        }
      },
      ignoreFocusOut: true,
    });
    if (value === undefined) return undefined;
    remembered[input.name] = Number(value.trim());
    specs[input.name] = { shape: (input.shape ?? []).map(() => 1), value: remembered[input.name] };
  }
  if (scalars.length > 0) await state.update(SCALARS_KEY, { ...all, [uri.fsPath]: remembered });
  return specs;
}
