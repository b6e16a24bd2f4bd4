/**
 * What to run under the profiler: a script, a module or a notebook (its code cells top to bottom) with
 * arguments, working folder and environment.
 * Read from the `vramLens.profile.configurations` setting or from Python entries of launch.json, with
 * VS Code's `${...}` variables resolved here (pure, so it is tested without VS Code).
 */

export type ProfileTarget =
  | { readonly kind: 'script'; readonly path: string }
  | { readonly kind: 'module'; readonly name: string }
  /** A Jupyter notebook (`.ipynb`): its code cells run top to bottom in an IPython shell. */
  | { readonly kind: 'notebook'; readonly path: string };

/** Whether a file is a Jupyter notebook (profiled cell by cell). */
export function isNotebookFile(file: string): boolean {
  return file.toLowerCase().endsWith('.ipynb');
}

export interface ProfileConfiguration {
  readonly name: string;
  readonly target: ProfileTarget;
  readonly args: readonly string[];
  /** Absolute working folder; when absent the caller picks one (the workspace folder or the script's). */
  readonly cwd?: string;
  /** Added to the environment the extension host has (a null value removes a variable). */
  readonly env: Readonly<Record<string, string | null>>;
  /** More than 1 runs the program through `torch.distributed.run` with this many processes. */
  readonly nprocPerNode?: number;
  /** An interpreter path that overrides the selected one (launch.json's `python`). */
  readonly python?: string;
  /** Where it came from, for the picker. */
  readonly source: 'settings' | 'launch.json' | 'file';
}

/** Values of `${name}` variables; `env` serves `${env:NAME}`. */
export interface VariableValues {
  readonly workspaceFolder?: string;
  readonly workspaceFolderBasename?: string;
  readonly file?: string;
  readonly userHome?: string;
  readonly pathSeparator?: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Named workspace folders, for `${workspaceFolder:name}`. */
  readonly folders?: Readonly<Record<string, string>>;
}

export class ConfigurationError extends Error {
  override readonly name = 'ConfigurationError';
}

function fileParts(file: string): { dirname: string; basename: string; noExt: string; ext: string } {
  const slash = Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\'));
  const basename = file.slice(slash + 1);
  const dot = basename.lastIndexOf('.');
  return {
    dirname: slash >= 0 ? file.slice(0, slash) : '',
    basename,
    noExt: dot > 0 ? basename.slice(0, dot) : basename,
    ext: dot > 0 ? basename.slice(dot) : '',
  };
}

/** Resolves `${...}` variables; throws ConfigurationError naming any it cannot (e.g. `${command:...}`). */
export function substituteVariables(value: string, values: VariableValues): string {
  const unresolved: string[] = [];
  const out = value.replace(/\$\{([^}]+)\}/g, (whole, name: string) => {
    const resolved = resolveVariable(name, values);
    if (resolved === undefined) unresolved.push(whole);
    return resolved ?? whole;
  });
  if (unresolved.length > 0) {
    throw new ConfigurationError(`cannot resolve ${unresolved.join(', ')} in "${value}"`);
  }
  return out;
}

function resolveVariable(name: string, v: VariableValues): string | undefined {
  if (name.startsWith('env:')) return v.env[name.slice(4)] ?? '';
  if (name.startsWith('workspaceFolder:')) return v.folders?.[name.slice('workspaceFolder:'.length)];
  const file = v.file === undefined ? undefined : fileParts(v.file);
  switch (name) {
    case 'workspaceFolder':
    case 'workspaceRoot':
      return v.workspaceFolder;
    case 'workspaceFolderBasename':
      return v.workspaceFolderBasename;
    case 'file':
      return v.file;
    case 'fileDirname':
      return file?.dirname;
    case 'fileBasename':
      return file?.basename;
    case 'fileBasenameNoExtension':
      return file?.noExt;
    case 'fileExtname':
      return file?.ext;
    case 'relativeFile':
      return v.file !== undefined && v.workspaceFolder !== undefined && v.file.startsWith(v.workspaceFolder)
        ? v.file.slice(v.workspaceFolder.length + 1)
        : undefined;
    case 'userHome':
      return v.userHome;
    case 'pathSeparator':
    case '/':
      return v.pathSeparator;
    default:
      return undefined;
  }
}

/** Splits a command-line string the way a POSIX shell would split words (quotes and backslashes; no expansion). */
export function splitArguments(line: string): string[] {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote === "'") {
      if (c === "'") quote = undefined;
      else word += c;
    } else if (quote === '"') {
      if (c === '"') quote = undefined;
      else if (c === '\\' && i + 1 < line.length && '"\\$`'.includes(line[i + 1])) word += line[++i];
      else word += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      inWord = true;
    } else if (c === '\\' && i + 1 < line.length) {
      word += line[++i];
      inWord = true;
    } else if (/\s/.test(c)) {
      if (inWord) words.push(word);
      word = '';
      inWord = false;
    } else {
      word += c;
      inWord = true;
    }
  }
  if (quote !== undefined) throw new ConfigurationError(`unclosed ${quote} in arguments: ${line}`);
  if (inWord) words.push(word);
  return words;
}

