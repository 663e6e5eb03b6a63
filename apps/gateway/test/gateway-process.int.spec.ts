/**
 * The gateway as a process (`node main.js`): configuration errors, the ready line, SIGHUP reload
 * and SIGTERM shutdown. Real Redis (the run's private one), real sockets.
 */
import { uniqueKeyPrefix } from '@ahp/embedded-redis/testing';
import type {} from '@ahp/embedded-redis/vitest-global-setup';
import { CLOSE_CODES } from '@ahp/protocol';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { connectAgent, connectReady } from './support/agent-client.js';
import { buildGateway, removeBuild, spawnGateway, type GatewayProcess } from './support/built-gateway.js';
import { TokensFile, defaultAgents } from './support/test-gateway.js';

let buildDir: string;
let tokens: TokensFile;
const agents = defaultAgents();
const processes: GatewayProcess[] = [];

beforeAll(async () => {
  buildDir = await buildGateway();
  tokens = await TokensFile.create(agents);
});

afterAll(async () => {
  for (const gateway of processes) if (gateway.child.exitCode === null) gateway.child.kill('SIGKILL');
  await tokens?.remove();
  if (buildDir !== undefined) await removeBuild(buildDir);
});

function env(extra: Record<string, string> = {}): Record<string, string> {
  return {
    REDIS_URL: inject('redisUrl'),
    PORT: '0',
    HOST: '127.0.0.1',
    AHP_KEY_PREFIX: uniqueKeyPrefix('gateway-process'),
    AHP_AGENT_TOKENS_FILE: tokens.path,
    AHP_LOG_LEVEL: 'info',
    ...extra,
  };
}

function start(environment: Record<string, string>): GatewayProcess {
  const gateway = spawnGateway(buildDir, environment);
  processes.push(gateway);
  return gateway;
}

describe('gateway process', () => {
  it('exits 1 naming the variable when the configuration is invalid', async () => {
    const { REDIS_URL: _unused, ...withoutRedis } = env({ PORT: 'eighty' });
    const gateway = start(withoutRedis);
    expect((await gateway.exited).code).toBe(1);
    expect(gateway.stdoutLines).toEqual([]);
    const message = gateway.stderrLines.join('\n');
    expect(message).toMatch(/REDIS_URL: is required/);
    expect(message).toMatch(/PORT: must be a whole number/);
  });

  it('exits 1 when the tokens file is unusable', async () => {
    const gateway = start(env({ AHP_AGENT_TOKENS_FILE: `${tokens.path}.missing` }));
    expect((await gateway.exited).code).toBe(1);
    expect(gateway.stderrLines.join('\n')).toMatch(/AHP_AGENT_TOKENS_FILE/);
  });

  it('prints one ready line, reloads tokens on SIGHUP, drains on SIGTERM and exits 0', async () => {
    const gateway = start(env({ AHP_GATEWAY_ID: 'gw-process-spec' }));
    const ready = await gateway.ready;
    expect(ready).toEqual({ event: 'ready', service: 'gateway', gateway_id: 'gw-process-spec', port: expect.any(Number), pid: gateway.child.pid });
    const url = `ws://127.0.0.1:${ready['port'] as number}/v1/agents`;

    const { client, welcome } = await connectReady(url, agents[0]!.token);
    expect(welcome.gateway_id).toBe('gw-process-spec');

    const late = { id: 'late', name: 'Late', token: 'late-token-0123456789abcdef' };
    await tokens.write([...agents, late]);
    gateway.child.kill('SIGHUP');
    // The reload has no reply channel; the new token starting to work is the observable effect.
    await vi.waitFor(
      async () => {
        const probe = await connectAgent(url, { token: late.token });
        await probe.close();
      },
      { timeout: 10_000, interval: 50 },
    );

    gateway.child.kill('SIGTERM');
    expect((await client.next((frame) => frame.type === 'goaway')).type).toBe('goaway');
    expect((await client.closed).code).toBe(CLOSE_CODES.GOING_AWAY);
    expect(await gateway.exited).toEqual({ code: 0, signal: null });
    expect(gateway.stdoutLines).toHaveLength(1);
    for (const line of gateway.stderrLines) expect(() => JSON.parse(line)).not.toThrow();
    expect(gateway.stderrLines.join('\n')).not.toContain(agents[0]!.token);
  });
});
