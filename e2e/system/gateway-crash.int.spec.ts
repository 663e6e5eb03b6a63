// Starts: a private Redis, two gateway processes and one oracle-worker process. The gateway that
// holds an agent with a hook in flight is killed with SIGKILL; the SDK reconnects to the other
// gateway, re-sends the hook with the same id, and the hook resolves there, once.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type SessionInfo } from '@ahp/sdk';
import { SLOW_ORACLE_PLUGIN, eventually, slowJobPids, startSystem, type System } from './harness.js';

describe('a gateway killed with agents connected', () => {
  let system: System;

  beforeAll(async () => {
    system = await startSystem({
      name: 'gateway-crash',
      gateways: 2,
      workers: 1,
      agents: [{ id: 'alice', name: 'Alice' }],
      gatewayEnv: { AHP_HOOK_DEADLINE_MS: '30000' },
      workerEnv: { AHP_ORACLE_PLUGINS: SLOW_ORACLE_PLUGIN, AHP_ORACLE_BUDGET_MS: '20000' },
    });
  });

  afterAll(async () => {
    await system?.stop();
  });

  it('the SDK moves to the other gateway and its in-flight hook resolves', async () => {
    const [urlA, urlB] = system.stack.gatewayUrls();
    const [gatewayA, gatewayB] = system.stack.gateways;
    const client = await connect({
      url: [urlA!, urlB!],
      token: system.token('alice'),
      reconnect: { initialDelayMs: 20, maxDelayMs: 200 },
    });
    const sessions: SessionInfo[] = [];
    client.on('session', (session) => {
      sessions.push(session);
    });
    const markers = join(system.dir, 'slow-jobs');

    const pending = client.hook('pre-issue-submit', { extra: { slow: { ms: 2000, marker_dir: markers } } }, { deadlineMs: 45_000 });
    await eventually(async () => ((await slowJobPids(markers)).length > 0 ? true : undefined), 'the worker to start the job');
    gatewayA!.kill('SIGKILL');
    await gatewayA!.exited;

    const result = await pending;
    expect(result).toMatchObject({ allowed: true, decidedBy: 'oracles' });
    expect(sessions.length).toBeGreaterThan(0);
    const presence = await eventually(async () => {
      const entry = (await system.stores.presence.list(Date.now())).find((e) => e.agent.id === 'alice');
      return entry?.gateway_id === gatewayB!.ready['gateway_id'] ? entry : undefined;
    }, 'presence on gateway B');
    expect(presence.gateway_id).toBe(gatewayB!.ready['gateway_id']);
    client.close();
  });
});
