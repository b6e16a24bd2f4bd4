/**
 * A workload run from request to snapshot: build (or read) the graph, run it under onnxruntime's
 * profiler, reconstruct memory per node, and write a PyTorch-format snapshot pickle. Runs in the
 * calling thread; `workloadWorker.ts` hosts it off the extension host's thread.
 *
 * Two steps so a device-memory line sampled by the parent during the run can join the snapshot:
 * `executeJob` runs, `finishJob` writes.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { errorMessage, userMessage } from '../../engine/base/errors';
import { decodeModel } from '../../engine/onnx/decode';
import type { ValueInfo } from '../../engine/onnx/model';
import { ElemType, elemByteSize } from '../../engine/onnx/model';
import type { PlainValue } from '../../engine/pickle/encoder';
import type { SizeId, WorkloadId } from '../../engine/workloads/catalog';
import { elementCount } from '../../engine/workloads/graphBuilder';
import { buildWorkload, resolveVariant, seededRandom, uniform, workloadInfo, workloadInputs } from '../../engine/workloads/catalog';
import { encodeModel } from '../../engine/onnx/encode';
import type { ExecGraph, FigureOrigin, MemoryTrace, NodeRun } from '../../engine/workloads/liveness';
import { reconstructMemory } from '../../engine/workloads/liveness';
import type { InputSpec } from '../../engine/workloads/modelInputSpec';
import { checkValues, defaultScalarValue, isIntegerScalar, specShape } from '../../engine/workloads/modelInputSpec';
import { DEFAULT_DIMENSION_SIZE, concreteShape, modelInputs, modelRunGraph, openDimensions } from '../../engine/workloads/onnxModelGraph';
import type { ProfiledRun } from '../../engine/workloads/ortProfile';
import { traceToSnapshot } from '../../engine/workloads/snapshotPickle';
import { resolveWorkloadFrames } from '../../engine/workloads/workloadFrames';
import type { ExecutionProvider, ProviderChoice, ProviderSkip } from './providers';
import { PROVIDER_NAMES } from './providers';
import type { Feed, SessionSettings } from './session';
import { SessionRunError, runSession } from './session';

export interface BuiltinJob {
  readonly kind: 'builtin';
  readonly workload: WorkloadId;
  readonly variant: string;
  readonly size: SizeId;
  /** Path of the sample the nodes map to, as frames will name it. */
  readonly samplePath: string;
  /** Its current text (line numbers are looked up in it). */
  readonly sampleText: string;
}

export interface ModelJob {
  readonly kind: 'model';
  readonly modelPath: string;
  /** Sizes of the model's open input dimensions (see `openDimensions`). */
  readonly dimensions: Readonly<Record<string, number>>;
  /** Shape and value per input, where the user gave them (they win over `dimensions`). */
  readonly inputs?: Readonly<Record<string, InputSpec>>;
  /**
   * Open dimensions `dimensions` leaves out run at `DEFAULT_DIMENSION_SIZE` (the command line; the summary
   * says which); without it a missing size is an error (the extension asks for every one).
   */
  readonly defaultDimensions?: boolean;
}

export type JobRequest = (BuiltinJob | ModelJob) & {
  readonly provider: ProviderChoice;
  readonly settings: SessionSettings;
};

export interface NodeSummary {
  readonly name: string;
  readonly opType: string;
  /** The node's innermost frame. */
  readonly file: string;
  readonly line: number;
  readonly startUs: number;
  readonly durationUs: number;
  readonly outputBytes: number;
  /** Intermediate bytes in use while the node ran: the arena's figure when measured, else the reconstruction's. */
  readonly bytes: number;
  readonly origin: FigureOrigin;
}

/** What a run did, for the user and for the CLI's JSON (plain data: it crosses threads and lands in the snapshot). */
export interface RunSummary {
  readonly title: string;
  readonly workload: { readonly id: WorkloadId; readonly variant: string; readonly size: SizeId } | undefined;
  readonly model: string | undefined;
  readonly provider: ExecutionProvider;
  readonly skippedProviders: readonly ProviderSkip[];
  /** Kernels per execution provider as the profile reports them (nodes a provider cannot run fall back to CPU). */
  readonly kernelsByProvider: Readonly<Record<string, number>>;
  readonly settings: SessionSettings;
  /** `measured` when onnxruntime's arena reported memory per node; `reconstructed` otherwise. */
  readonly figures: FigureOrigin;
  readonly inputBytes: number;
  /** Peak of intermediates from the graph's liveness (reconstructed). */
  readonly reconstructedPeakBytes: number;
  /** Peak of the arena's requested bytes (measured), when available. */
  readonly measuredPeakBytes: number | undefined;
  /** Peak of the snapshot (inputs + intermediates + memory onnxruntime held): what the annotations show. */
  readonly snapshotPeakBytes: number;
  /** Peak of the process's device memory from NVML, when sampled. */
  readonly deviceMemoryPeakBytes: number | undefined;
  readonly runMs: number;
  readonly nodes: readonly NodeSummary[];
  /** Sample statements that could not be found (they fall back to the function's line). */
  readonly unresolvedStatements: readonly string[];
  /** For a user's model: how many of its nodes name a source location (the others are shown on `onnx:<model>`). */
  readonly nodesWithSource: number | undefined;
  /** For a user's model: integer scalars nobody gave, fed their default (16000 for a sample rate, else 1). */
  readonly scalarDefaults?: Readonly<Record<string, number>>;
  /** For a user's model: open dimensions nobody gave a size, run at `DEFAULT_DIMENSION_SIZE`. */
  readonly dimensionDefaults?: Readonly<Record<string, number>>;
}

