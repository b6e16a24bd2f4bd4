/**
 * `vram-lens predict [--gpu NAME|SIZE] [--capability X.Y] [--data fake|cpu] [--python PATH] [--out FILE] [--json] [--top N] [--] SCRIPT [ARGS...]`:
 * runs SCRIPT in the current folder on fake 'cuda' tensors (no GPU, no data) and writes the snapshot the chosen
 * GPU would record: where the program dumps its own (`torch.cuda.memory._dump_snapshot(path)`, one file per
 * dump), else the whole run at `--out`. Prints, per snapshot, what `analyze` prints plus whether the run fits
 * the GPU; `--json` gives analyze's JSON (its `predicted` object says for which GPU and what was assumed).
 * `--data cpu` runs the program's computation on the CPU too, so that what it reads from data is its own.
 * The exit code is the program's.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { analyzeSnapshot } from '../../engine/analysis/analyze';
import { LINE_FIGURES } from '../../engine/analysis/lineFigures';
import { stringifyExact, toReport } from '../../engine/analysis/report';
import { GPU_MODELS, gpuFor, parseCapability } from '../../engine/predict/gpus';
import type { GpuModel } from '../../engine/predict/gpus';
import { BOOTSTRAP_ENTRY, isPredictData } from '../../runtime/profile/command';
import type { ProfileConfiguration } from '../../runtime/profile/configuration';
import { runPrediction } from '../../runtime/predict/predictRun';
import { frameFilterOptions } from '../analyzeFile';
import type { ParsedArgs } from '../args';
import { UsageError, intOption } from '../args';
import type { CliIO } from '../io';
import { InputError, loadSnapshotFile } from '../io';
import { renderAnalysis } from '../render';
import { formatCount } from '../../engine/text/format';
import { allocatorLine } from './analyze';

export const predictUsage =
  'vram-lens predict [--gpu NAME|SIZE] [--capability X.Y] [--data fake|cpu] [--python PATH] [--out FILE] [--json] [--top N] [--backward-lines on|off] [--] SCRIPT [ARGS...]\n' +
  `  (--gpu: ${GPU_MODELS.map((g) => g.name).join(', ')}, or a size such as 24GiB (a GPU sold as "24 GB" has 24 GiB);\n` +
  '   default H100 80GB. --capability: the compute capability of a GPU given by size (default 8.0).\n' +
  '   --data cpu: the program\'s data computed on the CPU beside the fake tensors, so nothing read from data is assumed (slower; RAM for every live tensor);\n' +
  '   --backward-lines off: backward on PyTorch\'s autograd thread, as a program runs without VRAM Lens; default on, as Profile VRAM runs it)';
export const predictOptions = { valued: ['gpu', 'capability', 'data', 'python', 'out', 'top', 'backward-lines'], flags: ['json'] };

export const DEFAULT_GPU = 'H100 80GB';

/** The GPU `--gpu` and `--capability` name. */
export function gpuOption(args: ParsedArgs): GpuModel {
  const text = args.options.get('gpu');
  const capability = args.options.get('capability');
  if (capability !== undefined && (typeof capability !== 'string' || parseCapability(capability) === undefined)) {
    throw new UsageError('--capability takes MAJOR.MINOR, such as 8.0 (A100) or 9.0 (H100)');
  }
  const gpu = gpuFor(typeof text === 'string' ? text : DEFAULT_GPU, typeof capability === 'string' ? capability : undefined);
  if (gpu === undefined) throw new UsageError(`--gpu '${String(text)}': not a GPU of the list (${GPU_MODELS.map((g) => g.name).join(', ')}) nor a size such as 24GiB`);
  return typeof capability === 'string' ? { ...gpu, capability } : gpu;
}

/** The interpreter: --python, else the active virtual or conda environment's, else python3 (python on Windows). */
export function pythonFor(args: ParsedArgs, env: Readonly<Record<string, string | undefined>>, platform: NodeJS.Platform = process.platform): string {
  const given = args.options.get('python');
  if (typeof given === 'string') return given;
  const bin = platform === 'win32' ? ['Scripts', 'python.exe'] : ['bin', 'python'];
  for (const prefix of [env.VIRTUAL_ENV, env.CONDA_PREFIX]) {
    if (prefix === undefined || prefix === '') continue;
    const candidate = path.join(prefix, ...(platform === 'win32' && prefix === env.CONDA_PREFIX ? ['python.exe'] : bin));
    if (existsSync(candidate)) return candidate;
  }
  return platform === 'win32' ? 'python' : 'python3';
}

