/**
 * What to feed one input of a user's model, as the user writes it: `NAME=SHAPE[:VALUE]`, the shape as
 * sizes separated by `x` or `,` (empty for a scalar), the value a number every element takes (without
 * one: floats uniform in [-1, 1), integers and booleans zero).
 */
import type { ValueInfo } from '../onnx/model';
import { errorMessage } from '../errors';

export interface InputSpec {
  readonly shape: readonly number[];
  readonly value?: number;
}

export class InputSpecError extends Error {
  override readonly name = 'InputSpecError';
}

/** Parses `NAME=SHAPE[:VALUE]`; throws an InputSpecError that quotes the text. */
export function parseInputSpec(text: string): [string, InputSpec] {
  const eq = text.indexOf('=');
  const name = eq < 0 ? '' : text.slice(0, eq);
  if (name === '') throw new InputSpecError(`'${text}': expected NAME=SHAPE[:VALUE], e.g. x=1x3x224x224 or sr=:16000`);
  const rest = text.slice(eq + 1);
  const colon = rest.lastIndexOf(':');
  const shapeText = colon < 0 ? rest : rest.slice(0, colon);
  const valueText = colon < 0 ? undefined : rest.slice(colon + 1);
  const shape = shapeText === '' ? [] : shapeText.split(/[x,]/);
  const sizes = shape.map((d) => (/^\d+$/.test(d) ? Number(d) : NaN));
  if (sizes.some((d) => !Number.isSafeInteger(d))) throw new InputSpecError(`input '${name}': shape '${shapeText}' is not sizes separated by x or ,`);
  if (valueText === undefined) return [name, { shape: sizes }];
  const value = valueText.trim() === '' ? NaN : Number(valueText);
  if (!Number.isFinite(value)) throw new InputSpecError(`input '${name}': value '${valueText}' is not a number`);
  return [name, { shape: sizes, value }];
}

/** The spec's shape checked against the model's declaration: same rank, fixed sizes kept. */
export function specShape(input: ValueInfo, spec: InputSpec): number[] {
  const declared = input.shape;
  if (declared !== undefined) {
    if (declared.length !== spec.shape.length) {
      throw new InputSpecError(`input '${input.name}': the model declares ${declared.length} dimensions, the spec gives ${spec.shape.length}`);
    }
    declared.forEach((dim, axis) => {
      if (typeof dim === 'number' && dim >= 0 && dim !== spec.shape[axis]) {
        throw new InputSpecError(`input '${input.name}': dimension ${axis} is ${dim} in the model, ${spec.shape[axis]} in the spec`);
      }
    });
  }
  return [...spec.shape];
}

/** The file next to a model that holds what to feed it: `model.onnx.inputs.json`. */
export function inputsFilePath(modelPath: string): string {
  return `${modelPath}.inputs.json`;
}

/**
 * Inputs written as JSON (the inputs file, the `vramLens.workloads.modelInputs` setting): an object from
 * input name to the text `--input` takes after `NAME=` (`"1x512"`, `":16000"`) or `{ "shape": [1, 512],
 * "value": 0 }` (value optional). Throws an InputSpecError naming `source` and the input.
 */
export function inputSpecsFromJson(value: unknown, source: string): Record<string, InputSpec> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new InputSpecError(`${source}: expected an object from input name to its shape, e.g. {"x": "1x3x224x224", "sr": ":16000"}`);
  }
  const specs: Record<string, InputSpec> = {};
  for (const [name, entry] of Object.entries(value as Record<string, unknown>)) {
    if (typeof entry === 'string') {
      specs[name] = parseInputSpec(`${name}=${entry}`)[1];
      continue;
    }
    const shape = typeof entry === 'object' && entry !== null ? (entry as { shape?: unknown }).shape : undefined;
    const fill = typeof entry === 'object' && entry !== null ? (entry as { value?: unknown }).value : undefined;
    if (!Array.isArray(shape) || !shape.every((d) => Number.isSafeInteger(d) && (d as number) >= 0)) {
      throw new InputSpecError(`${source}: input '${name}': expected "SHAPE[:VALUE]" or {"shape": [sizes], "value": number}`);
    }
    if (fill !== undefined && (typeof fill !== 'number' || !Number.isFinite(fill))) throw new InputSpecError(`${source}: input '${name}': value is not a number`);
    specs[name] = fill === undefined ? { shape: shape as number[] } : { shape: shape as number[], value: fill };
  }
  return specs;
}

/** Parses the inputs file's text; errors name the file and the input. */
export function parseInputsFile(text: string, source: string): Record<string, InputSpec> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new InputSpecError(`${source}: not JSON (${errorMessage(e)})`);
  }
  return inputSpecsFromJson(value, source);
}

const INTEGER_TYPES: ReadonlySet<number> = new Set([2, 3, 4, 5, 6, 7, 12, 13]);

/** An integer input of one element (a sample rate, a trip count, a top-k): zeros are rarely what the model expects. */
export function isIntegerScalar(input: ValueInfo): boolean {
  return input.elemType !== undefined && INTEGER_TYPES.has(input.elemType) && input.shape !== undefined && input.shape.every((d) => d === 1);
}

/** The value offered for an integer scalar before a run: 16000 for a sample rate (speech models), else 1. */
export function defaultScalarValue(name: string): number {
  return /(^|[_.])(sr|sample_?rate|sampling_?rate)$/i.test(name) ? 16000 : 1;
}
