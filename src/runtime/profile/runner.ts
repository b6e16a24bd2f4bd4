/**
 * Starts a profiled run and sees it to its end: the program's output to the caller, the bootstrap's
 * records from the progress channel, Cancel (cancel file + SIGINT, then SIGKILL of the whole process
 * group after a grace period, longer while a snapshot is being written). A torchrun job gets SIGINT, then
 * SIGTERM halfway through the grace period (torchrun stops its workers itself on either), then SIGKILL of
 * torchrun's group and of every process it started: since PyTorch 2.2 workers run in their own sessions,
 * outside torchrun's process group, so they are found as its descendants while it still runs. Free of `vscode`; the process,
 * channel and file operations come from a `RunnerHost` so tests can stand in for them.
 */
import * as childProcess from 'node:child_process';
import type { EventEmitter } from 'node:events';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ProfileCommand } from './command';
import type { ProcessEnding } from './outcome';
import type { ProfileRecord } from '../../protocol/profile';
import { LineSplitter } from './lineSplitter';
import { parseRecord } from '../../guards/profile';

export type StopSignal = 'SIGINT' | 'SIGTERM' | 'SIGKILL';

/** The parts of a ChildProcess the runner uses. */
export interface ChildLike extends EventEmitter {
  readonly pid?: number;
  readonly stdout: EventEmitter | null;
  readonly stderr: EventEmitter | null;
}

export interface ConnectionHandlers {
  onData(bytes: Uint8Array): void;
  onEnd(): void;
}

export interface ChannelServer {
  close(): void;
}

export interface RunnerHost {
  readonly platform: NodeJS.Platform;
  spawn(command: string, args: readonly string[], options: { cwd: string; env: Record<string, string>; detached: boolean }): ChildLike;
  /** Sends a signal to the process, or to its whole process group (POSIX) / process tree (Windows). */
  signal(pid: number, signal: StopSignal, wholeGroup: boolean): void;
  /** Listens on the channel address; each connection asks `onConnection` for the handlers of its bytes and end. */
  listen(address: string, onConnection: () => ConnectionHandlers): Promise<ChannelServer>;
  /** Creates the cancel file that every bootstrap process polls. */
  touch(file: string): void;
  /** The process ids descended from `pid` (children, grandchildren...), as far as the system shows them. */
  descendants(pid: number): number[];
}

export interface RunTimeouts {
  /** After Cancel, how long the program has to stop before it is killed. */
  readonly graceMs: number;
  /** How long a snapshot being written when the grace period ends may still take. */
  readonly dumpGraceMs: number;
  /** After the process exits, how long to wait for the channel to drain. */
  readonly drainMs: number;
}

export interface RunListener {
  onStdout?(text: string): void;
  onStderr?(text: string): void;
  onRecord?(record: ProfileRecord): void;
}

/** How the process ended (what the outcome is classified from), and how long it ran. */
export interface RunResult extends ProcessEnding {
  readonly durationMs: number;
}

/** Record types kept in the result (progress records only stream to the listener). */
const KEPT = new Set<ProfileRecord['type']>(['hello', 'error', 'notice', 'oom', 'dumped', 'dump-failed', 'end']);

/** A channel address that is unique to this run and short enough for a Unix socket path. */
export function channelAddress(runId: string, platform: NodeJS.Platform = process.platform, tmp = os.tmpdir()): string {
  const name = `vram-lens-${runId}`;
  return platform === 'win32' ? `\\\\.\\pipe\\${name}` : path.join(tmp, `${name}.sock`);
}

export class ProfileRun {
  /** Resolves when the process has exited and its channel has drained. */
  readonly done: Promise<RunResult>;
  private child: ChildLike | undefined;
  private cancelRequested = false;
  private killed = false;
  private exited = false;
  private killTimer: NodeJS.Timeout | undefined;
  private termTimer: NodeJS.Timeout | undefined;
  /** torchrun's workers and their children, seen while torchrun ran (they outlive it when it dies first). */
  private readonly family = new Set<number>();
  private readonly dumping = new Set<string>();

