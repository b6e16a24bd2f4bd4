import { PickleError } from './errors';
import { decodeLatin1, decodeUtf8 } from './strings';

/** Errors for the opcodes that import, construct or call things, which are never executed. */

const PREFIX = 'not a memory snapshot: the pickle ';
const MAX_NAME_LENGTH = 200;

/** A name from the pickle, made safe to show: control characters replaced, length capped. */
function printable(name: string): string {
  // eslint-disable-next-line no-control-regex
  const clean = name.replace(/[\u0000-\u001f\u007f]/g, '?');
  return clean.length > MAX_NAME_LENGTH ? clean.slice(0, MAX_NAME_LENGTH) + '…' : clean;
}

/** Refuses a class or function the pickle names: `… the pickle constructs collections.deque`. */
export function refuseClass(offset: number, module: string, name: string): PickleError {
  return new PickleError('forbidden', offset, `${PREFIX}constructs ${printable(module)}.${printable(name)}`);
}

/** Refuses an opcode whose target is unknown, e.g. `calls an object (REDUCE)`. */
export function refuseOpcode(offset: number, what: string): PickleError {
  return new PickleError('forbidden', offset, PREFIX + what);
}

/** Refuses GLOBAL or INST, naming the `module\nname\n` argument that starts at `pos` when it is complete. */
export function refuseNamedGlobal(data: Uint8Array, pos: number, offset: number, opName: string): PickleError {
  const first = data.indexOf(0x0a, pos);
  const second = first < 0 ? -1 : data.indexOf(0x0a, first + 1);
  if (second < 0) return refuseOpcode(offset, `imports a global (${opName})`);
  return refuseClass(offset, lineText(data, pos, first), lineText(data, first + 1, second));
}

function lineText(data: Uint8Array, start: number, end: number): string {
  const length = Math.min(end - start, MAX_NAME_LENGTH * 4);
  return decodeUtf8(data, start, start + length) ?? decodeLatin1(data, start, start + length);
}
