import { spawn } from 'node:child_process';
import { accessSync, constants, existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** Directories searched after `PATH`, because `sbin` folders are often missing from a user's PATH. */
export const FALLBACK_DIRS: readonly string[] = ['/usr/bin', '/usr/sbin'];

/** How to look for the binary. Everything is injectable so the lookup order can be tested. */
export interface FindRedisServerOptions {
  /**
   * Environment to read `REDIS_SERVER_BIN` and `PATH` from.
   * @defaultValue `process.env`
   */
  env?: NodeJS.ProcessEnv;
  /**
   * Directories tried after `PATH`.
   * @defaultValue {@link FALLBACK_DIRS}
   */
  fallbackDirs?: readonly string[];
  /**
   * Whether a path is an executable file.
   * @defaultValue a check with `fs.accessSync(path, X_OK)` on a regular file
   */
  isExecutable?: (file: string) => boolean;
}

/** Options of {@link ensureRedisServer}: the lookup plus what to do when it finds nothing. */
export interface EnsureRedisServerOptions extends FindRedisServerOptions {
  /**
   * Install Debian's `redis-server` package with apt-get when the binary is missing and we are
   * root. When false, a missing binary is always an error.
   * @defaultValue `true`
   */
  install?: boolean;
  /**
   * The effective user id, to decide whether apt-get may be run.
   * @defaultValue `process.getuid?.()`
   */
  getuid?: () => number | undefined;
  /**
   * Runs a command to completion, passing each output line to `onLine`; rejects on a non-zero exit.
   * @defaultValue a `child_process.spawn` wrapper
   */
  run?: (command: string, args: readonly string[], env: NodeJS.ProcessEnv, onLine: (line: string) => void) => Promise<void>;
  /**
   * Where progress lines go (the install takes a while; people should see why).
   * @defaultValue writes to `process.stderr`
   */
  log?: (line: string) => void;
  /**
   * Whether to write a temporary `/usr/sbin/policy-rc.d` (when none exists) so the package's
   * post-install script does not start the system Redis service. We only want the binary.
   * @defaultValue `true`
   */
  blockServiceStart?: boolean;
  /**
   * Directory used as a cross-process lock so parallel processes install only once.
   * @defaultValue `<os.tmpdir()>/ahp-embedded-redis-install.lock`
   */
  installLockDir?: string;
}

/** Which kind of fix the "not found" message suggests. */
export type RedisServerNotFoundReason = 'bad-override' | 'not-root' | 'no-apt' | 'install-disabled' | 'install-failed';

/**
 * No usable `redis-server` binary. The message says exactly what to run to fix it.
 */
export class RedisServerNotFoundError extends Error {
  readonly code = 'REDIS_SERVER_NOT_FOUND';

  constructor(
    message: string,
    /** Every path that was tried, in order. */
    readonly searched: readonly string[],
    readonly reason: RedisServerNotFoundReason,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'RedisServerNotFoundError';
  }
}

const APT_INSTALL_ARGS = ['install', '-y', '--no-install-recommends', 'redis-server'] as const;
const SUDO_HINT = 'sudo apt-get update && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends redis-server';
const OTHER_WAYS =
  'or point REDIS_SERVER_BIN at a redis-server binary (Redis 7 or newer), or, for the main job only, set REDIS_URL to a Redis you run yourself';

function defaultIsExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** Every candidate path in lookup order: `PATH` entries, then the fallback directories. */
function candidates(name: string, env: NodeJS.ProcessEnv, fallbackDirs: readonly string[]): string[] {
  const dirs = (env['PATH'] ?? '').split(path.delimiter).filter((dir) => dir !== '');
  const seen = new Set<string>();
  const result: string[] = [];
  for (const dir of [...dirs, ...fallbackDirs]) {
    // Absolute, because redis-server is spawned with its data dir as the working directory.
    const file = path.resolve(dir, name);
    if (!seen.has(file)) {
      seen.add(file);
      result.push(file);
    }
  }
  return result;
}

/** Result of a lookup: the binary found, if any, and every path tried. */
export interface RedisServerLookup {
  path: string | undefined;
  searched: string[];
}

/**
 * Looks for `redis-server`: `REDIS_SERVER_BIN` first (an explicit choice, so an unusable value is
 * an error rather than silently skipped), then each `PATH` entry, then `/usr/bin` and `/usr/sbin`.
 *
 * @throws RedisServerNotFoundError when `REDIS_SERVER_BIN` is set but not executable.
 */
export function findRedisServer(options: FindRedisServerOptions = {}): RedisServerLookup {
  const env = options.env ?? process.env;
  const isExecutable = options.isExecutable ?? defaultIsExecutable;
  const override = env['REDIS_SERVER_BIN'];
  if (override !== undefined && override !== '') {
    const file = path.resolve(override);
    if (isExecutable(file)) return { path: file, searched: [file] };
    throw new RedisServerNotFoundError(
      `REDIS_SERVER_BIN=${override} is not an executable file. Fix or unset REDIS_SERVER_BIN.`,
      [override],
      'bad-override',
    );
  }
  const searched = candidates('redis-server', env, options.fallbackDirs ?? FALLBACK_DIRS);
  return { path: searched.find((file) => isExecutable(file)), searched };
}

/** The same lookup for any command name (used for apt-get). */
function findCommand(name: string, options: FindRedisServerOptions): string | undefined {
  const isExecutable = options.isExecutable ?? defaultIsExecutable;
  return candidates(name, options.env ?? process.env, options.fallbackDirs ?? FALLBACK_DIRS).find((file) => isExecutable(file));
}

function defaultRun(command: string, args: readonly string[], env: NodeJS.ProcessEnv, onLine: (line: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const forward = (stream: NodeJS.ReadableStream): void => {
      let rest = '';
      stream.setEncoding('utf8');
      stream.on('data', (text: string) => {
        const lines = (rest + text).split(/\r?\n/);
        rest = lines.pop() ?? '';
        for (const line of lines) if (line.trim() !== '') onLine(line);
      });
      stream.on('end', () => {
        if (rest.trim() !== '') onLine(rest);
      });
    };
    forward(child.stdout);
    forward(child.stderr);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code === 0) resolve();
      else reject(new Error(`${command} ${args.join(' ')} failed (${signal ?? `exit code ${code}`})`));
    });
  });
}

