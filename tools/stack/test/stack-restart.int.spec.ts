/**
 * Restarts in a real stack (a throwaway Redis, one gateway and two oracle workers as processes):
 * with `restart` on (what the main command does), SIGKILLed workers and a SIGKILLed gateway come
 * back and the stack keeps deciding hooks by its oracles, the gateway on the port it had; with
 * `restart` off (what the system tests, the benchmark and the chaos tool use), a killed process
 * stays dead.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { provideRedis, type RedisHandle } from '@ahp/embedded-redis';
import { connect } from '@ahp/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintCredentials, writeTokensFile, type AgentCredential } from '../src/agent-tokens.js';
import { agentEndpoint, startStack, type Stack } from '../src/start-stack.js';
import type { SupervisorEvent } from '../src/supervisor.js';

let redisHandle: RedisHandle;
let dir: string;
let tokensFile: string;
let alice: AgentCredential;

beforeAll(async () => {
  redisHandle = await provideRedis({ mode: 'ephemeral' });
  dir = await mkdtemp(join(tmpdir(), 'ahp-stack-restart-'));
  tokensFile = join(dir, 'agent-tokens.json');
  [alice] = mintCredentials([{ id: 'alice', name: 'Alice', team: 't', role: 'lead' }]) as [AgentCredential];
  await writeTokensFile(tokensFile, [alice]);
}, 60_000);

afterAll(async () => {
  await redisHandle?.stop();
  await rm(dir, { recursive: true, force: true });
});

/** One hook through the SDK; resolves with who decided it. */
async function decideOneHook(stack: Stack): Promise<string> {
  const client = await connect({ url: agentEndpoint(stack.gateways[0]!), token: alice.token, client: { name: 'restart-test', version: '1' } });
  try {
    const result = await client.hook('pre-tool-use', { tool: { name: 'bash', input: { command: 'ls' } } });
    return result.decidedBy;
  } finally {
    await client.close();
  }
}

describe('startStack with restart on', () => {
  let stack: Stack;
  const events: SupervisorEvent[] = [];

  beforeAll(async () => {
    stack = await startStack({
      redisUrl: redisHandle.url,
      tokensFile,
      keyPrefix: 'restart-on',
      gateways: 1,
      workers: 2,
      logDir: dir,
      restart: { policy: { initialDelayMs: 100 }, onEvent: (event) => events.push(event) },
    });
  }, 60_000);
  afterAll(async () => {
    await stack?.stop();
  });

  it('brings SIGKILLed workers back and keeps deciding hooks by the oracles', async () => {
    expect(await decideOneHook(stack)).toBe('oracles');
    const before = stack.workers.map((worker) => worker.pid);
    for (const worker of [...stack.workers]) worker.kill('SIGKILL');
    await expect.poll(() => events.filter((e) => e.kind === 'restarted').map((e) => e.name).sort(), { timeout: 30_000 }).toEqual(['worker-1', 'worker-2']);
    expect(events.filter((e) => e.kind === 'crashed')).toEqual([
      expect.objectContaining({ cause: 'killed by SIGKILL', crashesInWindow: 1 }),
      expect.objectContaining({ cause: 'killed by SIGKILL', crashesInWindow: 1 }),
    ]);
    const after = stack.workers.map((worker) => worker.pid);
    expect(after).toHaveLength(2);
    for (const pid of after) expect(before).not.toContain(pid);
    // Both workers were killed: only the restarted ones can have decided this.
    expect(await decideOneHook(stack)).toBe('oracles');
  }, 60_000);

  it('brings a SIGKILLed gateway back on the port it had', async () => {
    const gateway = stack.gateways[0]!;
    const port = gateway.ready['port'];
    gateway.kill('SIGKILL');
    await expect.poll(() => stack.gateways[0]!.pid !== gateway.pid, { timeout: 30_000 }).toBe(true);
    expect(stack.gateways[0]!.ready['port']).toBe(port);
    expect(await decideOneHook(stack)).toBe('oracles');
  }, 60_000);
});

describe('startStack with restart off (the system tests, bench and chaos)', () => {
  it('leaves a killed worker dead', async () => {
    const stack = await startStack({ redisUrl: redisHandle.url, tokensFile, keyPrefix: 'restart-off', gateways: 1, workers: 1, logDir: dir });
    try {
      const [worker] = stack.workers;
      worker!.kill('SIGKILL');
      await worker!.exited;
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(stack.workers).toEqual([worker]);
    } finally {
      await stack.stop();
    }
  }, 60_000);
});
