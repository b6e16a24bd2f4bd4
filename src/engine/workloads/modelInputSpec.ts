/**
 * What to feed one input of a user's model, as the user writes it: `NAME=SHAPE[:VALUE]`, the shape as
 * sizes separated by `x` or `,` (empty for a scalar), the value a number every element takes or a JSON
 * array of every element's value in row-major order (`x=1x3:[1,2,3]`). Without one: floats uniform in
 * [-1, 1), integer scalars their default (`defaultScalarValue`), other integers and booleans zero.
 */
import { ElemType } from '../onnx/model';
import type { ValueInfo } from '../onnx/model';
import { errorMessage } from '../base/errors';
import { elementCount } from './graphBuilder';

export interface InputSpec {
  readonly shape: readonly number[];
  /** Every element's value (a fill). */
  readonly value?: number;
  /** Each element's value, row-major: as many as the shape has elements. */
  readonly values?: readonly number[];
}

export class InputSpecError extends Error {
  override readonly name = 'InputSpecError';
}

/** Parses `NAME=SHAPE[:VALUE]`; throws an InputSpecError that quotes the text. */
export function parseInputSpec(text: string): [string, InputSpec] {
  const eq = text.indexOf('=');
  const name = eq < 0 ? '' : text.slice(0, eq);
  if (name === '') throw new InputSpecError(`'${text}': expected NAME=SHAPE[:VALUE], e.g. x=1x3x224x224, sr=:16000 or ids=1x3:[5,7,9]`);
  const rest = text.slice(eq + 1);
  const colon = rest.indexOf(':');
  const shapeText = colon < 0 ? rest : rest.slice(0, colon);
  const valueText = colon < 0 ? undefined : rest.slice(colon + 1);
  const shape = shapeText === '' ? [] : shapeText.split(/[x,]/);
  const sizes = shape.map((d) => (/^\d+$/.test(d) ? Number(d) : NaN));
  if (sizes.some((d) => !Number.isSafeInteger(d))) throw new InputSpecError(`input '${name}': shape '${shapeText}' is not sizes separated by x or ,`);
  if (valueText === undefined) return [name, { shape: sizes }];
  if (valueText.trim().startsWith('[')) {
    let values: unknown;
    try {
      values = JSON.parse(valueText);
    } catch {
      throw new InputSpecError(`input '${name}': values '${valueText}' are not a JSON array of numbers, e.g. [1,2,3]`);
    }
    return [name, withValues(name, sizes, values)];
  }
  const value = valueText.trim() === '' ? NaN : Number(valueText);
  if (!Number.isFinite(value)) throw new InputSpecError(`input '${name}': value '${valueText}' is not a number`);
  return [name, { shape: sizes, value }];
}

/** A spec with literal values, checked: an array of finite numbers, one per element of the shape. */
function withValues(name: string, shape: readonly number[], values: unknown): InputSpec {
  if (!Array.isArray(values) || !values.every((v) => typeof v === 'number' && Number.isFinite(v))) {
    throw new InputSpecError(`input '${name}': values must be an array of numbers`);
  }
  const count = elementCount(shape);
  if (values.length !== count) {
    throw new InputSpecError(`input '${name}': ${values.length} values for shape [${shape.join(', ')}], which has ${count} element${count === 1 ? '' : 's'}`);
  }
  return { shape: [...shape], values: values as number[] };
}

/** The range of each integer element type (int64 and uint64 as far as a JSON number is exact). */
const INTEGER_RANGES: ReadonlyMap<number, readonly [string, number, number]> = new Map([
  [ElemType.Uint8, ['uint8', 0, 255]],
  [ElemType.Int8, ['int8', -128, 127]],
  [ElemType.Uint16, ['uint16', 0, 65535]],
  [ElemType.Int16, ['int16', -32768, 32767]],
  [ElemType.Int32, ['int32', -(2 ** 31), 2 ** 31 - 1]],
  [ElemType.Int64, ['int64', Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER]],
  [ElemType.Uint32, ['uint32', 0, 2 ** 32 - 1]],
  [ElemType.Uint64, ['uint64', 0, Number.MAX_SAFE_INTEGER]],
  [ElemType.Bool, ['bool', 0, 1]],
]);

