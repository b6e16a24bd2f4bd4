/**
 * One profiled onnxruntime run: open a session on the chosen execution provider (falling back along
 * CUDA -> WebGPU -> CPU when the choice is `auto`), run it, and read the profile it writes.
 * onnxruntime-node is loaded lazily, so importing this module costs nothing until a run starts.
 * Node-only (native binding), free of `vscode`.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import type * as Ort from 'onnxruntime-node';
import type { ProfiledRun } from '../../engine/workloads/ortProfile';
import { parseOrtProfile } from '../../engine/workloads/ortProfile';
import { epochMicros } from './clock';
import type { ExecutionProvider, ProviderChoice, ProviderSkip } from './providers';
import { probeProviderFacts, providerCandidates } from './providers';
import { errorMessage } from '../../engine/base/errors';

/** Session options that change what memory is used or measured. */
export interface SessionSettings {
  /** The CPU memory arena. On: its statistics are what make per-node figures measured. */
  readonly memoryArena: boolean;
  /** Memory-pattern planning. Off: with it on, repeated runs allocate one planned block and per-node figures vanish. */
  readonly memoryPattern: boolean;
  /** Graph optimisation. `disabled`: nodes run as written, so each keeps its source line and recomputation is not merged away. */
  readonly optimization: 'disabled' | 'basic' | 'extended' | 'all';
}

/** The settings that make the measurement most faithful to the graph as written. */
export const DEFAULT_SESSION_SETTINGS: SessionSettings = { memoryArena: true, memoryPattern: false, optimization: 'disabled' };

export type FeedData = Float32Array | Float64Array | BigInt64Array | Int32Array | Int8Array | Uint8Array | Int16Array | Uint16Array;

export interface Feed {
  readonly type: Ort.Tensor.Type;
  readonly dims: readonly number[];
  readonly data: FeedData;
}

export interface SessionRequest {
  /** Model bytes, or a path (needed for models with external data). */
  readonly model: Uint8Array | string;
  readonly feeds: ReadonlyMap<string, Feed>;
  readonly provider: ProviderChoice;
  readonly settings: SessionSettings;
  /** Record the onnxruntime profile (default true). */
  readonly profile?: boolean;
  /** Runs before the measured one, e.g. for timing (default 0). */
  readonly warmupRuns?: number;
  /** Return the outputs' data (default false: only tests need it). */
  readonly keepOutputs?: boolean;
}

export interface SessionResult {
  readonly provider: ExecutionProvider;
  readonly skipped: readonly ProviderSkip[];
  /** The last run's node kernels, when profiling. */
  readonly profile: ProfiledRun | undefined;
  /** When the profiler's clock started, in epoch microseconds. */
  readonly profileEpochUs: number;
  /** Wall time of the last run. */
  readonly runMs: number;
  readonly outputs: ReadonlyMap<string, { readonly dims: readonly number[]; readonly data: unknown }>;
}

/** onnxruntime-node could not be loaded (not installed, or its native binary is missing for this platform). */
export class RuntimeUnavailableError extends Error {
  override readonly name = 'RuntimeUnavailableError';
}

/** The explicitly requested execution provider could not start. */
/** onnxruntime refused to run the model with the inputs it was given (a shape or value it does not accept). */
export class SessionRunError extends Error {
  override readonly name = 'SessionRunError';
}

export class ProviderUnavailableError extends Error {
  override readonly name = 'ProviderUnavailableError';
  constructor(
    readonly provider: ExecutionProvider,
    reason: string,
  ) {
    super(`the ${provider} execution provider is not available: ${reason}`);
  }
}

type OrtModule = typeof Ort;
let ortModule: OrtModule | undefined;

/** onnxruntime-node, loaded on first use (its native binding is large, and may be missing on an unsupported platform). */
export function loadOrt(): OrtModule {
  if (ortModule) return ortModule;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- a lazy, synchronous load of a native module
    ortModule = require('onnxruntime-node') as OrtModule;
  } catch (e) {
    throw new RuntimeUnavailableError(`onnxruntime-node cannot be loaded: ${firstLine(e)}`);
  }
  ortModule.env.logLevel = 'error';
  return ortModule;
}

function firstLine(e: unknown): string {
  const text = errorMessage(e);
  const line = text.split('\n').find((l) => l.trim() !== '') ?? text;
  // onnxruntime prefixes messages with the source file and line of the check that failed.
  return line.replace(/^\S+\.(cc|cpp|h):\d+ \S+ /, '').trim();
}

