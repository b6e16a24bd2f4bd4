/** A small argv parser: positionals, `--flag`, `--name value` and `--name=value`. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

export interface ParsedArgs {
  readonly positionals: string[];
  readonly options: Map<string, string | true>;
  /** Every value of a repeatable option, in order (`options` keeps the last). */
  readonly repeated: Map<string, string[]>;
}

/** `repeatable`: valued options that may be given more than once (`--input a=1 --input b=2`). */
export function parseArgs(argv: readonly string[], valued: readonly string[], flags: readonly string[], repeatable: readonly string[] = []): ParsedArgs {
  const positionals: string[] = [];
  const options = new Map<string, string | true>();
  const repeated = new Map<string, string[]>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith('--') || arg === '-') {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const name = arg.slice(2, eq < 0 ? undefined : eq);
    if (flags.includes(name)) {
      if (eq >= 0) throw new UsageError(`--${name} takes no value`);
      options.set(name, true);
    } else if (valued.includes(name)) {
      const value = eq >= 0 ? arg.slice(eq + 1) : argv[++i];
      if (value === undefined) throw new UsageError(`--${name} needs a value`);
      options.set(name, value);
      if (repeatable.includes(name)) repeated.set(name, [...(repeated.get(name) ?? []), value]);
    } else {
      throw new UsageError(`unknown option --${name}`);
    }
  }
  return { positionals, options, repeated };
}

export function intOption(args: ParsedArgs, name: string, fallback: number | undefined, min = 0): number | undefined {
  const raw = args.options.get(name);
  if (raw === undefined) return fallback;
  const value = typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!Number.isSafeInteger(value) || value < min) throw new UsageError(`--${name} takes a whole number >= ${min}`);
  return value;
}