  constructor(
    private readonly command: ProfileCommand,
    private readonly channel: string,
    private readonly cancelFile: string,
    private readonly timeouts: RunTimeouts,
    private readonly listener: RunListener,
    private readonly host: RunnerHost = nodeRunnerHost,
  ) {
    this.done = this.start();
  }

  /** Asks the program to stop (it writes its snapshot first); kills it if it has not stopped in time. */
  cancel(): void {
    if (this.exited || this.cancelRequested) return;
    this.cancelRequested = true;
    try {
      this.host.touch(this.cancelFile);
    } catch {
      // the signal below still reaches a single process
    }
    const pid = this.child?.pid;
    if (pid !== undefined && this.host.platform !== 'win32') {
      this.trySignal(pid, 'SIGINT', false);
      if (this.command.distributed) {
        this.noteFamily(pid);
        this.termTimer = setTimeout(() => {
          if (this.exited) return;
          this.noteFamily(pid);
          this.trySignal(pid, 'SIGTERM', false);
        }, this.timeouts.graceMs / 2);
      }
    }
    this.killTimer = setTimeout(() => this.graceOver(false), this.timeouts.graceMs);
  }

  private noteFamily(pid: number): void {
    try {
      for (const d of this.host.descendants(pid)) this.family.add(d);
    } catch {
      // the process table could not be read: the group kill still reaches workers that share the group
    }
  }

  private graceOver(extended: boolean): void {
    if (this.exited) return;
    if (!extended && this.dumping.size > 0) {
      this.killTimer = setTimeout(() => this.graceOver(true), this.timeouts.dumpGraceMs);
      return;
    }
    const pid = this.child?.pid;
    if (pid === undefined) return;
    this.killed = true;
    if (this.command.distributed && this.host.platform !== 'win32') this.noteFamily(pid);
    this.trySignal(pid, 'SIGKILL', true);
    for (const worker of this.family) {
      // a worker leads its own session (and group) since PyTorch 2.2; before that it is in torchrun's group
      if (!this.trySignal(worker, 'SIGKILL', true)) this.trySignal(worker, 'SIGKILL', false);
    }
  }

  private trySignal(pid: number, signal: StopSignal, group: boolean): boolean {
    try {
      this.host.signal(pid, signal, group);
      return true;
    } catch {
      return false; // already gone
    }
  }

  private async start(): Promise<RunResult> {
    const started = Date.now();
    const records: ProfileRecord[] = [];
    let openConnections = 0;
    let drained: () => void = () => undefined;
    const take = (record: ProfileRecord): void => {
      const key = String(record.rank ?? record.pid ?? 0);
      if (record.type === 'dumping') this.dumping.add(key);
      if (record.type === 'dumped' || record.type === 'dump-failed') this.dumping.delete(key);
      if (KEPT.has(record.type)) records.push(record);
      this.listener.onRecord?.(record);
    };
    const server = await this.host.listen(this.channel, () => {
      openConnections++;
      const splitter = new LineSplitter();
      return {
        onData: (bytes) => {
          for (const line of splitter.push(bytes)) {
            const record = parseRecord(line);
            if (record) take(record);
          }
        },
        onEnd: () => {
          openConnections--;
          if (openConnections === 0) drained();
        },
      };
    });
    const { command, args, cwd, env } = this.command;
    const ending = await new Promise<Pick<RunResult, 'exitCode' | 'signal' | 'spawnError'>>((resolve) => {
      let child: ChildLike;
      try {
        child = this.host.spawn(command, args, { cwd, env: { ...env }, detached: this.host.platform !== 'win32' });
      } catch (e) {
        resolve({ exitCode: null, signal: null, spawnError: spawnErrorOf(e, command) });
        return;
      }
      this.child = child;
      const decode = (sink: ((text: string) => void) | undefined) => {
        const decoder = new TextDecoder();
        return (chunk: Uint8Array) => sink?.(decoder.decode(chunk, { stream: true }));
      };
      child.stdout?.on('data', decode(this.listener.onStdout?.bind(this.listener)));
      child.stderr?.on('data', decode(this.listener.onStderr?.bind(this.listener)));
      child.on('error', (e: unknown) => {
        if (child.pid === undefined) resolve({ exitCode: null, signal: null, spawnError: spawnErrorOf(e, command) });
      });
      child.on('close', (code: number | null, signal: string | null) => resolve({ exitCode: code, signal }));
    });
    this.exited = true;
    if (this.killTimer) clearTimeout(this.killTimer);
    if (this.termTimer) clearTimeout(this.termTimer);
    if (openConnections > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.timeouts.drainMs);
        drained = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    server.close();
    return {
      ...ending,
      records,
      cancelRequested: this.cancelRequested,
      killed: this.killed,
      durationMs: Date.now() - started,
    };
  }
}

