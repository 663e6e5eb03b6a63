/**
 * One supervised child process of the stack: a gateway, a worker, or any Node service that
 * follows the stack's start-up contract — print one JSON line `{"event":"ready",…}` on stdout
 * when it is ready to serve, log JSON lines, and exit cleanly on SIGTERM.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import { createInterface } from 'node:readline';

/** What a service said when it became ready: at least `event: "ready"`, plus its own fields (port, ids…). */
export type ReadyLine = { event: 'ready' } & Record<string, unknown>;

export interface ServiceExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface SpawnServiceOptions {
  /** A short name for messages and log prefixes, e.g. `gateway-1`. */
  name: string;
  /** The JavaScript entry file to run with the current Node binary. */
  entry: string;
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** Extra arguments for Node itself (e.g. `--cpu-prof`). */
  nodeArgs?: string[];
  /** Arguments for the entry script (e.g. `['start', '--port', '3000']`). */
  args?: string[];
  /**
   * Recognises the ready line, for services that cannot print the JSON one (e.g. `next start`).
   * Called with every stdout line until it returns a value.
   * @defaultValue {@link parseReadyLine}
   */
  readyLine?: (line: string) => ReadyLine | undefined;
  /**
   * How long to wait for the ready line.
   * @defaultValue 45000 (a gateway starts in about a second on an idle machine, but took over 20 s
   * beside a whole test run on two busy cores: a slow start is not a failed one)
   */
  readyTimeoutMs?: number;
  /** Append the service's stdout and stderr to this file as well. */
  logFile?: string;
  /** Called with every output line (stdout and stderr), e.g. to forward logs. */
  onLine?: (line: string, stream: 'stdout' | 'stderr') => void;
  /**
   * How many recent output lines to keep for error messages.
   * @defaultValue 200
   */
  keepLines?: number;
}

/** A started service. */
export interface ServiceProcess {
  readonly name: string;
  readonly pid: number;
  readonly ready: ReadyLine;
  /** Resolves when the process has exited, for whatever reason. */
  readonly exited: Promise<ServiceExit>;
  /** The most recent output lines (bounded). */
  recentLines(): string[];
  /** Sends a signal (SIGKILL, SIGSTOP, SIGCONT…) without waiting. */
  kill(signal: NodeJS.Signals): void;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. Idempotent. */
  stop(graceMs?: number): Promise<ServiceExit>;
}

/** The service exited, or did not print its ready line in time. Carries its last output lines. */
export class ServiceStartError extends Error {
  constructor(
    readonly serviceName: string,
    reason: string,
    readonly lastLines: string[],
  ) {
    super(`${serviceName} did not start: ${reason}${lastLines.length ? `\n--- last output ---\n${lastLines.join('\n')}` : ''}`);
    this.name = 'ServiceStartError';
  }
}

/** Starts `entry` with Node and resolves once it printed its ready line. */
export async function spawnService(options: SpawnServiceOptions): Promise<ServiceProcess> {
  const keep = options.keepLines ?? 200;
  const lines: string[] = [];
  const logStream: WriteStream | undefined = options.logFile ? createWriteStream(options.logFile, { flags: 'a' }) : undefined;
  const child: ChildProcess = spawn(process.execPath, [...(options.nodeArgs ?? []), options.entry, ...(options.args ?? [])], {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<ServiceExit>((resolve) => {
    child.once('exit', (code, signal) => {
      logStream?.end();
      resolve({ code, signal });
    });
  });

  let onReady: ((line: ReadyLine) => void) | undefined;
  const remember = (line: string, stream: 'stdout' | 'stderr') => {
    lines.push(line);
    if (lines.length > keep) lines.shift();
    logStream?.write(`${line}\n`);
    options.onLine?.(line, stream);
    if (stream === 'stdout' && onReady) {
      const ready = (options.readyLine ?? parseReadyLine)(line);
      if (ready) onReady(ready);
    }
  };
  if (child.stdout) createInterface({ input: child.stdout }).on('line', (line) => remember(line, 'stdout'));
  if (child.stderr) createInterface({ input: child.stderr }).on('line', (line) => remember(line, 'stderr'));

  const timeoutMs = options.readyTimeoutMs ?? 45_000;
  const ready = await new Promise<ReadyLine>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new ServiceStartError(options.name, `no ready line within ${timeoutMs} ms`, [...lines]));
    }, timeoutMs);
    onReady = (line) => {
      clearTimeout(timer);
      onReady = undefined;
      resolve(line);
    };
    void exited.then(({ code, signal }) => {
      if (!onReady) return;
      clearTimeout(timer);
      reject(new ServiceStartError(options.name, `exited with ${signal ?? `code ${code}`}`, [...lines]));
    });
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(new ServiceStartError(options.name, error.message, [...lines]));
    });
  });

  let stopping: Promise<ServiceExit> | undefined;
  return {
    name: options.name,
    // A child that printed its ready line was spawned, so it has a pid.
    pid: child.pid ?? -1,
    ready,
    exited,
    recentLines: () => [...lines],
    kill: (signal) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    },
    stop: (graceMs = 10_000) => {
      stopping ??= (async () => {
        if (child.exitCode !== null || child.signalCode !== null) return exited;
        child.kill('SIGCONT'); // a stopped (SIGSTOP) process cannot handle SIGTERM
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
        const exit = await exited;
        clearTimeout(timer);
        return exit;
      })();
      return stopping;
    },
  };
}

/** The ready line of the start-up contract, or undefined for any other output line. */
export function parseReadyLine(line: string): ReadyLine | undefined {
  if (!line.startsWith('{')) return undefined;
  try {
    const value: unknown = JSON.parse(line);
    if (typeof value === 'object' && value !== null && (value as { event?: unknown }).event === 'ready') {
      return value as ReadyLine;
    }
  } catch {
    // an ordinary log line that happens to start with "{"
  }
  return undefined;
}