type Json = Record<string, unknown>;

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function readEnv(raw: unknown, values: VariableValues): Record<string, string | null> {
  const env: Record<string, string | null> = {};
  if (!isObject(raw)) return env;
  for (const [key, value] of Object.entries(raw)) {
    if (value === null) env[key] = null;
    else if (typeof value === 'string') env[key] = substituteVariables(value, values);
    else if (typeof value === 'number' || typeof value === 'boolean') env[key] = String(value);
  }
  return env;
}

function readArgs(raw: unknown, values: VariableValues): string[] {
  if (raw === undefined || raw === null) return [];
  if (typeof raw === 'string') return splitArguments(substituteVariables(raw, values));
  if (Array.isArray(raw)) return raw.map((a) => substituteVariables(String(a), values));
  throw new ConfigurationError('args must be a list of strings or one string');
}

function readNproc(raw: unknown): number | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < 1) {
    throw new ConfigurationError('nprocPerNode must be a whole number of processes, 1 or more');
  }
  return raw;
}

/**
 * One entry of `vramLens.profile.configurations`:
 * `{ name, script | module | notebook, args?, cwd?, env?, nprocPerNode?, python? }`.
 */
export function fromSettingsEntry(raw: unknown, values: VariableValues): ProfileConfiguration {
  if (!isObject(raw)) throw new ConfigurationError('a configuration must be an object');
  const name = typeof raw.name === 'string' && raw.name !== '' ? raw.name : undefined;
  const script = typeof raw.script === 'string' ? raw.script : undefined;
  const module = typeof raw.module === 'string' ? raw.module : undefined;
  const notebook = typeof raw.notebook === 'string' ? raw.notebook : undefined;
  if ([script, module, notebook].filter((t) => t !== undefined).length !== 1) {
    throw new ConfigurationError(`configuration ${name ?? '(unnamed)'} needs exactly one of "script", "module" and "notebook"`);
  }
  const target: ProfileTarget =
    script !== undefined
      ? { kind: 'script', path: substituteVariables(script, values) }
      : notebook !== undefined
        ? { kind: 'notebook', path: substituteVariables(notebook, values) }
        : { kind: 'module', name: module! };
  return {
    name: name ?? (script ?? notebook ?? module)!,
    target,
    args: readArgs(raw.args, values),
    cwd: typeof raw.cwd === 'string' ? substituteVariables(raw.cwd, values) : undefined,
    env: readEnv(raw.env, values),
    nprocPerNode: readNproc(raw.nprocPerNode),
    python: typeof raw.python === 'string' ? substituteVariables(raw.python, values) : undefined,
    source: 'settings',
  };
}

/** A launch.json entry of type `debugpy`/`python` with request `launch` and a `program` or `module`; else undefined. */
export function fromLaunchEntry(raw: unknown, values: VariableValues): ProfileConfiguration | undefined {
  if (!isObject(raw)) return undefined;
  if (raw.type !== 'debugpy' && raw.type !== 'python') return undefined;
  if (raw.request !== 'launch') return undefined;
  const program = typeof raw.program === 'string' ? raw.program : undefined;
  const module = typeof raw.module === 'string' ? raw.module : undefined;
  if (program === undefined && module === undefined) return undefined;
  return {
    name: typeof raw.name === 'string' ? raw.name : (program ?? module)!,
    target: program !== undefined ? { kind: 'script', path: substituteVariables(program, values) } : { kind: 'module', name: module! },
    args: readArgs(raw.args, values),
    cwd: typeof raw.cwd === 'string' ? substituteVariables(raw.cwd, values) : undefined,
    env: readEnv(raw.env, values),
    python: typeof raw.python === 'string' ? substituteVariables(raw.python, values) : undefined,
    source: 'launch.json',
  };
}

/** The plain "run this file" configuration (a notebook's cells, for an `.ipynb`). */
export function fileConfiguration(file: string, cwd?: string): ProfileConfiguration {
  const target: ProfileTarget = isNotebookFile(file) ? { kind: 'notebook', path: file } : { kind: 'script', path: file };
  return { name: fileParts(file).basename, target, args: [], cwd, env: {}, source: 'file' };
}

/** The file a configuration runs (a script or a notebook), if it runs one. */
export function targetFile(config: ProfileConfiguration): string | undefined {
  return config.target.kind === 'module' ? undefined : config.target.path;
}

/** A short description of the target and its arguments, for lists and tooltips. */
export function describeTarget(config: ProfileConfiguration): string {
  const target = config.target.kind === 'module' ? `-m ${config.target.name}` : fileParts(config.target.path).basename;
  return [target, ...config.args].join(' ');
}
