import { existsSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { registerCleanup } from './exit-cleanup.js';
import { ensureRedisServer } from './find-redis-server.js';
import { findFreePort, isPortFree } from './free-port.js';
import {
  isProcessAlive,
  looksLikeRedisServer,
  probeRedis,
  readLogTail,
  RedisPortInUseError,
  RedisProcess,
  RedisStartError,
  redisServerVersion,
  startRedisServer,
  type RedisExitInfo,
} from './redis-process.js';
import { redactRedisUrl, withRedisConnection } from './redis-connection.js';

/**
 * - `persistent`: the main job. Honours `REDIS_URL`; otherwise one long-lived Redis whose AOF
 *   lives in a data folder of the project, so restarting the stack keeps its state.
 * - `ephemeral`: tests. Always a private Redis on a free port in a temp folder, whatever
 *   `REDIS_URL` says, removed when stopped, so a test can never touch a Redis it did not start.
 */
export type RedisMode = 'persistent' | 'ephemeral';

/** The address only this machine can reach; embedded Redis never listens anywhere else. */
export const REDIS_HOST = '127.0.0.1';

/** Port the persistent Redis tries first: not 6379, so it never collides with a system Redis. */
export const DEFAULT_PERSISTENT_PORT = 6390;

/** Name of the pid file written in a persistent data dir. */
export const PID_FILE_NAME = 'embedded-redis.pid';

/** Name of Redis's own log file inside the data dir. */
export const LOG_FILE_NAME = 'redis.log';

/** Options of {@link provideRedis}. */
export interface ProvideRedisOptions {
  /** @defaultValue `'persistent'` */
  mode?: RedisMode;
  /**
   * Persistent mode: where the AOF, the log and the pid file live. Ignored in ephemeral mode,
   * which always uses a fresh folder from `fs.mkdtemp(os.tmpdir())`.
   * @defaultValue `<workspace root>/.data/redis` (git-ignored)
   */
  dataDir?: string;
  /**
   * Port to try first. `0` means "any free port". In persistent mode a busy port falls back to a
   * free one (reported through `log`) unless `strictPort` is set.
   * @defaultValue persistent: {@link DEFAULT_PERSISTENT_PORT}; ephemeral: a free port
   */
  port?: number;
  /**
   * Fail instead of moving to another port when `port` is busy.
   * @defaultValue `false`
   */
  strictPort?: boolean;
  /**
   * Environment read for `REDIS_URL` (persistent mode only), `REDIS_SERVER_BIN` and `PATH`.
   * @defaultValue `process.env`
   */
  env?: NodeJS.ProcessEnv;
  /**
   * The redis-server binary to run, skipping the lookup.
   * @defaultValue found by {@link ensureRedisServer}
   */
  redisServerBin?: string;
  /**
   * Install redis-server with apt-get when missing and running as root.
   * @defaultValue `true`
   */
  installIfMissing?: boolean;
  /**
   * How long Redis may take to answer PING after being spawned (loading a large AOF counts).
   * @defaultValue `10000`
   */
  readyTimeoutMs?: number;
  /**
   * How long `stop()` waits after SIGTERM before SIGKILL.
   * @defaultValue `10000`
   */
  stopTimeoutMs?: number;
  /**
   * How many ports to try when Redis fails to bind (another process took the free port first).
   * @defaultValue `5`
   */
  portAttempts?: number;
  /**
   * Extra redis-server arguments, appended after ours (Redis lets later ones win), e.g.
   * `['--maxmemory', '256mb']`. Keep `--loglevel` at `notice` or more verbose.
   * @defaultValue `[]`
   */
  extraArgs?: readonly string[];
  /**
   * Where progress lines go.
   * @defaultValue persistent: `process.stderr`; ephemeral: silent (apt-get installs are still
   *   reported on `process.stderr`)
   */
  log?: (line: string) => void;
  /**
   * Called when Redis exits without `stop()` or `restart()` asking it to, with the log's last
   * lines. The stack uses it to fail loudly instead of retrying a dead Redis forever.
   */
  onUnexpectedExit?: (exit: RedisExitInfo & { logTail: string }) => void;
  /**
   * Stop Redis when this process ends (see the module doc of exit-cleanup for the rules).
   * @defaultValue `true`
   */
  cleanupOnExit?: boolean;
}

/** Options of {@link RedisHandle.stop}. */
export interface StopRedisOptions {
  /**
   * Ephemeral mode: keep the temp folder (AOF and log) instead of removing it, so `restart()`
   * can start again on the same data or a person can inspect it. Persistent data is always kept.
   * @defaultValue `false`
   */
  keepData?: boolean;
}

/**
 * A Redis to use. `url` is what clients connect to; everything else describes where it came
 * from. For an embedded Redis, `url`, `port` and `pid` can change after `restart()` (only when
 * the old port was taken meanwhile, which is rare), so read them again after restarting.
 */
export interface RedisHandle {
  /** `redis://127.0.0.1:<port>` for an embedded Redis, otherwise the given `REDIS_URL`. */
  readonly url: string;
  /** True when this tool runs the server (started now or reused); false for `REDIS_URL`. */
  readonly embedded: boolean;
  /** True when a persistent Redis left running by an earlier owner of the data dir was adopted. */
  readonly reused?: boolean;
  readonly mode: RedisMode;
  readonly host?: string;
  readonly port?: number;
  readonly pid?: number | undefined;
  /** The folder holding the AOF (`appendonlydir/`), the log and, when persistent, the pid file. */
  readonly dataDir?: string;
  /** Redis's log file; its last lines are included in start errors. */
  readonly logFile?: string;
  /** The server's version, e.g. `7.0.15`, when known. */
  readonly version?: string | undefined;
  /**
   * Stops Redis: SIGTERM (the AOF is flushed), SIGKILL after `stopTimeoutMs`. Idempotent. A
   * no-op for `REDIS_URL`. Ephemeral instances also remove their temp folder unless `keepData`.
   */
  stop(options?: StopRedisOptions): Promise<void>;
  /**
   * Stops Redis gracefully and starts it again on the same data and, if still free, the same
   * port: for tests like "a pending approval survives a Redis restart". Also starts again after
   * `stop({ keepData: true })`.
   * @throws Error for `REDIS_URL` (not ours to restart) or after data was removed.
   */
  restart(): Promise<void>;
}

/** A persistent data dir is held by a Redis that does not answer; starting another would corrupt the AOF. */
export class RedisDataDirBusyError extends Error {
  readonly code = 'REDIS_DATA_DIR_BUSY';

  constructor(message: string) {
    super(message);
    this.name = 'RedisDataDirBusyError';
  }
}

/** Contents of the pid file. */
interface PidFile {
  pid: number;
  host: string;
  port: number;
  dataDir: string;
  version?: string;
  startedAt: string;
}

/**
 * Yields a Redis URL. Persistent mode returns `REDIS_URL` untouched when it is set (no
 * connection is made), otherwise starts or adopts the project's own Redis; ephemeral mode always
 * starts a new private one. See {@link RedisMode}. Embedded servers listen on 127.0.0.1 only.
 *
 * @throws RedisServerNotFoundError when redis-server is missing and cannot be installed.
 * @throws RedisStartError when Redis does not come up; the message ends with its log's last lines.
 * @throws RedisDataDirBusyError when a previous Redis still holds the data dir but does not answer.
 */
export async function provideRedis(options: ProvideRedisOptions = {}): Promise<RedisHandle> {
  const mode = options.mode ?? 'persistent';
  const env = options.env ?? process.env;
  const stderrLog = (line: string): void => {
    process.stderr.write(`[embedded-redis] ${line}\n`);
  };
  const log = options.log ?? (mode === 'persistent' ? stderrLog : () => undefined);

  if (mode === 'persistent') {
    const external = env['REDIS_URL'];
    if (external !== undefined && external.trim() !== '') {
      log(`using REDIS_URL=${redactRedisUrl(external)}`);
      return externalHandle(external.trim());
    }
  } else if (mode !== 'ephemeral') {
    throw new TypeError(`unknown Redis mode: ${String(mode)}`);
  }

  let dataDir: string;
  if (mode === 'persistent') {
    dataDir = path.resolve(options.dataDir ?? path.join(findWorkspaceRoot(), '.data', 'redis'));
    await mkdir(dataDir, { recursive: true });
    const reused = await adoptRunningRedis(dataDir, options, log, binaryResolver(options, env, stderrLog));
    if (reused) return reused;
  } else {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'ahp-redis-'));
  }

  try {
    const instance = new EmbeddedRedis(mode, binaryResolver(options, env, stderrLog), undefined, dataDir, options, log, false);
    await instance.start(options.port ?? (mode === 'persistent' ? DEFAULT_PERSISTENT_PORT : 0));
    return instance;
  } catch (error) {
    if (mode === 'ephemeral') await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
}

