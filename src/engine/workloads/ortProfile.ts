/**
 * Reads the JSON trace onnxruntime writes at `endProfiling()`: per executed node its kernel time,
 * output shapes and (for arena allocators) memory statistics. Pure: the caller reads the file.
 */
import type { ArenaStats } from './liveness';

export interface ProfiledNode {
  readonly name: string;
  /** onnxruntime's node index (the model's node order when the graph was not optimised). */
  readonly nodeIndex: number | undefined;
  readonly opType: string;
  readonly provider: string;
  /** Microseconds since the profiler started. */
  readonly startUs: number;
  readonly durationUs: number;
  /** Bytes of each output, from `output_type_shape`; undefined when the profile does not say. */
  readonly outputBytes: readonly number[] | undefined;
  /** Undefined where the allocator is not an arena (e.g. WebGPU) or the arena is off. */
  readonly arena: ArenaStats | undefined;
}

export interface ProfiledRun {
  readonly startUs: number;
  readonly durationUs: number;
  readonly nodes: readonly ProfiledNode[];
}

export class ProfileFormatError extends Error {
  override readonly name = 'ProfileFormatError';
}

const ELEMENT_BYTES: Readonly<Record<string, number>> = {
  float: 4,
  float16: 2,
  bfloat16: 2,
  double: 8,
  int8: 1,
  uint8: 1,
  bool: 1,
  int16: 2,
  uint16: 2,
  int32: 4,
  uint32: 4,
  int64: 8,
  uint64: 8,
};

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function num(v: unknown): number | undefined {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && v.trim() !== '') {
    const n = Number(v);
    return Number.isFinite(n) ? n : undefined;
  }
  return undefined;
}

function outputBytes(shapes: unknown): number[] | undefined {
  if (!Array.isArray(shapes)) return undefined;
  const out: number[] = [];
  for (const s of shapes) {
    if (!isObject(s)) return undefined;
    const [type, dims] = Object.entries(s)[0] ?? [];
    const size = type === undefined ? undefined : ELEMENT_BYTES[type];
    if (size === undefined || !Array.isArray(dims) || !dims.every((d) => typeof d === 'number' && d >= 0)) return undefined;
    out.push((dims as number[]).reduce((a, b) => a * b, size));
  }
  return out;
}

function arenaStats(args: Json): ArenaStats | undefined {
  const requestedInUse = num(args.mem_bytes_requested_in_use);
  const inUse = num(args.mem_bytes_in_use);
  const requestedDelta = num(args.mem_requested_in_use_delta);
  const runningPeak = num(args.mem_in_use_peak);
  if (requestedInUse === undefined || inUse === undefined || requestedDelta === undefined || runningPeak === undefined) return undefined;
  // The WebGPU allocator reports zeros: that is no measurement, not an empty arena.
  if (requestedInUse === 0 && inUse === 0 && runningPeak === 0) return undefined;
  return { requestedInUse, inUse, requestedDelta, runningPeak };
}

/** The node kernels of every `model_run` in the profile, in order; runs without a `model_run` event form one run. */
export function parseOrtProfile(text: string): ProfiledRun[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new ProfileFormatError(`the onnxruntime profile is not JSON (${(e as Error).message})`);
  }
  if (!Array.isArray(parsed)) throw new ProfileFormatError('the onnxruntime profile is not a list of events');
  const runs: { startUs: number; durationUs: number }[] = [];
  const kernels: ProfiledNode[] = [];
  for (const e of parsed) {
    if (!isObject(e) || typeof e.name !== 'string') continue;
    const ts = num(e.ts);
    const dur = num(e.dur);
    if (ts === undefined || dur === undefined) continue;
    if (e.cat === 'Session' && e.name === 'model_run') runs.push({ startUs: ts, durationUs: dur });
    if (e.cat !== 'Node' || !e.name.endsWith('_kernel_time')) continue;
    const args = isObject(e.args) ? e.args : {};
    kernels.push({
      name: e.name.slice(0, -'_kernel_time'.length),
      nodeIndex: num(args.node_index),
      opType: typeof args.op_name === 'string' ? args.op_name : '',
      provider: typeof args.provider === 'string' ? args.provider : '',
      startUs: ts,
      durationUs: dur,
      outputBytes: outputBytes(args.output_type_shape),
      arena: arenaStats(args),
    });
  }
  kernels.sort((a, b) => a.startUs - b.startUs);
  if (runs.length === 0) {
    if (kernels.length === 0) return [];
    const last = kernels[kernels.length - 1];
    return [{ startUs: kernels[0].startUs, durationUs: last.startUs + last.durationUs - kernels[0].startUs, nodes: kernels }];
  }
  runs.sort((a, b) => a.startUs - b.startUs);
  return runs.map((r) => ({
    ...r,
    nodes: kernels.filter((k) => k.startUs >= r.startUs && k.startUs <= r.startUs + r.durationUs),
  }));
}
