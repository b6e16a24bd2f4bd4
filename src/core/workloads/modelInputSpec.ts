/**
 * What to feed one input of a user's model, as the user writes it: `NAME=SHAPE[:VALUE]`, the shape as
 * sizes separated by `x` or `,` (empty for a scalar), the value a number every element takes (without
 * one: floats uniform in [-1, 1), integers and booleans zero).
 */
import type { ValueInfo } from '../onnx/model';

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
