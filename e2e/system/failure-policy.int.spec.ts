// Starts: a private Redis and one gateway process, and NO worker: no decision can come from
// oracles, so every hook is decided by its trigger's failure policy at the deadline.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type AhpClient } from '@ahp/sdk';
import { startSystem, type System } from './harness.js';

describe('failure policy at the hook deadline (gateway process, no worker)', () => {
  let system: System;
  let agent: AhpClient;

  beforeAll(async () => {
    system = await startSystem({
      name: 'failure-policy',
      gateways: 1,
      workers: 0,
      agents: [{ id: 'solo', name: 'Solo' }],
      gatewayEnv: {
        AHP_HOOK_DEADLINE_MS: '400',
        // Overrides the default (fail open) for one lifecycle trigger.
        AHP_FAILURE_POLICIES: JSON.stringify({ 'session-start': 'fail_closed' }),
      },
    });
    agent = await connect({ url: system.stack.gatewayUrls(), token: system.token('solo') });
  });

  afterAll(async () => {
    agent?.close();
    await system?.stop();
  });

  it('fails closed for pre-* triggers: deny with E_TIMEOUT, marked as the policy decision', async () => {
    const result = await agent.hook('pre-tool-use', { tool: { name: 'bash', input: { command: 'ls' } } });
    expect(result).toMatchObject({ allowed: false, decidedBy: 'failure_policy', error: { code: 'E_TIMEOUT' }, signals: [] });
    if (!result.allowed) expect(result.block.source).toBe('failure_policy');
  });

  it('fails open for post-* triggers', async () => {
    const result = await agent.hook('post-tool-use', { tool: { name: 'bash', input: { command: 'ls' } } });
    expect(result).toMatchObject({ allowed: true, intensity: null, decidedBy: 'failure_policy', error: { code: 'E_TIMEOUT' } });
  });

  it('honours a configured policy over the default', async () => {
    const result = await agent.hook('session-start', {});
    expect(result).toMatchObject({ allowed: false, decidedBy: 'failure_policy', error: { code: 'E_TIMEOUT' } });
  });

  it('keeps the policy decision as the hook decision: a re-sent hook gets the same answer', async () => {
    const first = await agent.hook('pre-issue-close', {});
    const again = await agent.hook('pre-issue-close', {}, { hookId: first.hookId });
    expect(again.decision).toEqual(first.decision);
  });
});
