/**
 * The two sides of the Profile VRAM protocol agree: the Python bootstrap (src/python/vram_lens) and
 * src/protocol/profile.ts. The Python side is read from the package by test/helpers/bootstrap_protocol.py
 * (its constants, the records its channel really writes, and its Literal types parsed from the source),
 * never from the TypeScript; the TypeScript side is the module's exported lists.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import type { DeviceSample } from '../../../src/protocol/profile';
import { DUMP_REASONS, END_OUTCOMES, ENVIRONMENT_PROBLEMS, ExitCode, RECORDING_FORMS, REQUIRED_FIELDS } from '../../../src/guards/profile';
import type { StackMode } from '../../../src/runtime/profile/command';
import { repoRoot } from '../../helpers/corpus';

interface PythonSide {
  readonly exitCodes: Record<string, number>;
  readonly records: Record<string, { readonly method: string; readonly parameters: string[]; readonly fields: string[] }>;
  readonly literals: Record<string, string[]>;
  readonly typedDicts: Record<string, string[]>;
}

const python: PythonSide = JSON.parse(
  execFileSync('python3', [path.join(repoRoot, 'test', 'helpers', 'bootstrap_protocol.py')], { encoding: 'utf8' }),
) as PythonSide;

/** `EXIT_NO_CUDA_BUILD` -> `noCudaBuild`. */
const camel = (constant: string): string =>
  constant
    .replace(/^EXIT_/, '')
    .toLowerCase()
    .replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());

const sorted = (values: Iterable<string>): string[] => [...values].sort();

function literal(name: string): string[] {
  const values = python.literals[name];
  assert.ok(values, `the package defines the Literal ${name}`);
  return values;
}

/** Every field of TypeScript's DeviceSample, checked complete by the compiler (a missing or extra key fails to compile). */
const DEVICE_SAMPLE_FIELDS: Record<keyof DeviceSample, true> = { index: true, allocated: true, peakAllocated: true, reserved: true, peakReserved: true };
const STACK_MODES: Record<StackMode, true> = { python: true, all: true };

describe('Profile VRAM protocol: Python and TypeScript agree', () => {
  it('the exit codes: the same names and the same numbers', () => {
    const fromPython = Object.fromEntries(Object.entries(python.exitCodes).map(([name, code]) => [camel(name), code]));
    assert.ok(Object.keys(fromPython).length >= 8, JSON.stringify(python.exitCodes));
    assert.deepEqual(fromPython, { ...ExitCode });
    assert.equal(new Set(Object.values(ExitCode)).size, Object.keys(ExitCode).length, 'no two names share a code');
  });

  it('the record types: the channel writes exactly the types the runner parses', () => {
    assert.deepEqual(sorted(Object.keys(python.records)), sorted(Object.keys(REQUIRED_FIELDS)));
    assert.deepEqual(sorted(literal('RecordType')), sorted(Object.keys(REQUIRED_FIELDS)), "vram_lens/protocol.py's RecordType");
  });

  it('every record carries the fields the runner requires of it', () => {
    for (const [type, required] of Object.entries(REQUIRED_FIELDS)) {
      const written = python.records[type]?.fields ?? [];
      const missing = Object.keys(required).filter((field) => !written.includes(field));
      assert.deepEqual(missing, [], `${type} (Channel.${python.records[type]?.method}) lacks fields the runner requires`);
    }
    for (const [type, record] of Object.entries(python.records)) {
      assert.deepEqual(record.fields, sorted(record.parameters), `Channel.${record.method}: one field per parameter, named alike (${type})`);
    }
  });

  it('the names inside records: problems, outcomes, dump reasons, recording forms, stack modes, sample fields', () => {
    assert.deepEqual(sorted(literal('Problem')), sorted(ENVIRONMENT_PROBLEMS));
    assert.deepEqual(sorted(literal('Outcome')), sorted(END_OUTCOMES));
    assert.deepEqual(sorted(literal('DumpReason')), sorted(DUMP_REASONS));
    assert.deepEqual(sorted(literal('RecordingForm')), sorted(RECORDING_FORMS));
    assert.deepEqual(sorted(literal('Stacks')), sorted(Object.keys(STACK_MODES)));
    assert.deepEqual(sorted(python.typedDicts.DeviceSample ?? []), sorted(Object.keys(DEVICE_SAMPLE_FIELDS)));
  });
});
