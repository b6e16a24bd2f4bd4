/**
 * The `vram-lens` command line: the same core as the extension, for terminals and CI.
 * Errors go to stderr with a non-zero exit (1: bad input, 2: bad usage).
 */
import type { ParsedArgs } from './args';
import { UsageError, parseArgs } from './args';
import type { CliIO } from './io';
import { InputError, processIO } from './io';
import { isOutOfMemory, userMessage } from '../engine/base/errors';

interface CommandSpec {
  readonly usage: string;
  readonly options: { readonly valued: readonly string[]; readonly flags: readonly string[]; readonly repeatable?: readonly string[] };
  readonly run: (args: ParsedArgs, io: CliIO) => Promise<number>;
  /** Everything from the first positional on is a program and its own arguments (`predict SCRIPT --its-flag`). */
  readonly program?: true;
}

/**
 * Each command's module, loaded when it runs: a command's code (and what only it needs, such as the
 * advisor's Python parser) is not loaded, compiled or run at start-up by the others.
 */
const COMMANDS: Readonly<Record<string, () => Promise<CommandSpec>>> = {
  analyze: async () => {
    const m = await import('./commands/analyze.js');
    return { usage: m.analyzeUsage, options: m.analyzeOptions, run: m.analyzeCommand };
  },
  diff: async () => {
    const m = await import('./commands/diff.js');
    return { usage: m.diffUsage, options: m.diffOptions, run: m.diffCommand };
  },
  advise: async () => {
    const m = await import('./commands/advise.js');
    return { usage: m.adviseUsage, options: m.adviseOptions, run: m.adviseCommand };
  },
  run: async () => {
    const m = await import('./commands/run.js');
    return { usage: m.runUsage, options: m.runOptions, run: m.runCommand };
  },
  predict: async () => {
    const m = await import('./commands/predict.js');
    return { usage: m.predictUsage, options: m.predictOptions, run: m.predictCommand, program: true };
  },
  whatif: async () => {
    const m = await import('./commands/whatif.js');
    return { usage: m.whatifUsage, options: m.whatifOptions, run: (args, io) => m.whatifCommand(args, io) };
  },
};

async function help(): Promise<string> {
  const specs = await Promise.all(Object.values(COMMANDS).map((load) => load()));
  const lines = specs.map((c) => `  ${c.usage}`);
  return `VRAM Lens: where a PyTorch program's GPU memory goes, line by line.\n\nusage:\n${lines.join('\n')}\n`;
}

export async function main(argv: readonly string[], io: CliIO = processIO): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    io.out(await help());
    return name === undefined ? 2 : 0;
  }
  const load = COMMANDS[name];
  if (!Object.hasOwn(COMMANDS, name) || load === undefined) {
    io.err(`vram-lens: unknown command '${name}'\n\n${await help()}`);
    return 2;
  }
  const command = await load();
  // `vram-lens COMMAND --help` (or -h), anywhere before a `--` (or the program): the command's usage, not an unknown option.
  const end = command.program ? programStart(rest, command.options.valued) : rest.indexOf('--');
  if ((end < 0 ? rest : rest.slice(0, end)).some((a) => a === '--help' || a === '-h')) {
    io.out(`usage: ${command.usage}\n`);
    return 0;
  }
  try {
    const own = command.program && end >= 0 ? [...rest.slice(0, end), '--', ...rest.slice(rest[end] === '--' ? end + 1 : end)] : rest;
    const args = parseArgs(own, command.options.valued, command.options.flags, command.options.repeatable);
    const untune = io.tuneCompiler?.(name, args.positionals);
    try {
      return await command.run(args, io);
    } finally {
      untune?.();
    }
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`vram-lens: ${e.message}\n`);
      return 2;
    }
    if (e instanceof InputError) {
      io.err(`vram-lens: ${e.message}\n`);
      return 1;
    }
    // Anything else, in words (memory that ran out, a file system error, or a fault of ours); the stack only on request.
    io.err(`vram-lens: ${userMessage(e)}\n`);
    if (process.env.VRAM_LENS_DEBUG) io.err(`${e instanceof Error && e.stack ? e.stack : String(e)}\n`);
    return isOutOfMemory(e) ? 1 : 70;
  }
}

/** Where a program starts in a command's arguments: at `--`, or at the first word that is no option nor option value. */
function programStart(args: readonly string[], valued: readonly string[]): number {
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--' || !a.startsWith('-') || a === '-') return i;
    if (a.startsWith('--') && !a.includes('=') && valued.includes(a.slice(2))) i++;
  }
  return -1;
}