/**
 * onnxruntime's report of a node that failed, shortened to what a user reads: the node and the
 * sentence that says why, without the C++ source position, signature and failed condition
 * (`node 'reshape' (Reshape): The input tensor cannot be reshaped to the requested shape. Input shape:{1,8}, ...`).
 */
function runFailure(text: string): string {
  const line = text.split('\n').find((l) => l.trim() !== '') ?? text;
  const node = /running (\S+) node\. Name:'([^']*)' Status Message: (.*)$/.exec(line);
  let why = node ? node[3] : line;
  why = why.replace(/^\S+\.(cc|cpp|h):\d+ /, '');
  const failed = why.lastIndexOf(' was false. ');
  if (failed >= 0) why = why.slice(failed + ' was false. '.length);
  else why = why.replace(/^[\w:~<>]+\([^)]*\)( const)? /, '');
  return node ? `node '${node[2]}' (${node[1]}): ${why.trim()}` : why.trim();
}

/** The options every workload session is created with (exported for the overhead benchmark). */
export function sessionOptions(provider: ExecutionProvider, settings: SessionSettings, profilePrefix: string | undefined): Ort.InferenceSession.SessionOptions {
  return {
    executionProviders: [provider],
    graphOptimizationLevel: settings.optimization,
    enableCpuMemArena: settings.memoryArena,
    enableMemPattern: settings.memoryPattern,
    executionMode: 'sequential',
    // Failures come back as errors, in our words: onnxruntime's own log lines would only repeat them on stderr.
    logSeverityLevel: 4,
    enableProfiling: profilePrefix !== undefined,
    profileFilePrefix: profilePrefix,
  };
}

export async function runSession(request: SessionRequest): Promise<SessionResult> {
  const ort = loadOrt();
  const { candidates, skipped } = providerCandidates(request.provider, probeProviderFacts(require.resolve('onnxruntime-node/package.json')));
  const profiling = request.profile !== false;
  const dir = mkdtempSync(path.join(tmpdir(), 'vram-lens-ort-'));
  try {
    let session: Ort.InferenceSession | undefined;
    let provider: ExecutionProvider | undefined;
    let profileEpochUs = 0;
    for (const candidate of candidates) {
      profileEpochUs = epochMicros();
      try {
        const options = sessionOptions(candidate, request.settings, profiling ? path.join(dir, 'profile') : undefined);
        session =
          typeof request.model === 'string'
            ? await ort.InferenceSession.create(request.model, options)
            : await ort.InferenceSession.create(request.model, options);
        provider = candidate;
        break;
      } catch (e) {
        if (request.provider !== 'auto') throw new ProviderUnavailableError(candidate, firstLine(e));
        skipped.push({ provider: candidate, reason: firstLine(e) });
      }
    }
    if (!session || !provider) {
      const last = skipped[skipped.length - 1];
      throw new ProviderUnavailableError(last?.provider ?? 'cpu', last?.reason ?? 'no execution provider could start');
    }
    try {
      const feeds: Record<string, Ort.Tensor> = {};
      for (const [name, feed] of request.feeds) feeds[name] = new ort.Tensor(feed.type, feed.data as Float32Array, feed.dims);
      let result: Ort.InferenceSession.ReturnType = {};
      let runMs = 0;
      for (let i = 0; i <= (request.warmupRuns ?? 0); i++) {
        const started = performance.now();
        try {
          result = await session.run(feeds);
        } catch (e) {
          throw new SessionRunError(`onnxruntime could not run the model with these inputs: ${runFailure(errorMessage(e))}`);
        }
        runMs = performance.now() - started;
      }
      let profile: ProfiledRun | undefined;
      if (profiling) {
        session.endProfiling();
        const file = readdirSync(dir).find((f) => f.startsWith('profile') && f.endsWith('.json'));
        const runs = file === undefined ? [] : parseOrtProfile(readFileSync(path.join(dir, file), 'utf8'));
        profile = runs[runs.length - 1];
      }
      const outputs = new Map<string, { dims: readonly number[]; data: unknown }>();
      if (request.keepOutputs) for (const [name, t] of Object.entries(result)) outputs.set(name, { dims: t.dims, data: t.data });
      return { provider, skipped, profile, profileEpochUs, runMs, outputs };
    } finally {
      await session.release();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