function spawnErrorOf(e: unknown, command: string): RunResult['spawnError'] {
  const err = e as NodeJS.ErrnoException;
  return { code: err?.code, message: err?.message ?? String(e), command };
}

/** The real processes, sockets and files. */
export const nodeRunnerHost: RunnerHost = {
  platform: process.platform,
  spawn(command, args, options) {
    return childProcess.spawn(command, [...args], {
      cwd: options.cwd,
      env: options.env,
      detached: options.detached,
      shell: false,
      stdio: ['ignore', 'pipe', 'pipe'],
      windowsHide: true,
    });
  },
  signal(pid, signal, wholeGroup) {
    if (process.platform === 'win32') {
      if (wholeGroup) {
        childProcess.spawn('taskkill', ['/pid', String(pid), '/T', '/F'], { shell: false, windowsHide: true, stdio: 'ignore' });
      } else {
        process.kill(pid, signal);
      }
      return;
    }
    process.kill(wholeGroup ? -pid : pid, signal);
  },
  listen(address, onConnection) {
    return new Promise((resolve, reject) => {
      const server = net.createServer((socket) => {
        const connection = onConnection();
        let ended = false;
        const end = () => {
          if (ended) return;
          ended = true;
          connection.onEnd();
        };
        socket.on('data', (b) => connection.onData(b));
        socket.on('end', end);
        socket.on('close', end);
        socket.on('error', end);
      });
      server.once('error', reject);
      server.listen(address, () => {
        server.off('error', reject);
        resolve({ close: () => server.close() });
      });
    });
  },
  touch(file) {
    writeFileSync(file, 'cancel\n');
  },
  descendants(pid) {
    return descendantsOf(pid, processTable());
  },
};

/** Every process's parent: from /proc on Linux, else from `ps` (an argv, no shell). */
function processTable(): Map<number, number> {
  const parents = new Map<number, number>();
  if (process.platform === 'linux') {
    for (const name of readdirSync('/proc')) {
      if (!/^\d+$/.test(name)) continue;
      try {
        const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
        // pid (comm) state ppid ...: comm may hold spaces and parentheses, so read after the last ')'
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        parents.set(Number(name), ppid);
      } catch {
        // exited meanwhile
      }
    }
    return parents;
  }
  if (process.platform === 'win32') return parents;
  const out = childProcess.execFileSync('ps', ['-A', '-o', 'pid=,ppid='], { encoding: 'utf8', windowsHide: true });
  for (const line of out.split('\n')) {
    const [pid, ppid] = line.trim().split(/\s+/).map(Number);
    if (Number.isInteger(pid) && Number.isInteger(ppid)) parents.set(pid, ppid);
  }
  return parents;
}

/** The processes below `root` in a table of (pid -> parent pid), nearest first. */
export function descendantsOf(root: number, parents: ReadonlyMap<number, number>): number[] {
  const children = new Map<number, number[]>();
  for (const [pid, ppid] of parents) {
    if (pid === ppid) continue;
    const list = children.get(ppid) ?? [];
    list.push(pid);
    children.set(ppid, list);
  }
  const found: number[] = [];
  const queue = [root];
  const seen = new Set<number>([root]);
  while (queue.length > 0) {
    for (const child of children.get(queue.shift()!) ?? []) {
      if (seen.has(child)) continue;
      seen.add(child);
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}
