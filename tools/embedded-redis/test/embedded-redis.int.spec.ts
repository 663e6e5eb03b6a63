/**
 * Integration tests against real redis-server processes. Every server here is started by the
 * test itself, on a free port (never 6379, never 6390), in a temp folder.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { registeredCleanupCount } from '../src/exit-cleanup.js';
import { findFreePort } from '../src/free-port.js';
import { findRedisServer } from '../src/find-redis-server.js';
import { findWorkspaceRoot, PID_FILE_NAME, provideRedis, type ProvideRedisOptions, type RedisHandle } from '../src/provide-redis.js';
import { RedisPortInUseError, RedisStartError, startRedisServer, type RedisExitInfo } from '../src/redis-process.js';
import { withRedisConnection } from '../src/redis-connection.js';

/** Runs one command on a fresh connection. */
async function redis(url: string, ...args: string[]): Promise<unknown> {
  return withRedisConnection({ url }, (client) => client.sendCommand(args));
}

/** Whether something still accepts connections on the handle's port. */
async function accepting(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** The global setup points REDIS_URL at the run's Redis; persistent-mode tests must not see it. */
const NO_REDIS_URL: NodeJS.ProcessEnv = { ...process.env, REDIS_URL: '' };

const handles: RedisHandle[] = [];
const dirs: string[] = [];

/** Starts a Redis that is stopped after the test even when the test fails. */
async function start(options: ProvideRedisOptions): Promise<RedisHandle> {
  const handle = await provideRedis({ log: () => undefined, ...options });
  handles.push(handle);
  return handle;
}

async function tempDataDir(): Promise<string> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'ahp-redis-int-'));
  dirs.push(dir);
  return dir;
}