/** A memoised lookup (and, if needed, install) of the binary. */
function binaryResolver(options: ProvideRedisOptions, env: NodeJS.ProcessEnv, installLog: (line: string) => void): () => Promise<string> {
  let found: Promise<string> | undefined;
  return () => {
    if (options.redisServerBin !== undefined) return Promise.resolve(options.redisServerBin);
    found ??= ensureRedisServer({ env, install: options.installIfMissing ?? true, log: options.log ?? installLog });
    found.catch(() => {
      found = undefined;
    });
    return found;
  };
}

function externalHandle(url: string): RedisHandle {
  return {
    url,
    embedded: false,
    mode: 'persistent',
    stop: async () => undefined,
    restart: async () => {
      throw new Error('this Redis comes from REDIS_URL; it is not ours to restart');
    },
  };
}

/**
 * The workspace root: the nearest folder above this module with a package.json that declares
 * workspaces (the module sits in tools/embedded-redis/{src,dist}). Falls back to the cwd.
 */
export function findWorkspaceRoot(from = path.dirname(fileURLToPath(import.meta.url))): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest)) {
      try {
        if ((JSON.parse(readFileSync(manifest, 'utf8')) as { workspaces?: unknown }).workspaces) return dir;
      } catch {
        // Unreadable manifest: keep climbing.
      }
    }
    if (path.dirname(dir) === dir) return process.cwd();
  }
}