export interface ExecutedJob {
  readonly trace: MemoryTrace;
  readonly summary: RunSummary;
  readonly profileEpochUs: number;
}

export interface DeviceMemorySamples {
  readonly timeUs: readonly number[];
  readonly bytes: readonly number[];
}

export class JobError extends Error {
  override readonly name = 'JobError';
}

function float16Bits(value: number): number {
  const f32 = new Float32Array([value]);
  const bits = new Uint32Array(f32.buffer)[0];
  const sign = (bits >>> 16) & 0x8000;
  const exponent = ((bits >>> 23) & 0xff) - 127 + 15;
  if (exponent <= 0) return sign;
  if (exponent >= 31) return sign | 0x7c00;
  return sign | (exponent << 10) | ((bits >>> 13) & 0x3ff);
}

/**
 * Input data for a user's model: each element's literal value (`values`, checked against the type by
 * `checkValues`) or every element `value` when given; else floats uniform in [-1, 1), integers and
 * booleans zero (valid indices and masks). A fill is checked against the type like literal values.
 */
function modelFeed(elemType: number | undefined, dims: number[], random: () => number, spec?: InputSpec): Feed {
  const n = elementCount(dims);
  const values = spec?.values;
  const value = spec?.value;
  const floats = () => (values ? Float32Array.from(values) : value === undefined ? uniform(n, -1, 1, random) : new Float32Array(n).fill(value));
  const int = value ?? 0;
  switch (elemType) {
    case ElemType.Float:
      return { type: 'float32', dims, data: floats() };
    case ElemType.Double:
      return { type: 'float64', dims, data: values ? Float64Array.from(values) : Float64Array.from(floats()) };
    case ElemType.Float16:
      return { type: 'float16', dims, data: Uint16Array.from(floats(), float16Bits) };
    case ElemType.Int64:
      return { type: 'int64', dims, data: values ? BigInt64Array.from(values, (v) => BigInt(v)) : new BigInt64Array(n).fill(BigInt(int)) };
    case ElemType.Int32:
      return { type: 'int32', dims, data: values ? Int32Array.from(values) : new Int32Array(n).fill(int) };
    case ElemType.Int8:
      return { type: 'int8', dims, data: values ? Int8Array.from(values) : new Int8Array(n).fill(int) };
    case ElemType.Uint8:
      return { type: 'uint8', dims, data: values ? Uint8Array.from(values) : new Uint8Array(n).fill(int) };
    case ElemType.Bool:
      return { type: 'bool', dims, data: values ? Uint8Array.from(values) : new Uint8Array(n).fill(int === 0 ? 0 : 1) };
    default:
      throw new JobError(`inputs of element type ${String(elemType)} are not supported`);
  }
}

interface Prepared {
  readonly title: string;
  readonly model: Uint8Array | string;
  readonly feeds: Map<string, Feed>;
  /** Builds the graph once the profile is known (user models take tensor sizes from it). */
  readonly graph: (profile: ProfiledRun) => { graph: ExecGraph; runs: NodeRun[]; unresolved: readonly string[]; nodesWithSource?: number };
  /** Integer scalars the request left out, fed their default (`defaultScalarValue`). */
  readonly scalarDefaults?: Readonly<Record<string, number>>;
  /** Open dimensions the request left out, run at `DEFAULT_DIMENSION_SIZE`. */
  readonly dimensionDefaults?: Readonly<Record<string, number>>;
}