/** The bootstrap beside this CLI's bundle (dist/cli.js -> src/python/vram_lens/__main__.py). */
function bootstrapPath(): string {
  return path.join(__dirname, '..', ...BOOTSTRAP_ENTRY);
}

export async function predictCommand(args: ParsedArgs, io: CliIO): Promise<number> {
  const [script, ...scriptArgs] = args.positionals;
  if (script === undefined) throw new UsageError(`predict needs the script to run\nusage: ${predictUsage}`);
  const gpu = gpuOption(args);
  const top = intOption(args, 'top', 15, 1) ?? 15;
  const backwardLines = args.options.get('backward-lines') ?? 'on';
  if (backwardLines !== 'on' && backwardLines !== 'off') throw new UsageError('--backward-lines takes on or off');
  const data = args.options.get('data') ?? 'fake';
  if (!isPredictData(data)) throw new UsageError('--data takes fake (no data: values read from data are assumed) or cpu (the program\'s data, computed on the CPU)');
  const json = args.options.has('json');
  const cwd = process.cwd();
  const scriptPath = path.resolve(cwd, script);
  if (!existsSync(scriptPath)) throw new InputError(`${script}: no such file`);
  const outOption = args.options.get('out');
  const out = path.resolve(cwd, typeof outOption === 'string' ? outOption : `${path.basename(script, path.extname(script))}.predicted.pickle`);
  const configuration: ProfileConfiguration = {
    name: path.basename(script),
    target: scriptPath.toLowerCase().endsWith('.ipynb') ? { kind: 'notebook', path: scriptPath } : { kind: 'script', path: scriptPath },
    args: scriptArgs,
    env: {},
    source: 'file',
  };
  const bootstrap = bootstrapPath();
  if (!existsSync(bootstrap)) throw new InputError(`the VRAM Lens bootstrap is missing (${bootstrap}): reinstall or rebuild VRAM Lens`);
  io.err(`vram-lens: predicting ${script} for ${gpu.name} (${formatCount(gpu.memoryBytes)} bytes, compute capability ${gpu.capability})${data === 'cpu' ? ', on its data computed on the CPU' : ''}\n`);
  const ran = await runPrediction({
    configuration,
    cwd,
    interpreter: [pythonFor(args, process.env)],
    bootstrap,
    snapshot: out,
    recording: {
      maxEntries: 1_000_000,
      stacks: 'python',
      sampleIntervalMs: 1000,
      backwardLines: backwardLines === 'on',
      predict: { gpuName: gpu.name, memoryBytes: gpu.memoryBytes, capability: gpu.capability, data },
    },
    env: process.env,
    // The program's own output: to the terminal as it would go, or (with --json, whose stdout is the report) to stderr.
    listener: { onStdout: (t) => (json ? io.err(t) : io.out(t)), onStderr: (t) => io.err(t) },
  });
  for (const failure of ran.failures) io.err(`vram-lens: ${failure.path}: the prediction could not be placed on the GPU: ${failure.message}\n`);
  if (ran.files.length === 0) {
    io.err(`vram-lens: no predicted snapshot was written: the program ${ran.outcome.headline}${ran.outcome.advice ? `. ${ran.outcome.advice}` : ''}\n`);
  }
  const reports: unknown[] = [];
  for (const file of ran.files) {
    const analysis = analyzeSnapshot(await loadSnapshotFile(file.path, {}, io), frameFilterOptions(args));
    if (json) reports.push({ file: file.path, ...toReport(analysis, undefined, LINE_FIGURES) });
    else io.out(`\n${renderAnalysis(file.path, analysis, { top, allocator: (d) => allocatorLine(analysis.snapshot, d) })}`);
  }
  if (json) io.out(stringifyExact(reports.length === 1 ? reports[0] : reports) + '\n');
  return ran.result.exitCode ?? (ran.outcome.kind === 'completed' ? 0 : 1);
}