/** A path for messages: relative to the cwd when inside it. */
function displayPath(file: string): string {
  const relative = path.relative(process.cwd(), file);
  return relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative) ? relative : file;
}

async function readPidFile(file: string): Promise<PidFile | undefined> {
  try {
    const parsed = JSON.parse(await readFile(file, 'utf8')) as Partial<PidFile>;
    if (typeof parsed.pid === 'number' && typeof parsed.port === 'number' && typeof parsed.host === 'string') {
      return parsed as PidFile;
    }
  } catch {
    // Missing or garbage: treated as no pid file.
  }
  return undefined;
}

/** Whether the Redis on host:port is pid `pid` and works in `dataDir`. */
async function servesDataDir(record: PidFile, dataDir: string): Promise<boolean> {
  if ((await probeRedis(record.host, record.port, record.pid)) !== 'ready') return false;
  try {
    const dir = await withRedisConnection({ host: record.host, port: record.port }, async (client) => (await client.configGet('dir'))['dir']);
    return typeof dir === 'string' && (await realpath(dir)) === (await realpath(dataDir));
  } catch {
    return false;
  }
}

/**
 * Persistent mode: a Redis started earlier for this data dir may still run (its owner crashed,
 * or another process of the stack started it). Two servers on one AOF would corrupt it, so
 * adopt a live one, wait for a dying one, and remove a stale pid file.
 */
