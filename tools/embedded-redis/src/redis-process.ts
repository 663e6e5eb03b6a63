import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import type { Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { withRedisConnection } from './redis-connection.js';

/** How a Redis process ended. */
export interface RedisExitInfo {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** Redis exited before it answered PING because its port was taken. The caller retries elsewhere. */
export class RedisPortInUseError extends Error {
  readonly code = 'REDIS_PORT_IN_USE';

  constructor(
    readonly port: number,
    readonly logTail: string,
  ) {
    super(`redis-server could not bind 127.0.0.1:${port} (address in use)`);
    this.name = 'RedisPortInUseError';
  }
}

/** Redis did not become ready: it exited, or did not answer PING in time. The message carries its log tail. */
export class RedisStartError extends Error {
  readonly code = 'REDIS_START_FAILED';

  constructor(
    message: string,
    readonly logTail: string,
    readonly exit?: RedisExitInfo,
  ) {
    super(logTail === '' ? message : `${message}\n--- last lines of the redis log ---\n${logTail}`);
    this.name = 'RedisStartError';
  }
}

/** What {@link startRedisServer} needs; the caller has already chosen port and folders. */
export interface StartRedisServerOptions {
  binary: string;
  host: string;
  port: number;
  dataDir: string;
  logFile: string;
  /** Spawn in its own process group, so a terminal's Ctrl-C reaches the owner, not Redis. */
  detached: boolean;
  readyTimeoutMs: number;
  /** Appended after the built-in arguments; later arguments win in Redis. */
  extraArgs: readonly string[];
}

/**
 * The arguments every embedded Redis gets. Why each one:
 * - `--bind 127.0.0.1 --protected-mode yes`: reachable from this machine only; there is no password.
 * - `--appendonly yes --appendfsync everysec`: the AOF is what survives a restart; at most about
 *   one second of writes is lost on a crash, and a clean SHUTDOWN/SIGTERM loses nothing.
 * - `--auto-aof-rewrite-min-size 256mb`: as in docker-compose.yml. Decisions append to the AOF
 *   faster than their keys expire, and at the default 64 MB Redis rewrote it (a fork and a busy
 *   child) every 15–20 s under load (docs/deploy.md §7).
 * - `--save ""`: no RDB snapshots. The AOF already holds everything (Redis 7 rewrites it with an
 *   RDB preamble), so snapshots would only add fork pauses and a second copy of the data.
 * - `--maxmemory-policy noeviction`: BullMQ requires it; evicting a job key loses work silently.
 * - `--logfile`: a file in the data dir, so failures can be reported with the log's last lines.
 */
export function redisArguments(options: Pick<StartRedisServerOptions, 'host' | 'port' | 'dataDir' | 'logFile' | 'extraArgs'>): string[] {
  return [
    '--port', String(options.port),
    '--bind', options.host,
    '--protected-mode', 'yes',
    '--dir', options.dataDir,
    '--logfile', options.logFile,
    '--daemonize', 'no',
    '--appendonly', 'yes',
    '--appendfsync', 'everysec',
    '--auto-aof-rewrite-min-size', '256mb',
    '--save', '',
    '--maxmemory-policy', 'noeviction',
    ...options.extraArgs,
  ];
}

/** The last `lines` non-empty lines of a text file, or '' when it cannot be read. */
export async function readLogTail(file: string, lines = 20): Promise<string> {
  try {
    const text = await readFile(file, 'utf8');
    return text.split('\n').filter((line) => line.trim() !== '').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

/** Whether a process with this pid exists (signal 0 checks without sending anything). */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether the process looks like a Redis server, from its command line on Linux. Where
 * `/proc` does not exist we cannot tell and answer true, the cautious choice for callers.
 */
export function looksLikeRedisServer(pid: number): boolean {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('redis');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code !== 'ENOENT' || !isProcessAlive(pid);
  }
}

const versions = new Map<string, Promise<string | undefined>>();

/** The server's version (`7.0.15`) from `redis-server --version`, cached per binary; undefined if unknown. */
export function redisServerVersion(binary: string): Promise<string | undefined> {
  let version = versions.get(binary);
  if (!version) {
    version = promisify(execFile)(binary, ['--version'], { timeout: 10_000 }).then(
      ({ stdout }) => /v=(\d+\.\d+\.\d+)/.exec(stdout)?.[1],
      () => undefined,
    );
    versions.set(binary, version);
  }
  return version;
}

/** What a readiness probe found on the port. */
export type RedisProbe = 'ready' | 'not-ready' | 'other-process';

/**
 * Probes `host:port`: `ready` when it answers PONG, has finished loading its data (PING is
 * allowed while the AOF loads) and, when `expectedPid` is given, is that very process. A Redis
 * with another pid is `other-process`: someone else's server, which we must not use.
 */
export async function probeRedis(host: string, port: number, expectedPid?: number, timeoutMs = 1000): Promise<RedisProbe> {
  try {
    return await withRedisConnection({ host, port, connectTimeoutMs: timeoutMs, idleTimeoutMs: timeoutMs }, async (client) => {
      if ((await client.ping()) !== 'PONG') return 'not-ready';
      const info = await client.info();
      const pid = /^process_id:(\d+)\r?$/m.exec(info)?.[1];
      if (expectedPid !== undefined && pid !== String(expectedPid)) return 'other-process';
      return /^loading:0\r?$/m.test(info) ? 'ready' : 'not-ready';
    });
  } catch {
    return 'not-ready';
  }
}

/**
 * A running redis-server, either our child or (after a reuse) a process we only know by pid.
 * Stopping works the same for both: SIGTERM, which Redis treats like SHUTDOWN (the AOF is
 * flushed and fsynced), then SIGKILL if it has not exited in time.
 */
export class RedisProcess {
  private exitInfo: RedisExitInfo | undefined;
  private readonly exitListeners = new Set<(info: RedisExitInfo) => void>();
  private watchTimer: NodeJS.Timeout | undefined;

  constructor(
    readonly pid: number,
    readonly host: string,
    readonly port: number,
    readonly logFile: string,
    private readonly child?: ChildProcess,
  ) {
    if (child) {
      child.once('exit', (code, signal) => this.markExited({ code, signal }));
    } else {
      // Not our child: no exit event, so poll (unref'd, it never keeps the process alive).
      this.watchTimer = setInterval(() => {
        if (!isProcessAlive(pid)) this.markExited({ code: null, signal: null });
      }, 500);
      this.watchTimer.unref();
    }
  }

  /** Whether the process has exited. */
  get exited(): boolean {
    return this.exitInfo !== undefined;
  }

  /** Calls `listener` once when the process exits (at once if it already has). */
  onExit(listener: (info: RedisExitInfo) => void): () => void {
    if (this.exitInfo) {
      listener(this.exitInfo);
      return () => undefined;
    }
    this.exitListeners.add(listener);
    return () => this.exitListeners.delete(listener);
  }

  /** Resolves when the process has exited, or with undefined after `timeoutMs`. */
  waitForExit(timeoutMs: number): Promise<RedisExitInfo | undefined> {
    if (this.exitInfo) return Promise.resolve(this.exitInfo);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        remove();
        resolve(undefined);
      }, timeoutMs);
      const remove = this.onExit((info) => {
        clearTimeout(timer);
        resolve(info);
      });
    });
  }

  /** Sends a signal; false when the process is already gone. */
  signal(signal: NodeJS.Signals): boolean {
    if (this.exitInfo) return false;
    try {
      if (this.child) return this.child.kill(signal);
      process.kill(this.pid, signal);
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Graceful stop: SIGTERM, wait up to `timeoutMs` for the AOF to be flushed and the process to
   * exit, then SIGKILL. Safe to call when it has already exited.
   */
  async stop(timeoutMs: number): Promise<RedisExitInfo> {
    if (this.exitInfo) return this.exitInfo;
    this.signal('SIGTERM');
    const graceful = await this.waitForExit(timeoutMs);
    if (graceful) return graceful;
    this.signal('SIGKILL');
    return (await this.waitForExit(5_000)) ?? { code: null, signal: 'SIGKILL' };
  }

  private markExited(info: RedisExitInfo): void {
    if (this.exitInfo) return;
    this.exitInfo = info;
    if (this.watchTimer) clearInterval(this.watchTimer);
    for (const listener of this.exitListeners) listener(info);
    this.exitListeners.clear();
  }
}

const PORT_IN_USE = /Address already in use|Failed listening on port/i;

/**
 * Spawns redis-server and resolves once it answers PING with its data loaded.
 *
 * @throws RedisPortInUseError when it exits because the port is taken (retry with another).
 * @throws RedisStartError when it exits for another reason or is not ready in time; in the
 *   latter case the process is killed first.
 */
export async function startRedisServer(options: StartRedisServerOptions): Promise<RedisProcess> {
  const child = spawn(options.binary, redisArguments(options), {
    cwd: options.dataDir,
    detached: options.detached,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Anything printed before the log file is open (bad arguments, for instance).
  let early = '';
  const collect = (chunk: Buffer): void => {
    early = (early + chunk.toString('utf8')).slice(-4000);
  };
  for (const stream of [child.stdout, child.stderr]) {
    stream?.on('data', collect);
    (stream as Socket | null)?.unref();
  }
  child.unref();

  const spawnError = new Promise<Error>((resolve) => child.once('error', resolve));
  if (child.pid === undefined) {
    const error = await spawnError;
    throw new RedisStartError(`could not run ${options.binary}: ${error.message}`, '');
  }
  const proc = new RedisProcess(child.pid, options.host, options.port, options.logFile, child);
  const exited = new Promise<RedisExitInfo>((resolve) => proc.onExit(resolve));

  const tail = async (): Promise<string> =>
    [await readLogTail(options.logFile), early.trim()].filter((part) => part !== '').join('\n');

  const deadline = Date.now() + options.readyTimeoutMs;
  for (;;) {
    const outcome = await Promise.race([
      exited.then((info) => ({ kind: 'exit' as const, info })),
      probeRedis(options.host, options.port, proc.pid).then((probe) => ({ kind: probe })),
    ]);
    if (outcome.kind === 'ready') return proc;
    if (outcome.kind === 'other-process') {
      // Another server answered on "our" port: ours will fail to bind. Never use theirs.
      await proc.stop(2_000);
      throw new RedisPortInUseError(options.port, await tail());
    }
    if (outcome.kind === 'exit') {
      const logTail = await tail();
      if (PORT_IN_USE.test(logTail)) throw new RedisPortInUseError(options.port, logTail);
      const how = outcome.info.signal ? `signal ${outcome.info.signal}` : `exit code ${outcome.info.code}`;
      throw new RedisStartError(`redis-server exited during startup (${how})`, logTail, outcome.info);
    }
    if (Date.now() >= deadline) {
      await proc.stop(2_000);
      throw new RedisStartError(
        `redis-server did not answer PING on ${options.host}:${options.port} within ${options.readyTimeoutMs} ms (log: ${options.logFile})`,
        await tail(),
      );
    }
    await sleep(50);
  }
}
