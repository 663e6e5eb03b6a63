import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findFreePort } from '../src/free-port.js';
import { withRedisConnection } from '../src/redis-connection.js';
import { runCli, type CliIo } from '../src/run-cli.js';

/** Output captured from runCli, with a way to wait for the URL line. */
function captureIo(env: NodeJS.ProcessEnv) {
  const controller = new AbortController();
  let stdout = '';
  let stderr = '';
  let urlSeen: (url: string) => void = () => undefined;
  const url = new Promise<string>((resolve) => (urlSeen = resolve));
  const io: CliIo = {
    stdout: {
      write: (text: string) => {
        stdout += text;
        const match = /^REDIS_URL=(\S+)$/m.exec(stdout);
        if (match) urlSeen(match[1]!);
        return true;
      },
    },
    stderr: { write: (text: string) => (stderr += text) },
    signal: controller.signal,
    env,
  };
  return { io, url, stop: () => controller.abort(), out: () => stdout, err: () => stderr };
}

async function ping(url: string): Promise<string> {
  return withRedisConnection({ url }, (client) => client.ping());
}

const NO_REDIS_URL: NodeJS.ProcessEnv = { ...process.env, REDIS_URL: '' };
const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

describe('ahp-redis CLI', () => {
  it('--ephemeral prints the URL, keeps Redis running until stopped, then stops it cleanly', async () => {
    const cli = captureIo(NO_REDIS_URL);
    const exit = runCli(['--ephemeral'], cli.io);
    const url = await cli.url;
    await expect(ping(url)).resolves.toBe('PONG');
    cli.stop();
    await expect(exit).resolves.toBe(0);
    await expect(ping(url)).rejects.toThrow();
    expect(cli.err()).toContain('stopped');
  });

  it('--persistent says what it starts and where the data lives, and keeps the AOF after stopping', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 'ahp-redis-cli-'));
    dirs.push(dataDir);
    const port = await findFreePort();
    const cli = captureIo(NO_REDIS_URL);
    const exit = runCli(['--persistent', '--data-dir', dataDir, '--port', String(port)], cli.io);
    const url = await cli.url;
    expect(url).toBe(`redis://127.0.0.1:${port}`);
    expect(cli.out()).toBe(`REDIS_URL=${url}\n`);
    expect(cli.err()).toMatch(new RegExp(`starting redis-server \\d+\\.\\d+\\.\\d+ on 127\\.0\\.0\\.1:${port}, data in .*\\(AOF\\)`));
    cli.stop();
    await expect(exit).resolves.toBe(0);
    expect(existsSync(path.join(dataDir, 'appendonlydir'))).toBe(true);
  });

  it('ends with exit code 1 and the log tail when Redis dies under it', async () => {
    const cli = captureIo(NO_REDIS_URL);
    const exit = runCli(['--ephemeral'], cli.io);
    await cli.url;
    const pid = Number(/ready \(pid (\d+)\)/.exec(cli.err())?.[1]);
    process.kill(pid, 'SIGKILL');
    await expect(exit).resolves.toBe(1);
    expect(cli.err()).toMatch(/exited unexpectedly \(SIGKILL\)[\s\S]*last lines of the redis log:/);
    const dataDir = /temp data in (\S+)/.exec(cli.err())?.[1];
    expect(dataDir).toBeDefined();
    expect(existsSync(dataDir!)).toBe(false);
  });

  it('uses REDIS_URL when set in persistent mode and returns at once', async () => {
    const cli = captureIo({ ...process.env, REDIS_URL: 'redis://example.invalid:6400' });
    await expect(runCli([], cli.io)).resolves.toBe(0);
    expect(cli.err()).toContain('using REDIS_URL=redis://example.invalid:6400');
    expect(cli.out()).toBe('REDIS_URL=redis://example.invalid:6400\n');
  });

  it('rejects a bad command line with exit code 2 and the usage', async () => {
    for (const argv of [['--persistent', '--ephemeral'], ['--port', 'abc'], ['--what'], ['--ephemeral', '--data-dir', '/tmp/x']]) {
      const cli = captureIo(NO_REDIS_URL);
      await expect(runCli(argv, cli.io)).resolves.toBe(2);
      expect(cli.err()).toContain('Usage: ahp-redis');
    }
  });

  it('prints the usage for --help', async () => {
    const cli = captureIo(NO_REDIS_URL);
    await expect(runCli(['--help'], cli.io)).resolves.toBe(0);
    expect(cli.out()).toContain('Usage: ahp-redis');
  });
});