async function adoptRunningRedis(
  dataDir: string,
  options: ProvideRedisOptions,
  log: (line: string) => void,
  binary: () => Promise<string>,
): Promise<RedisHandle | undefined> {
  const pidFile = path.join(dataDir, PID_FILE_NAME);
  const record = await readPidFile(pidFile);
  if (!record) {
    await rm(pidFile, { force: true });
    return undefined;
  }
  if (isProcessAlive(record.pid) && (await servesDataDir(record, dataDir))) {
    log(`reusing redis-server (pid ${record.pid}) already running on ${record.host}:${record.port}, data in ${displayPath(dataDir)}`);
    const instance = new EmbeddedRedis('persistent', binary, record.version, dataDir, options, log, true);
    instance.adopt(new RedisProcess(record.pid, record.host, record.port, path.join(dataDir, LOG_FILE_NAME)));
    return instance;
  }
  if (isProcessAlive(record.pid) && looksLikeRedisServer(record.pid)) {
    // Probably shutting down (or stuck): give it the stop timeout to go away.
    const stopTimeoutMs = options.stopTimeoutMs ?? 10_000;
    const gone = await new RedisProcess(record.pid, record.host, record.port, '').waitForExit(stopTimeoutMs);
    if (!gone) {
      throw new RedisDataDirBusyError(
        `redis-server pid ${record.pid} (from ${pidFile}) is alive but does not answer on ${record.host}:${record.port}. ` +
          `Stop it (kill ${record.pid}) before starting another Redis on ${dataDir}.`,
      );
    }
  }
  log(`removing stale pid file ${displayPath(pidFile)} (pid ${record.pid} is gone)`);
  await rm(pidFile, { force: true });
  return undefined;
}

/** Keeps a persistent log from growing forever: one rotation at start when it passes 10 MB. */
function rotateLog(logFile: string): void {
  try {
    if (statSync(logFile).size > 10 * 1024 * 1024) renameSync(logFile, `${logFile}.1`);
  } catch {
    // No log yet.
  }
}

type State = 'running' | 'stopped-with-data' | 'stopped';

/** An embedded Redis: the handle returned for both modes when this tool runs the server. */
class EmbeddedRedis implements RedisHandle {
  readonly embedded = true;
  readonly host = REDIS_HOST;
  readonly logFile: string;
  private proc: RedisProcess | undefined;
  private state: State = 'stopped-with-data';
  private expectedExit = false;
  private unregister: (() => void) | undefined;
  private pending: Promise<void> = Promise.resolve();

  constructor(
    readonly mode: RedisMode,
    /** Resolves the redis-server binary; looked up only when a start needs it. */
    readonly binary: () => Promise<string>,
    public version: string | undefined,
    readonly dataDir: string,
    private readonly options: ProvideRedisOptions,
    private readonly log: (line: string) => void,
    readonly reused: boolean,
  ) {
    this.logFile = path.join(dataDir, LOG_FILE_NAME);
  }

  get url(): string {
    return `redis://${this.host}:${this.port}`;
  }

  get port(): number {
    if (!this.proc) throw new Error('redis is not started');
    return this.proc.port;
  }

  get pid(): number | undefined {
    return this.state === 'running' ? this.proc?.pid : undefined;
  }

  private get pidFile(): string | undefined {
    return this.mode === 'persistent' ? path.join(this.dataDir, PID_FILE_NAME) : undefined;
  }

  /** Takes over an already running process (pid-file reuse). */
  adopt(proc: RedisProcess): void {
    this.attach(proc);
  }