function prepareBuiltin(job: BuiltinJob): Prepared {
  const info = workloadInfo(job.workload);
  if (!info) throw new JobError(`unknown workload '${job.workload}'`);
  const workload = buildWorkload(job.workload, job.variant, job.size);
  const feeds = new Map<string, Feed>();
  for (const [name, data] of workloadInputs(job.workload, workload)) feeds.set(name, { type: 'float32', dims: workload.shapes.get(name) ?? [], data });
  const resolved = resolveWorkloadFrames(workload, job.samplePath, job.sampleText);
  const indexByName = new Map(workload.nodes.map((n, i) => [n.name, i]));
  return {
    title: `${job.workload} ${builtinVariantId(job)} (${job.size})`,
    model: encodeModel(workload.model),
    feeds,
    graph: (profile) => ({
      graph: resolved.graph,
      runs: profile.nodes.flatMap((k) => {
        const node = indexByName.get(k.name);
        return node === undefined ? [] : [{ node, startUs: k.startUs, durationUs: k.durationUs, arena: k.arena }];
      }),
      unresolved: resolved.unresolved,
    }),
  };
}

function prepareModel(job: ModelJob): Prepared {
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(job.modelPath);
  } catch (e) {
    throw new JobError(`cannot read the model: ${userMessage(e)}`);
  }
  const model = decodeModel(bytes);
  const random = seededRandom(1);
  const feeds = new Map<string, Feed>();
  const inputBytes = new Map<string, number>();
  const inputs = modelInputs(model);
  const unknown = Object.keys(job.inputs ?? {}).filter((name) => !inputs.some((i) => i.name === name));
  if (unknown.length > 0) throw new JobError(`the model has no input ${unknown.map((n) => `'${n}'`).join(', ')} (its inputs: ${inputs.map((i) => i.name).join(', ')})`);
  const scalarDefaults: Record<string, number> = {};
  // Open dimensions of the inputs fed from their shape alone that the request gives no size: 1, said in the summary.
  const specified = (i: ValueInfo) => (job.inputs !== undefined && Object.hasOwn(job.inputs, i.name)) || isIntegerScalar(i);
  const dimensionDefaults: Record<string, number> = {};
  if (job.defaultDimensions === true) {
    for (const key of openDimensions(model, new Set(inputs.filter(specified).map((i) => i.name)))) {
      if (job.dimensions[key] === undefined) dimensionDefaults[key] = DEFAULT_DIMENSION_SIZE;
    }
  }
  const sizes = { ...dimensionDefaults, ...job.dimensions };
  for (const input of inputs) {
    let spec = job.inputs && Object.hasOwn(job.inputs, input.name) ? job.inputs[input.name] : undefined;
    if (!spec && isIntegerScalar(input)) {
      // A sample rate or a trip count: zeros are rarely what the model expects (the extension asks first).
      scalarDefaults[input.name] = defaultScalarValue(input.name);
      spec = { shape: (input.shape ?? []).map(() => 1), value: scalarDefaults[input.name] };
    }
    let dims: number[];
    try {
      dims = spec ? specShape(input, spec) : concreteShape(input, sizes);
      if (spec?.values) checkValues(input, spec.values);
      else if (spec?.value !== undefined) checkValues(input, [spec.value]);
    } catch (e) {
      throw new JobError(errorMessage(e));
    }
    feeds.set(input.name, modelFeed(input.elemType, dims, random, spec));
    inputBytes.set(input.name, dims.reduce((a, b) => a * b, elemByteSize(input.elemType ?? 0) ?? 0));
  }
  return {
    title: path.basename(job.modelPath),
    model: job.modelPath,
    feeds,
    graph: (profile) => {
      const { graph, runs, nodesWithSource } = modelRunGraph(model, job.modelPath, profile, inputBytes);
      return { graph, runs, unresolved: [], nodesWithSource };
    },
    scalarDefaults,
    dimensionDefaults,
  };
}

/** A built-in job's variant under its current name (older aliases resolved). */
function builtinVariantId(request: BuiltinJob): string {
  const info = workloadInfo(request.workload);
  return (info && resolveVariant(info, request.variant)?.id) ?? request.variant;
}

/** The session settings a job runs with: a built-in variant may force the arena (the `cleanup` variant runs without one). */
export function effectiveSettings(request: JobRequest): SessionSettings {
  if (request.kind !== 'builtin') return request.settings;
  const info = workloadInfo(request.workload);
  const variant = info && resolveVariant(info, request.variant);
  return variant?.memoryArena === undefined ? request.settings : { ...request.settings, memoryArena: variant.memoryArena };
}

