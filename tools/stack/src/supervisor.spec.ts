/**
 * The supervisor over real child processes (small Node scripts that follow the start-up
 * contract): a SIGKILLed process is restarted with backoff, a clean exit is not, a process that
 * crashes right after start every time is given up on, and stop() ends restarts.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnService, type ServiceProcess } from './service-process.js';
import { DEFAULT_RESTART_POLICY, Supervisor, restartDelay, type SupervisorEvent } from './supervisor.js';

let dir: string;
const script = (name: string, body: string) => writeFile(join(dir, name), body).then(() => join(dir, name));
const LIVES = `process.on('SIGTERM', () => process.exit(0));
  console.log(JSON.stringify({ event: 'ready', pid: process.pid }));
  setInterval(() => {}, 1000);`;
const DIES_AT_ONCE = `console.log(JSON.stringify({ event: 'ready' })); console.error('cannot go on'); setTimeout(() => process.exit(3), 20);`;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ahp-supervisor-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('restartDelay', () => {
  it('doubles with each crash in the window, up to the maximum', () => {
    const policy = { ...DEFAULT_RESTART_POLICY, initialDelayMs: 100, maxDelayMs: 1000 };
    expect([1, 2, 3, 4, 5, 6].map((n) => restartDelay(n, policy))).toEqual([100, 200, 400, 800, 1000, 1000]);
  });
});

describe('Supervisor (real child processes)', () => {
  it('restarts a SIGKILLed process, puts the new one in place, and leaves a clean exit alone', async () => {
    const entry = await script('lives.mjs', LIVES);
    const list: ServiceProcess[] = [await spawnService({ name: 'svc', entry })];
    const events: SupervisorEvent[] = [];
    const supervisor = new Supervisor({ initialDelayMs: 50 }, (event) => events.push(event));
    supervisor.watch({
      name: 'svc',
      service: list[0]!,
      restart: () => spawnService({ name: 'svc', entry }),
      replace: (previous, next) => list.splice(list.indexOf(previous), 1, next),
    });
    const first = list[0]!;
    first.kill('SIGKILL');
    await expect.poll(() => events.map((e) => e.kind), { timeout: 10_000 }).toEqual(['crashed', 'restarted']);
    expect(events[0]).toMatchObject({ kind: 'crashed', name: 'svc', cause: 'killed by SIGKILL', crashesInWindow: 1, restartInMs: 50 });
    const second = list[0]!;
    expect(second.pid).not.toBe(first.pid);
    expect(second.ready['pid']).toBe(second.pid);

    // Someone else stops it cleanly (SIGTERM → code 0): reported, not restarted.
    await second.stop();
    await expect.poll(() => events.map((e) => e.kind), { timeout: 5000 }).toEqual(['crashed', 'restarted', 'exited-cleanly']);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(events).toHaveLength(3);
    expect(list[0]).toBe(second);
    await supervisor.stop();
  });

  it('gives up on a process that crashes right after every start (N crashes within the window), with its last output', async () => {
    const entry = await script('dies.mjs', DIES_AT_ONCE);
    const events: SupervisorEvent[] = [];
    let starts = 1;
    const supervisor = new Supervisor({ initialDelayMs: 20, maxCrashes: 3, windowMs: 60_000 }, (event) => events.push(event));
    supervisor.watch({
      name: 'dies',
      service: await spawnService({ name: 'dies', entry }),
      restart: () => {
        starts += 1;
        return spawnService({ name: 'dies', entry });
      },
      replace: () => undefined,
    });
    await expect.poll(() => events.at(-1)?.kind, { timeout: 10_000 }).toBe('gave-up');
    expect(events.map((e) => e.kind)).toEqual(['crashed', 'restarted', 'crashed', 'restarted', 'gave-up']);
    expect(events.at(-1)).toMatchObject({ kind: 'gave-up', name: 'dies', crashes: 3, windowMs: 60_000, cause: 'exited with code 3', lastLines: expect.arrayContaining(['cannot go on']) });
    expect(events.filter((e) => e.kind === 'crashed').map((e) => (e.kind === 'crashed' ? e.restartInMs : 0))).toEqual([20, 40]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(starts).toBe(3);
    await supervisor.stop();
  });

  it('counts a restart that never becomes ready as a crash', async () => {
    const lives = await script('lives2.mjs', LIVES);
    const broken = await script('broken.mjs', `console.error('bad config'); process.exit(2);`);
    const events: SupervisorEvent[] = [];
    const supervisor = new Supervisor({ initialDelayMs: 20, maxCrashes: 2 }, (event) => events.push(event));
    const service = await spawnService({ name: 'svc', entry: lives });
    supervisor.watch({ name: 'svc', service, restart: () => spawnService({ name: 'svc', entry: broken }), replace: () => undefined });
    service.kill('SIGKILL');
    await expect.poll(() => events.at(-1)?.kind, { timeout: 10_000 }).toBe('gave-up');
    expect(events.at(-1)).toMatchObject({ kind: 'gave-up', cause: expect.stringContaining('restart failed: svc did not start: exited with code 2'), lastLines: ['bad config'] });
    await supervisor.stop();
  });

  it('restarts nothing after stop()', async () => {
    const entry = await script('lives3.mjs', LIVES);
    const events: SupervisorEvent[] = [];
    let restarts = 0;
    const supervisor = new Supervisor({ initialDelayMs: 20 }, (event) => events.push(event));
    const service = await spawnService({ name: 'svc', entry });
    supervisor.watch({ name: 'svc', service, restart: () => ((restarts += 1), spawnService({ name: 'svc', entry })), replace: () => undefined });
    await supervisor.stop();
    service.kill('SIGKILL');
    await service.exited;
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(events).toEqual([]);
    expect(restarts).toBe(0);
  });
});