  /** Starts the server, trying `preferredPort` first (0 = any free port). */
  async start(preferredPort: number): Promise<void> {
    const attempts = Math.max(1, this.options.portAttempts ?? 5);
    const strict = this.options.strictPort ?? false;
    if (this.mode === 'persistent') rotateLog(this.logFile);
    let lastError: Error | undefined;
    for (let attempt = 0; attempt < attempts; attempt++) {
      let port: number;
      if (attempt > 0 || preferredPort === 0) {
        port = await findFreePort(this.host);
      } else if (await isPortFree(preferredPort, this.host)) {
        port = preferredPort;
      } else {
        if (strict) throw new RedisPortInUseError(preferredPort, '');
        port = await findFreePort(this.host);
        this.log(`port ${preferredPort} is busy; using ${this.host}:${port} instead`);
      }
      const where = this.mode === 'persistent' ? `data in ${displayPath(this.dataDir)} (AOF)` : `temp data in ${this.dataDir}`;
      const binary = await this.binary();
      const version = await redisServerVersion(binary);
      if (version) this.version = version;
      this.log(`starting redis-server${version ? ` ${version}` : ''} on ${this.host}:${port}, ${where}`);
      try {
        const proc = await startRedisServer({
          binary,
          host: this.host,
          port,
          dataDir: this.dataDir,
          logFile: this.logFile,
          // Persistent: the owner decides when Redis stops (after draining workers), so a
          // terminal's Ctrl-C must not reach Redis directly.
          detached: this.mode === 'persistent',
          readyTimeoutMs: this.options.readyTimeoutMs ?? 10_000,
          extraArgs: this.options.extraArgs ?? [],
        });
        this.attach(proc);
        if (this.pidFile) {
          const record: PidFile = { pid: proc.pid, host: this.host, port, dataDir: this.dataDir, startedAt: new Date().toISOString() };
          if (this.version) record.version = this.version;
          await writeFile(this.pidFile, `${JSON.stringify(record, null, 2)}\n`);
        }
        this.log(`redis-server ready (pid ${proc.pid}), log in ${displayPath(this.logFile)}`);
        return;
      } catch (error) {
        if (!(error instanceof RedisPortInUseError) || (strict && port === preferredPort)) throw error;
        lastError = error;
        this.log(`port ${port} was taken before redis-server could bind it; trying another`);
      }
    }
    throw new RedisStartError(`redis-server could not bind a port after ${attempts} attempts`, lastError instanceof RedisPortInUseError ? lastError.logTail : '');
  }

  stop(options: StopRedisOptions = {}): Promise<void> {
    return this.serialise(async () => {
      // Also after an unexpected exit: unregisters the exit hook and removes the pid file.
      if (this.state !== 'stopped') await this.stopProcess();
      if (this.mode === 'ephemeral' && !options.keepData && this.state !== 'stopped') {
        await rm(this.dataDir, { recursive: true, force: true });
        this.state = 'stopped';
      }
    });
  }

  restart(): Promise<void> {
    return this.serialise(async () => {
      if (this.state === 'stopped') throw new Error('this Redis was stopped and its data removed; it cannot be restarted');
      const port = this.proc?.port ?? 0;
      await this.stopProcess();
      await this.start(port);
    });
  }

  /** Runs lifecycle operations one at a time, so concurrent stop()/restart() calls cannot interleave. */
  private serialise(operation: () => Promise<void>): Promise<void> {
    const result = this.pending.then(operation);
    this.pending = result.catch(() => undefined);
    return result;
  }

  private attach(proc: RedisProcess): void {
    this.proc = proc;
    this.state = 'running';
    this.expectedExit = false;
    proc.onExit((info) => {
      if (this.expectedExit || this.proc !== proc) return;
      // Stays registered: an ephemeral temp folder must still go when the process ends.
      this.state = 'stopped-with-data';
      const report = this.options.onUnexpectedExit;
      void readLogTail(this.logFile).then((logTail) => {
        this.log(`redis-server (pid ${proc.pid}) exited unexpectedly (${info.signal ?? `exit code ${info.code}`})`);
        report?.({ ...info, logTail });
      });
    });
    if ((this.options.cleanupOnExit ?? true) && !this.unregister) {
      this.unregister = registerCleanup({
        onExit: () => {
          if (this.mode === 'ephemeral') {
            this.proc?.signal('SIGKILL');
            rmSync(this.dataDir, { recursive: true, force: true });
          } else {
            // Redis handles SIGTERM like SHUTDOWN and flushes the AOF on its own after we are gone.
            this.proc?.signal('SIGTERM');
          }
        },
        onSignal: () => this.stop(),
      });
    }
  }

  /** Stops the current process (at once if it has already exited) and forgets its exit hook and pid file. */
  private async stopProcess(): Promise<void> {
    const proc = this.proc;
    if (!proc) return;
    this.expectedExit = true;
    await proc.stop(this.options.stopTimeoutMs ?? 10_000);
    this.state = 'stopped-with-data';
    this.unregister?.();
    this.unregister = undefined;
    if (this.pidFile) await rm(this.pidFile, { force: true });
  }
}