/**
 * Literal values checked against the input's element type: whole numbers within an integer type's range
 * (booleans 0 or 1). Throws an InputSpecError naming the input, the element and the type.
 */
export function checkValues(input: ValueInfo, values: readonly number[]): void {
  const range = input.elemType === undefined ? undefined : INTEGER_RANGES.get(input.elemType);
  if (!range) return;
  const [type, min, max] = range;
  const bad = values.findIndex((v) => !Number.isInteger(v) || v < min || v > max);
  if (bad >= 0) {
    throw new InputSpecError(`input '${input.name}': value ${values[bad]} (element ${bad}) is not ${type === 'bool' ? 'a bool (0 or 1)' : `a whole number in ${type}'s range ${min}..${max}`}`);
  }
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
 * input name to the text `--input` takes after `NAME=` (`"1x512"`, `":16000"`, `"1x3:[1,2,3]"`) or
 * `{ "shape": [1, 512], "value": 0 }` (a fill) or `{ "shape": [1, 3], "values": [1, 2, 3] }` (each element;
 * either optional, not both). Throws an InputSpecError naming `source` and the input.
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
    const values = typeof entry === 'object' && entry !== null ? (entry as { values?: unknown }).values : undefined;
    if (!Array.isArray(shape) || !shape.every((d) => Number.isSafeInteger(d) && (d as number) >= 0)) {
      throw new InputSpecError(`${source}: input '${name}': expected "SHAPE[:VALUE]", {"shape": [sizes], "value": number} or {"shape": [sizes], "values": [numbers]}`);
    }
    if (fill !== undefined && (typeof fill !== 'number' || !Number.isFinite(fill))) throw new InputSpecError(`${source}: input '${name}': value is not a number`);
    if (values !== undefined) {
      if (fill !== undefined) throw new InputSpecError(`${source}: input '${name}': give "value" (a fill) or "values" (each element), not both`);
      try {
        specs[name] = withValues(name, shape as number[], values);
      } catch (e) {
        throw new InputSpecError(`${source}: ${errorMessage(e)}`);
      }
      continue;
    }
    specs[name] = fill === undefined ? { shape: shape as number[] } : { shape: shape as number[], value: fill };
  }
  return specs;
}

/** `line L, column C` of character `offset` of `text` (both from 1). */
function lineColumn(text: string, offset: number): string {
  const before = text.slice(0, offset).split('\n');
  return `line ${before.length}, column ${before[before.length - 1].length + 1}`;
}

/** Parses the inputs file's text; errors name the file and the input. */
export function parseInputsFile(text: string, source: string): Record<string, InputSpec> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    // Where it stops, in lines and columns (the engine's own sentence is not for the user).
    const at = /position (\d+)/.exec(errorMessage(e));
    const where = at ? ` (${lineColumn(text, Number(at[1]))})` : '';
    throw new InputSpecError(`${source}: not valid JSON${where}: write {"NAME": "SHAPE[:VALUE]", ...}`);
  }
  return inputSpecsFromJson(value, source);
}

/** An integer input of one element (a sample rate, a trip count, a top-k): zeros are rarely what the model expects. */
export function isIntegerScalar(input: ValueInfo): boolean {
  return (
    input.elemType !== undefined &&
    input.elemType !== ElemType.Bool &&
    INTEGER_RANGES.has(input.elemType) &&
    input.shape !== undefined &&
    input.shape.every((d) => d === 1)
  );
}

/** The value offered for an integer scalar before a run: 16000 for a sample rate (speech models), else 1. */
export function defaultScalarValue(name: string): number {
  return /(^|[_.])(sr|sample_?rate|sampling_?rate)$/i.test(name) ? 16000 : 1;
}