const POLICY_RC_D = '/usr/sbin/policy-rc.d';

/** Runs `fn` with a policy-rc.d that forbids starting services, unless one is already there. */
async function withServicesBlocked<T>(enabled: boolean, fn: () => Promise<T>): Promise<T> {
  if (!enabled || existsSync(POLICY_RC_D) || !existsSync(path.dirname(POLICY_RC_D))) return fn();
  writeFileSync(POLICY_RC_D, '#!/bin/sh\n# written by @ahp/embedded-redis during apt-get install; removed afterwards\nexit 101\n', {
    mode: 0o755,
  });
  try {
    return await fn();
  } finally {
    rmSync(POLICY_RC_D, { force: true });
  }
}

/**
 * Serialises installs across processes (parallel test runs on a fresh CI machine all find the
 * binary missing at once; apt and dpkg would fail on each other's locks). The lock is a
 * directory, which `mkdir` creates atomically; one older than `staleMs` is taken over.
 */
async function withInstallLock<T>(lockDir: string, staleMs: number, fn: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      mkdirSync(lockDir);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      try {
        if (Date.now() - statSync(lockDir).mtimeMs > staleMs) rmSync(lockDir, { recursive: true, force: true });
      } catch {
        // Removed meanwhile by its owner: just try again.
      }
      await sleep(500);
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lockDir, { recursive: true, force: true });
  }
}

/** One install per process, shared by concurrent callers. */
let installInFlight: Promise<void> | undefined;

/**
 * Finds `redis-server`, installing it first when it is missing, we are root and apt-get exists
 * (the CI case: a fresh Debian machine). Otherwise a missing binary is a
 * {@link RedisServerNotFoundError} whose message names the exact command to run.
 *
 * The package's post-install would normally start the system-wide Redis service on 6379; we
 * block that (see {@link EnsureRedisServerOptions.blockServiceStart}) because only the binary
 * is used, always as a private child process.
 *
 * @returns the absolute path of the binary.
 */
export async function ensureRedisServer(options: EnsureRedisServerOptions = {}): Promise<string> {
  const first = findRedisServer(options);
  if (first.path !== undefined) return first.path;

  const searchedText = `looked in REDIS_SERVER_BIN, PATH, ${(options.fallbackDirs ?? FALLBACK_DIRS).join(', ')}`;
  const aptGet = findCommand('apt-get', options);
  const uid = (options.getuid ?? (() => process.getuid?.()))();

  if (options.install === false) {
    throw new RedisServerNotFoundError(
      `redis-server was not found (${searchedText}). Install it: ${aptGet ? SUDO_HINT : 'use your package manager, e.g. `brew install redis`'}; ${OTHER_WAYS}.`,
      first.searched,
      'install-disabled',
    );
  }
  if (aptGet === undefined) {
    throw new RedisServerNotFoundError(
      `redis-server was not found (${searchedText}) and apt-get is not available to install it. ` +
        `Install Redis 7 or newer with your package manager (e.g. \`brew install redis\`, \`dnf install redis\`), ${OTHER_WAYS}.`,
      first.searched,
      'no-apt',
    );
  }
  if (uid !== 0) {
    throw new RedisServerNotFoundError(
      `redis-server was not found (${searchedText}). Install it once with:\n  ${SUDO_HINT}\n${OTHER_WAYS}.`,
      first.searched,
      'not-root',
    );
  }

  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const run = options.run ?? defaultRun;
  const env: NodeJS.ProcessEnv = { ...(options.env ?? process.env), DEBIAN_FRONTEND: 'noninteractive' };
  const onLine = (line: string): void => log(`  apt: ${line}`);

  const lockDir = options.installLockDir ?? path.join(os.tmpdir(), 'ahp-embedded-redis-install.lock');
  installInFlight ??= withInstallLock(lockDir, 15 * 60_000, async () => {
    // Whoever held the lock before us may have installed it already.
    if (findRedisServer(options).path !== undefined) return;
    log('installing redis-server with apt-get (one time)…');
    await withServicesBlocked(options.blockServiceStart ?? true, async () => {
      await run(aptGet, ['update'], env, onLine);
      // Some other tool may hold dpkg's lock: wait for it instead of failing.
      await run(aptGet, ['-o', 'DPkg::Lock::Timeout=300', ...APT_INSTALL_ARGS], env, onLine);
    });
  }).finally(() => {
    installInFlight = undefined;
  });

  try {
    await installInFlight;
  } catch (error) {
    // A concurrent install elsewhere may still have succeeded.
    const after = findRedisServer(options);
    if (after.path !== undefined) return after.path;
    throw new RedisServerNotFoundError(
      `installing redis-server with apt-get failed: ${error instanceof Error ? error.message : String(error)}. ` +
        `Try it by hand: ${SUDO_HINT}`,
      after.searched,
      'install-failed',
      { cause: error },
    );
  }
  const after = findRedisServer(options);
  if (after.path !== undefined) {
    log(`installed ${after.path}`);
    return after.path;
  }
  throw new RedisServerNotFoundError(
    `apt-get installed redis-server but no binary was found afterwards (${searchedText}); ${OTHER_WAYS}.`,
    after.searched,
    'install-failed',
  );
}