/** Runs the job's graph under the profiler and reconstructs its memory. */
export async function executeJob(request: JobRequest, progress: (message: string) => void = () => undefined): Promise<ExecutedJob> {
  progress(request.kind === 'builtin' ? 'building the graph' : 'reading the model');
  const prepared = request.kind === 'builtin' ? prepareBuiltin(request) : prepareModel(request);
  const settings = effectiveSettings(request);
  progress('running under the onnxruntime profiler');
  let session;
  try {
    session = await runSession({ model: prepared.model, feeds: prepared.feeds, provider: request.provider, settings });
  } catch (e) {
    // A model that fails with sizes chosen by default says which they were: the caller says how to give others.
    const defaults = Object.entries(prepared.dimensionDefaults ?? {});
    if (e instanceof SessionRunError && defaults.length > 0) {
      throw new JobError(`${e.message} (it ran with ${defaults.map(([k, v]) => `'${k}' = ${v}`).join(', ')}, sizes chosen by default)`);
    }
    throw e;
  }
  if (!session.profile) throw new JobError('onnxruntime wrote no profile for the run');
  progress('reconstructing memory per node');
  // Arena statistics measure the memory of the provider that ran the kernel: for a GPU session, those
  // of kernels that fell back to the CPU describe the CPU arena, not the device, and are left out.
  const ownProvider = PROVIDER_NAMES[session.provider];
  const profile: ProfiledRun = {
    ...session.profile,
    nodes: session.profile.nodes.map((k) => (k.provider === ownProvider ? k : { ...k, arena: undefined })),
  };
  const { graph, runs, unresolved, nodesWithSource } = prepared.graph(profile);
  const trace = reconstructMemory(graph, runs);
  const kernelsByProvider: Record<string, number> = {};
  for (const k of session.profile.nodes) kernelsByProvider[k.provider] = (kernelsByProvider[k.provider] ?? 0) + 1;
  const nodes = trace.nodes.map((n): NodeSummary => {
    const frame = n.frames[0];
    return {
      name: n.name,
      opType: n.opType,
      file: frame?.filename ?? '',
      line: typeof frame?.line === 'number' ? frame.line : 0,
      startUs: n.startUs,
      durationUs: n.durationUs,
      outputBytes: n.outputBytes,
      bytes: n.measuredBytes ?? n.reconstructedBytes,
      origin: n.measuredBytes === undefined ? 'reconstructed' : 'measured',
    };
  });
  const summary: RunSummary = {
    title: prepared.title,
    workload: request.kind === 'builtin' ? { id: request.workload, variant: builtinVariantId(request), size: request.size } : undefined,
    model: request.kind === 'model' ? request.modelPath : undefined,
    provider: session.provider,
    skippedProviders: session.skipped,
    kernelsByProvider,
    settings,
    figures: trace.measured ? 'measured' : 'reconstructed',
    inputBytes: trace.preexistingBytes,
    reconstructedPeakBytes: trace.reconstructedPeakBytes,
    measuredPeakBytes: trace.measuredPeakBytes,
    snapshotPeakBytes: tracePeak(trace),
    deviceMemoryPeakBytes: undefined,
    runMs: session.runMs,
    nodes,
    unresolvedStatements: unresolved,
    nodesWithSource,
    ...(prepared.scalarDefaults && Object.keys(prepared.scalarDefaults).length > 0 ? { scalarDefaults: prepared.scalarDefaults } : {}),
    ...(prepared.dimensionDefaults && Object.keys(prepared.dimensionDefaults).length > 0 ? { dimensionDefaults: prepared.dimensionDefaults } : {}),
  };
  return { trace, summary, profileEpochUs: session.profileEpochUs };
}

/** Peak of the trace's running total (what the snapshot's replay will find). */
export function tracePeak(trace: MemoryTrace): number {
  let live = 0;
  let peak = 0;
  for (const e of trace.events) {
    live += e.kind === 'alloc' ? e.bytes : -e.bytes;
    peak = Math.max(peak, live);
  }
  return peak;
}

/**
 * The snapshot of an executed job, with the device-memory line when one was sampled: the plain values a
 * PyTorch-format pickle of it holds (`encodePickle` writes the file, when one is wanted; the runtime's
 * `openSnapshot` reads them as they are, with nothing encoded to be decoded again).
 */
export function finishJob(executed: ExecutedJob, deviceMemory?: DeviceMemorySamples): { snapshot: PlainValue; summary: RunSummary } {
  const peak = deviceMemory && deviceMemory.bytes.length > 0 ? Math.max(...deviceMemory.bytes) : undefined;
  const summary: RunSummary = { ...executed.summary, deviceMemoryPeakBytes: peak };
  const run: { [key: string]: PlainValue } = {
    producer: 'vram-lens',
    summary: JSON.parse(JSON.stringify(summary)) as PlainValue,
  };
  if (deviceMemory && deviceMemory.bytes.length > 0) {
    run.device_memory = { source: 'nvml', time_us: [...deviceMemory.timeUs], bytes: [...deviceMemory.bytes] };
  }
  const snapshot = traceToSnapshot(executed.trace, { epochOffsetUs: executed.profileEpochUs, run });
  return { snapshot, summary };
}
