import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ensureRedisServer, findRedisServer, RedisServerNotFoundError, type EnsureRedisServerOptions } from './find-redis-server.js';

/** A fake file system: only the listed paths are executables. */
function executables(...files: string[]): (file: string) => boolean {
  const set = new Set(files);
  return (file) => set.has(file);
}

const PATH = ['/home/dev/bin', '/usr/local/bin'].join(path.delimiter);

describe('findRedisServer lookup order', () => {
  it('prefers REDIS_SERVER_BIN over everything else', () => {
    const found = findRedisServer({
      env: { REDIS_SERVER_BIN: '/opt/redis/bin/redis-server', PATH },
      isExecutable: executables('/opt/redis/bin/redis-server', '/usr/local/bin/redis-server', '/usr/bin/redis-server'),
    });
    expect(found.path).toBe('/opt/redis/bin/redis-server');
  });

  it('treats an unusable REDIS_SERVER_BIN as an error instead of silently looking elsewhere', () => {
    const lookup = (): unknown =>
      findRedisServer({ env: { REDIS_SERVER_BIN: '/nope/redis-server', PATH }, isExecutable: executables('/usr/bin/redis-server') });
    expect(lookup).toThrow(RedisServerNotFoundError);
    expect(lookup).toThrow(/REDIS_SERVER_BIN=\/nope\/redis-server/);
  });

  it('then walks PATH in order', () => {
    const found = findRedisServer({
      env: { PATH },
      isExecutable: executables('/usr/local/bin/redis-server', '/home/dev/bin/redis-server', '/usr/bin/redis-server'),
    });
    expect(found.path).toBe('/home/dev/bin/redis-server');
  });

  it('then tries /usr/bin and /usr/sbin, which may be missing from PATH', () => {
    expect(findRedisServer({ env: { PATH }, isExecutable: executables('/usr/sbin/redis-server') }).path).toBe('/usr/sbin/redis-server');
    expect(findRedisServer({ env: {}, isExecutable: executables('/usr/bin/redis-server', '/usr/sbin/redis-server') }).path).toBe(
      '/usr/bin/redis-server',
    );
  });

  it('returns absolute paths even for relative PATH entries or REDIS_SERVER_BIN (Redis runs in its data dir)', () => {
    const local = path.resolve('bin', 'redis-server');
    expect(findRedisServer({ env: { PATH: 'bin' }, isExecutable: executables(local) }).path).toBe(local);
    expect(findRedisServer({ env: { REDIS_SERVER_BIN: 'bin/redis-server' }, isExecutable: executables(local) }).path).toBe(local);
  });

  it('reports every place it looked, without duplicates, when nothing is found', () => {
    const found = findRedisServer({ env: { PATH: ['/usr/bin', '/bin'].join(path.delimiter) }, isExecutable: executables() });
    expect(found.path).toBeUndefined();
    expect(found.searched).toEqual(['/usr/bin/redis-server', '/bin/redis-server', '/usr/sbin/redis-server']);
  });

  it('finds the real binary of this machine with the default checks', () => {
    // Not an assertion about where it is: only that a path found is an absolute executable path.
    const found = findRedisServer({ env: { PATH: process.env['PATH'] ?? '' } });
    if (found.path !== undefined) expect(path.isAbsolute(found.path)).toBe(true);
  });
});

describe('ensureRedisServer when the binary is missing', () => {
  /** Options for a machine without redis-server, recording what would have been run. */
  function missing(overrides: Partial<EnsureRedisServerOptions> & { installs?: boolean } = {}) {
    const runs: Array<{ command: string; args: readonly string[]; frontend: string | undefined }> = [];
    const logs: string[] = [];
    let installed = false;
    const options: EnsureRedisServerOptions = {
      env: { PATH: '/usr/bin' },
      isExecutable: (file) => file === '/usr/bin/apt-get' || (installed && file === '/usr/bin/redis-server'),
      getuid: () => 0,
      blockServiceStart: false,
      installLockDir: path.join(os.tmpdir(), `ahp-embedded-redis-test-lock-${process.pid}-${Math.random()}`),
      log: (line) => logs.push(line),
      run: async (command, args, env, onLine) => {
        runs.push({ command, args, frontend: env['DEBIAN_FRONTEND'] });
        onLine(`did ${args.at(-1)}`);
        if (args.includes('install') && (overrides.installs ?? true)) installed = true;
      },
      ...overrides,
    };
    return { options, runs, logs };
  }

  it('as root with apt-get: runs apt-get update, then a non-interactive install, and returns the binary', async () => {
    const { options, runs, logs } = missing();
    await expect(ensureRedisServer(options)).resolves.toBe('/usr/bin/redis-server');
    expect(runs.map((run) => [run.command, run.args[0]])).toEqual([
      ['/usr/bin/apt-get', 'update'],
      ['/usr/bin/apt-get', '-o'],
    ]);
    expect(runs[1]!.args).toEqual(expect.arrayContaining(['install', '-y', '--no-install-recommends', 'redis-server']));
    expect(runs.every((run) => run.frontend === 'noninteractive')).toBe(true);
    expect(logs[0]).toBe('installing redis-server with apt-get (one time)…');
    expect(logs).toContain('  apt: did update');
  });

  it('does not install when the binary is already there', async () => {
    const { options, runs } = missing({ isExecutable: (file) => file === '/usr/bin/redis-server' || file === '/usr/bin/apt-get' });
    await expect(ensureRedisServer(options)).resolves.toBe('/usr/bin/redis-server');
    expect(runs).toEqual([]);
  });

  it('when not root: throws without running anything, and says which sudo command to run', async () => {
    const { options, runs } = missing({ getuid: () => 1000 });
    const error = await ensureRedisServer(options).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(RedisServerNotFoundError);
    expect((error as RedisServerNotFoundError).reason).toBe('not-root');
    expect((error as Error).message).toContain('sudo apt-get update && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends redis-server');
    expect(runs).toEqual([]);
  });

  it('without apt-get: throws with other ways to get Redis', async () => {
    const { options } = missing({ isExecutable: () => false });
    await expect(ensureRedisServer(options)).rejects.toThrow(/apt-get is not available.*REDIS_SERVER_BIN/s);
  });

  it('with install disabled: throws even as root', async () => {
    const { options, runs } = missing({ install: false });
    await expect(ensureRedisServer(options)).rejects.toMatchObject({ reason: 'install-disabled' });
    expect(runs).toEqual([]);
  });

  it('when apt-get fails: throws install-failed with the command to try by hand', async () => {
    const { options } = missing({
      run: async (_command, args) => {
        if (args.includes('install')) throw new Error('apt-get install failed (exit code 100)');
      },
    });
    const error = (await ensureRedisServer(options).catch((caught: unknown) => caught)) as RedisServerNotFoundError;
    expect(error.reason).toBe('install-failed');
    expect(error.message).toMatch(/exit code 100.*Try it by hand/s);
  });

  it('when apt-get succeeds but no binary appears: throws install-failed', async () => {
    const { options } = missing({ installs: false });
    await expect(ensureRedisServer(options)).rejects.toMatchObject({ reason: 'install-failed' });
  });
});
