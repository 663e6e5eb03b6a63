import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceStartError, parseReadyLine, spawnService } from './service-process.js';

let dir: string;
const script = (name: string, body: string) => writeFile(join(dir, name), body).then(() => join(dir, name));

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ahp-stack-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('spawnService (real child processes)', () => {
  it('resolves with the ready line, keeps output, writes the log file and stops on SIGTERM', async () => {
    const entry = await script(
      'ok.mjs',
      // The handler is installed before the ready line, as the real services do: a supervisor may
      // send SIGTERM the moment it reads "ready".
      `console.log('booting');
       process.on('SIGTERM', () => { console.log('bye'); process.exit(0); });
       console.log(JSON.stringify({ event: 'ready', port: 1234, env: process.env.GREETING }));
       setInterval(() => {}, 1000);`,
    );
    const logFile = join(dir, 'ok.log');
    const service = await spawnService({ name: 'ok', entry, env: { GREETING: 'hi' }, logFile });
    expect(service.ready).toEqual({ event: 'ready', port: 1234, env: 'hi' });
    expect(service.recentLines()[0]).toBe('booting');
    expect(await service.stop()).toEqual({ code: 0, signal: null });
    expect(service.recentLines().at(-1)).toBe('bye');
    expect(await readFile(logFile, 'utf8')).toContain('booting');
  });

  it('rejects with the last output lines when the process exits before it is ready', async () => {
    const entry = await script('crash.mjs', `console.error('bad config: REDIS_URL missing'); process.exit(3);`);
    const failure = await spawnService({ name: 'crash', entry }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ServiceStartError);
    expect((failure as ServiceStartError).message).toMatch(/crash did not start: exited with code 3/);
    expect((failure as ServiceStartError).lastLines).toEqual(['bad config: REDIS_URL missing']);
  });

  it('kills a process that never becomes ready', async () => {
    const entry = await script('silent.mjs', `setInterval(() => {}, 1000);`);
    const failure = await spawnService({ name: 'silent', entry, readyTimeoutMs: 300 }).catch((error: unknown) => error);
    expect((failure as Error).message).toMatch(/no ready line within 300 ms/);
  });

  it('escalates to SIGKILL when SIGTERM is ignored, also for a stopped (SIGSTOP) process', async () => {
    const entry = await script(
      'stubborn.mjs',
      `process.on('SIGTERM', () => {}); console.log('{"event":"ready"}'); setInterval(() => {}, 1000);`,
    );
    const service = await spawnService({ name: 'stubborn', entry });
    service.kill('SIGSTOP');
    expect(await service.stop(200)).toEqual({ code: null, signal: 'SIGKILL' });
    expect(await service.stop()).toEqual({ code: null, signal: 'SIGKILL' });
  });
});

describe('parseReadyLine', () => {
  it('recognises only a JSON object with event "ready"', () => {
    expect(parseReadyLine('{"event":"ready","port":1}')).toEqual({ event: 'ready', port: 1 });
    expect(parseReadyLine('{"event":"log"}')).toBeUndefined();
    expect(parseReadyLine('{not json')).toBeUndefined();
    expect(parseReadyLine('ready')).toBeUndefined();
  });
});
