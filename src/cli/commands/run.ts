/**
 * `vram-lens run similarity|train-step [--variant V] [--size S] [--ep auto|cuda|webgpu|cpu] [--json] [--save FILE]`:
 * runs a built-in workload under onnxruntime, headless, and reports it as `analyze` reports a snapshot,
 * plus the execution provider and whether the figures were measured or reconstructed.
 */
import { existsSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { analyzeSnapshot } from '../../engine/analysis/analyze';
import { stringifyExact, toReport } from '../../engine/analysis/report';
import { formatBytes } from '../../engine/text/format';
import { encodePickle } from '../../engine/pickle/encoder';
import { openSnapshot } from '../../runtime/input/snapshotFile';
import { isProviderChoice } from '../../runtime/ort/providers';
import { DEFAULT_SESSION_SETTINGS, ProviderUnavailableError, RuntimeUnavailableError, SessionRunError } from '../../runtime/ort/session';
import type { SessionSettings } from '../../runtime/ort/session';
import type { JobRequest, ModelJob, RunSummary } from '../../runtime/ort/workloadJob';
import { JobError } from '../../runtime/ort/workloadJob';
import { runWorkload } from '../../runtime/ort/workloadRunner';
import type { SizeId } from '../../engine/workloads/catalog';
import { WORKLOADS, resolveVariant, workloadInfo } from '../../engine/workloads/catalog';
import { errorMessage } from '../../engine/base/errors';
import { OnnxFormatError } from '../../engine/onnx/errors';
import type { InputSpec } from '../../engine/workloads/modelInputSpec';
import { inputsFilePath, parseInputSpec, parseInputsFile } from '../../engine/workloads/modelInputSpec';
import type { ParsedArgs } from '../args';
import { UsageError, intOption } from '../args';
import type { CliIO } from '../io';
import { InputError } from '../io';
import { renderAnalysis } from '../render';

export const runUsage =
  'vram-lens run similarity|train-step [--variant V] [--size tiny|small|medium|large] | MODEL.onnx [--input NAME=SHAPE[:VALUE|:[V1,V2,...]]]... [--dim NAME=N]...\n' +
  '                 [--ep auto|cuda|webgpu|cpu] [--json] [--save FILE] [--top N] [--optimization LEVEL] [--no-arena] [--memory-pattern]\n' +
  '  (inputs of a model not given by --input come from MODEL.onnx.inputs.json when it exists: {"NAME": "SHAPE[:VALUE]"};\n' +
  '   integer scalars given nowhere get 16000 when named like a sample rate (sr), else 1; open dimensions given by no\n' +
  '   --dim get 1, and the header says which)';
export const runOptions = {
  valued: ['variant', 'size', 'ep', 'save', 'top', 'optimization', 'input', 'dim'],
  flags: ['json', 'no-arena', 'memory-pattern'],
  repeatable: ['input', 'dim'],
};

const USER_ERRORS: ReadonlySet<string> = new Set([RuntimeUnavailableError.name, ProviderUnavailableError.name, JobError.name, OnnxFormatError.name, SessionRunError.name]);

/** What a user can change when a model does not run: the options that give sizes and inputs. */
export const MODEL_INPUT_HINT =
  "give a dimension's size with --dim NAME=N, or an input's shape (and values) with --input NAME=SHAPE[:VALUE] (or in MODEL.onnx.inputs.json)";

/**
 * `--input NAME=SHAPE[:VALUE]` and `--dim NAME=N`, each repeatable, for a user's model; inputs the
 * command line does not give come from `MODEL.onnx.inputs.json` when it exists (as in the extension).
 */
function modelRequest(args: ParsedArgs, modelPath: string): Pick<ModelJob, 'kind' | 'modelPath' | 'dimensions' | 'inputs' | 'defaultDimensions'> {
  const inputs: Record<string, InputSpec> = {};
  const file = inputsFilePath(modelPath);
  if (existsSync(file)) {
    try {
      Object.assign(inputs, parseInputsFile(readFileSync(file, 'utf8'), file));
    } catch (e) {
      throw new InputError(errorMessage(e));
    }
  }
  for (const text of args.repeated.get('input') ?? []) {
    try {
      const [name, spec] = parseInputSpec(text);
      inputs[name] = spec;
    } catch (e) {
      throw new UsageError(`--input ${errorMessage(e)}`);
    }
  }
  const dimensions: Record<string, number> = {};
  for (const text of args.repeated.get('dim') ?? []) {
    const m = /^(.+)=(\d+)$/.exec(text);
    if (!m) throw new UsageError(`--dim '${text}': expected NAME=N`);
    dimensions[m[1]] = Number(m[2]);
  }
  // Open dimensions no --dim sizes run at 1 (the header says which).
  return { kind: 'model', modelPath, dimensions, inputs, defaultDimensions: true };
}

const OPTIMIZATION_LEVELS: readonly SessionSettings['optimization'][] = ['disabled', 'basic', 'extended', 'all'];

/** Where the shipped samples are: media/samples next to dist/ (bundled) or above the compiled sources (tests). */
function sampleFile(name: string): string {
  let dir = __dirname;
  for (let i = 0; i < 5; i++) {
    const candidate = path.join(dir, 'media', 'samples', name);
    if (existsSync(candidate)) return candidate;
    dir = path.dirname(dir);
  }
  return path.join(__dirname, '..', 'media', 'samples', name);
}

function header(summary: RunSummary): string {
  const out: string[] = [];
  const skipped = summary.skippedProviders.map((s) => `${s.provider}: ${s.reason}`).join('; ');
  out.push(`${summary.title} on the ${summary.provider} execution provider${skipped ? ` (skipped ${skipped})` : ''}`);
  const others = Object.entries(summary.kernelsByProvider).filter(([p]) => !p.toLowerCase().startsWith(summary.provider));
  if (others.length > 0) out.push(`  kernels on other providers: ${others.map(([p, n]) => `${n} on ${p}`).join(', ')}`);
  const measured =
    summary.measuredPeakBytes === undefined
      ? 'not measured (this provider reports no arena statistics)'
      : `${formatBytes(summary.measuredPeakBytes)} measured by onnxruntime's arena`;
  out.push(`  figures         ${summary.figures}: intermediates peak ${measured}, ${formatBytes(summary.reconstructedPeakBytes)} reconstructed from the graph`);
  out.push(`  inputs          ${formatBytes(summary.inputBytes)}`);
  const defaults = Object.entries(summary.scalarDefaults ?? {});
  if (defaults.length > 0) {
    out.push(`  integer scalars ${defaults.map(([name, v]) => `${name} = ${v}`).join(', ')} (defaults; --input NAME=:N to change)`);
  }
  const dims = Object.entries(summary.dimensionDefaults ?? {});
  if (dims.length > 0) {
    out.push(`  dimensions      ${dims.map(([name, v]) => `${name} = ${v}`).join(', ')} (defaults; --dim NAME=N to change)`);
  }
  if (summary.deviceMemoryPeakBytes !== undefined) out.push(`  device memory   ${formatBytes(summary.deviceMemoryPeakBytes)} peak for this process (NVML)`);
  out.push(`  run time        ${summary.runMs.toFixed(1)} ms`);
  if (summary.unresolvedStatements.length > 0) {
    out.push(`  note: not found in the sample (shown on the function's line): ${summary.unresolvedStatements.join('; ')}`);
  }
  return out.join('\n') + '\n\n';
}

export async function runCommand(args: ParsedArgs, io: CliIO): Promise<number> {
  const names = WORKLOADS.map((w) => w.id).join(', ');
  if (args.positionals.length !== 1) throw new UsageError(`run takes one workload (${names}) or one .onnx model\nusage: ${runUsage}`);
  const target = args.positionals[0];
  const isModel = target.toLowerCase().endsWith('.onnx');
  const info = isModel ? undefined : workloadInfo(target);
  if (!isModel && !info) throw new UsageError(`unknown workload '${target}' (choose ${names}, or give a .onnx model)`);
  let variant = '';
  let size = '';
  if (info) {
    const variantName = String(args.options.get('variant') ?? info.variants[0].id);
    const resolved = resolveVariant(info, variantName);
    if (!resolved) throw new UsageError(`${info.id} has no variant '${variantName}' (choose ${info.variants.map((v) => v.id).join(', ')})`);
    variant = resolved.id;
    size = String(args.options.get('size') ?? info.defaultSize);
    if (!info.sizes.some((s) => s.id === size)) throw new UsageError(`unknown size '${size}' (choose ${info.sizes.map((s) => s.id).join(', ')})`);
  } else {
    for (const o of ['variant', 'size']) if (args.options.has(o)) throw new UsageError(`--${o} is for the built-in workloads, not a model`);
  }
  if (info && (args.repeated.has('input') || args.repeated.has('dim'))) throw new UsageError('--input and --dim are for a .onnx model');
  const provider = String(args.options.get('ep') ?? 'auto');
  if (!isProviderChoice(provider)) throw new UsageError(`unknown execution provider '${provider}' (choose auto, cuda, webgpu, cpu)`);
  const optimization = String(args.options.get('optimization') ?? DEFAULT_SESSION_SETTINGS.optimization);
  if (!(OPTIMIZATION_LEVELS as readonly string[]).includes(optimization)) {
    throw new UsageError(`unknown optimization level '${optimization}' (choose ${OPTIMIZATION_LEVELS.join(', ')})`);
  }
  const top = intOption(args, 'top', 15, 1) ?? 15;
  const settings: SessionSettings = {
    memoryArena: !args.options.has('no-arena'),
    memoryPattern: args.options.has('memory-pattern'),
    optimization: optimization as SessionSettings['optimization'],
  };

  const workerScript = path.join(__dirname, 'workloadWorker.js');
  let request: JobRequest;
  if (info) {
    const samplePath = sampleFile(info.sample);
    const sampleText = existsSync(samplePath) ? readFileSync(samplePath, 'utf8') : '';
    request = { kind: 'builtin', workload: info.id, variant, size: size as SizeId, samplePath, sampleText, provider, settings };
  } else {
    request = { ...modelRequest(args, path.resolve(target)), provider, settings };
  }
  let result;
  try {
    result = await runWorkload(request, { workerScript: existsSync(workerScript) ? workerScript : undefined });
  } catch (e) {
    // Errors the user can act on, whether raised here or (by name) inside the worker; a model that does not
    // run also names the options that change what it is given.
    const aboutInputs = e instanceof Error && (e.name === SessionRunError.name || (e.name === JobError.name && /onnxruntime could not run|input|dimension/.test(e.message)));
    const hint = isModel && aboutInputs ? `\n  ${MODEL_INPUT_HINT}` : '';
    if (e instanceof Error && USER_ERRORS.has(e.name)) throw new InputError(`${e.message}${hint}`);
    throw e;
  }
  const save = args.options.get('save');
  if (typeof save === 'string') await writeFile(save, encodePickle(result.snapshot));
  const analysis = analyzeSnapshot((await openSnapshot({ kind: 'value', value: result.snapshot })).snapshot);
  if (args.options.has('json')) {
    io.out(stringifyExact({ ...toReport(analysis), run: result.summary }) + '\n');
  } else {
    io.out(header(result.summary));
    io.out(renderAnalysis(typeof save === 'string' ? save : `${result.summary.title} (not saved: --save FILE keeps the snapshot)`, analysis, { top }));
  }
  return 0;
}