afterEach(async () => {
  await Promise.all(handles.splice(0).map((handle) => handle.stop()));
});
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('ephemeral mode', () => {
  it('starts a private Redis, serves PING and SET/GET, and leaves nothing behind when stopped', async () => {
    const handle = await start({ mode: 'ephemeral' });
    expect(handle.embedded).toBe(true);
    expect(handle.url).toBe(`redis://127.0.0.1:${handle.port}`);
    expect(handle.port).not.toBe(6379);
    expect(handle.dataDir!.startsWith(os.tmpdir())).toBe(true);

    await expect(redis(handle.url, 'PING')).resolves.toBe('PONG');
    await expect(redis(handle.url, 'SET', 'greeting', 'hello')).resolves.toBe('OK');
    await expect(redis(handle.url, 'GET', 'greeting')).resolves.toBe('hello');

    await handle.stop();
    expect(await accepting(handle.port!)).toBe(false);
    expect(existsSync(handle.dataDir!)).toBe(false);
    expect(handle.pid).toBeUndefined();
    await handle.stop(); // idempotent
  });

  it('is configured as documented: loopback only, AOF every second rewritten from 256 MB, no RDB, no eviction', async () => {
    const handle = await start({ mode: 'ephemeral' });
    const config = async (name: string): Promise<string | undefined> => withRedisConnection({ url: handle.url }, async (client) => (await client.configGet(name))[name]);
    expect(await config('bind')).toBe('127.0.0.1');
    expect(await config('appendonly')).toBe('yes');
    expect(await config('appendfsync')).toBe('everysec');
    expect(await config('auto-aof-rewrite-min-size')).toBe(String(256 * 1024 * 1024));
    expect(await config('save')).toBe('');
    expect(await config('maxmemory-policy')).toBe('noeviction');
    expect(await config('logfile')).toBe(handle.logFile);
    expect(existsSync(handle.logFile!)).toBe(true);
  });

  it('gives two instances running at once their own ports, processes and folders', async () => {
    const [a, b] = await Promise.all([start({ mode: 'ephemeral' }), start({ mode: 'ephemeral' })]);
    expect(a!.port).not.toBe(b!.port);
    expect(a!.pid).not.toBe(b!.pid);
    expect(a!.dataDir).not.toBe(b!.dataDir);
    await redis(a!.url, 'SET', 'k', 'a');
    await expect(redis(b!.url, 'GET', 'k')).resolves.toBeNull();
  });

  it('ignores REDIS_URL: tests never use a Redis they did not start', async () => {
    const handle = await start({ mode: 'ephemeral', env: { ...process.env, REDIS_URL: 'redis://example.invalid:6379' } });
    expect(handle.embedded).toBe(true);
    expect(handle.url).toMatch(/^redis:\/\/127\.0\.0\.1:\d+$/);
    await expect(redis(handle.url, 'PING')).resolves.toBe('PONG');
  });

  it('keeps its data across restart(), on the same URL', async () => {
    const handle = await start({ mode: 'ephemeral' });
    const { url, pid } = handle;
    await redis(url, 'SET', 'approval:1', 'pending');
    await handle.restart();
    expect(handle.url).toBe(url);
    expect(handle.pid).not.toBe(pid);
    await expect(redis(handle.url, 'GET', 'approval:1')).resolves.toBe('pending');
  });

  it('can stop keeping its data, then start again with restart()', async () => {
    const handle = await start({ mode: 'ephemeral' });
    await redis(handle.url, 'RPUSH', 'queue', 'a', 'b');
    await handle.stop({ keepData: true });
    expect(await accepting(handle.port!)).toBe(false);
    expect(existsSync(path.join(handle.dataDir!, 'appendonlydir'))).toBe(true);
    await handle.restart();
    await expect(redis(handle.url, 'LRANGE', 'queue', '0', '-1')).resolves.toEqual(['a', 'b']);
    await handle.stop();
    expect(existsSync(handle.dataDir!)).toBe(false);
    await expect(handle.restart()).rejects.toThrow(/cannot be restarted/);
  });

  it('registers for cleanup at process exit while running, and unregisters when stopped', async () => {
    const before = registeredCleanupCount();
    const handle = await start({ mode: 'ephemeral' });
    expect(registeredCleanupCount()).toBe(before + 1);
    await handle.stop();
    expect(registeredCleanupCount()).toBe(before);
  });

  it('reports an unexpected exit with the log tail, and can still be stopped afterwards', async () => {
    const registered = registeredCleanupCount();
    let reportExit: (exit: RedisExitInfo & { logTail: string }) => void = () => undefined;
    const reported = new Promise<RedisExitInfo & { logTail: string }>((resolve) => (reportExit = resolve));
    const handle = await start({ mode: 'ephemeral', onUnexpectedExit: (exit) => reportExit(exit) });
    process.kill(handle.pid!, 'SIGKILL');
    const exit = await reported;
    expect(exit.signal).toBe('SIGKILL');
    expect(exit.logTail).toContain('Ready to accept connections');
    expect(handle.pid).toBeUndefined();
    await handle.stop();
    expect(existsSync(handle.dataDir!)).toBe(false);
    expect(registeredCleanupCount()).toBe(registered);
  });

  it('reports a Redis that will not start with the last lines of its output', async () => {
    const error = await start({ mode: 'ephemeral', extraArgs: ['--no-such-directive', 'x'] }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RedisStartError);
    expect((error as Error).message).toMatch(/exited during startup[\s\S]*no-such-directive/);
  });
});

describe('startRedisServer', () => {
  it('fails with RedisPortInUseError when the port is taken, even by another Redis, without using that Redis', async () => {
    const other = await start({ mode: 'ephemeral' });
    const dataDir = await tempDataDir();
    const attempt = startRedisServer({
      binary: findRedisServer().path!,
      host: '127.0.0.1',
      port: other.port!,
      dataDir,
      logFile: path.join(dataDir, 'redis.log'),
      detached: false,
      readyTimeoutMs: 10_000,
      extraArgs: [],
    });
    await expect(attempt).rejects.toBeInstanceOf(RedisPortInUseError);
    await expect(redis(other.url, 'PING')).resolves.toBe('PONG');
  });
});

describe('persistent mode', () => {
  it('defaults its data dir to .data/redis at the workspace root', () => {
    const root = findWorkspaceRoot();
    const manifest = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { workspaces?: unknown };
    expect(manifest.workspaces).toBeDefined();
    expect(path.join(root, 'tools', 'embedded-redis')).toBe(path.resolve(import.meta.dirname, '..'));
  });

  it('keeps data across a stop and a new start on the same data dir (AOF)', async () => {
    const dataDir = await tempDataDir();
    const first = await start({ mode: 'persistent', dataDir, port: 0, env: NO_REDIS_URL });
    expect(first.embedded).toBe(true);
    expect(first.reused).toBe(false);
    expect(first.dataDir).toBe(dataDir);
    const pidFile = JSON.parse(await readFile(path.join(dataDir, PID_FILE_NAME), 'utf8')) as { pid: number; port: number };
    expect(pidFile).toMatchObject({ pid: first.pid, port: first.port });

    await redis(first.url, 'HSET', 'approval:42', 'state', 'pending');
    await first.stop();
    expect(existsSync(path.join(dataDir, PID_FILE_NAME))).toBe(false);
    expect(existsSync(path.join(dataDir, 'appendonlydir'))).toBe(true);

    const second = await start({ mode: 'persistent', dataDir, port: 0, env: NO_REDIS_URL });
    await expect(redis(second.url, 'HGET', 'approval:42', 'state')).resolves.toBe('pending');
  });

  it('honours REDIS_URL: returns it untouched, starts nothing, and stop() is a no-op', async () => {
    const lines: string[] = [];
    const url = 'redis://app:secret@example.invalid:6400/2';
    const handle = await provideRedis({ mode: 'persistent', env: { REDIS_URL: url }, log: (line) => lines.push(line) });
    expect(handle).toMatchObject({ url, embedded: false });
    expect(handle.pid).toBeUndefined();
    await expect(handle.stop()).resolves.toBeUndefined();
    await expect(handle.restart()).rejects.toThrow(/REDIS_URL/);
    expect(lines).toEqual(['using REDIS_URL=redis://app:***@example.invalid:6400/2']);
  });

  it('moves to a free port when the preferred one is busy, and says so', async () => {
    const blocker = net.createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const busy = (blocker.address() as net.AddressInfo).port;
    try {
      const lines: string[] = [];
      const handle = await start({ mode: 'persistent', dataDir: await tempDataDir(), port: busy, env: NO_REDIS_URL, log: (line) => lines.push(line) });
      expect(handle.port).not.toBe(busy);
      expect(lines.some((line) => line.includes(`port ${busy} is busy; using 127.0.0.1:${handle.port} instead`))).toBe(true);
      await expect(start({ mode: 'persistent', dataDir: await tempDataDir(), port: busy, strictPort: true, env: NO_REDIS_URL })).rejects.toBeInstanceOf(
        RedisPortInUseError,
      );
    } finally {
      await new Promise<void>((resolve) => blocker.close(() => resolve()));
    }
  });

  it('reuses the Redis still running on its data dir instead of starting a second one', async () => {
    const dataDir = await tempDataDir();
    const first = await start({ mode: 'persistent', dataDir, port: 0, env: NO_REDIS_URL });
    await redis(first.url, 'SET', 'k', 'v');
    const second = await start({ mode: 'persistent', dataDir, port: 0, env: NO_REDIS_URL });
    expect(second).toMatchObject({ embedded: true, reused: true, url: first.url, pid: first.pid });
    await expect(redis(second.url, 'GET', 'k')).resolves.toBe('v');
    // The adopter owns it now: stopping through it stops the server.
    await second.stop();
    expect(await accepting(first.port!)).toBe(false);
  });

  it('removes a stale pid file and starts normally', async () => {
    const dataDir = await tempDataDir();
    const dead = spawnSync(process.execPath, ['-e', '']).pid!;
    const port = await findFreePort();
    await writeFile(path.join(dataDir, PID_FILE_NAME), JSON.stringify({ pid: dead, host: '127.0.0.1', port, dataDir, startedAt: '' }));
    const lines: string[] = [];
    const handle = await start({ mode: 'persistent', dataDir, port: 0, env: NO_REDIS_URL, log: (line) => lines.push(line) });
    expect(handle.reused).toBe(false);
    expect(lines.some((line) => line.startsWith('removing stale pid file'))).toBe(true);
    const record = JSON.parse(await readFile(path.join(dataDir, PID_FILE_NAME), 'utf8')) as { pid: number };
    expect(record.pid).toBe(handle.pid);
  });
});
