// Starts: a private Redis and one gateway process, and NO worker: no decision can come from
// oracles, so every hook is decided by its trigger's failure policy at the deadline — and its
// drill-down (the operator API) says so.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type AhpClient } from '@ahp/sdk';
import { PolicyHookDrillDownSchema } from '@ahp/protocol';
import { eventually, startSystem, type System } from './harness.js';
import { operatorApi, operatorCall, writeOperatorTokens, type OperatorTokens } from './team-support.js';

describe('failure policy at the hook deadline (gateway process, no worker)', () => {
  let system: System;
  let agent: AhpClient;
  let operators: OperatorTokens;

  beforeAll(async () => {
    operators = await writeOperatorTokens([{ id: 'op-viv', name: 'Viv', role: 'viewer' }]);
    system = await startSystem({
      name: 'failure-policy',
      gateways: 1,
      workers: 0,
      agents: [{ id: 'solo', name: 'Solo' }],
      gatewayEnv: {
        AHP_HOOK_DEADLINE_MS: '400',
        // Overrides the default (fail open) for one lifecycle trigger.
        AHP_FAILURE_POLICIES: JSON.stringify({ 'session-start': 'fail_closed' }),
        AHP_OPERATOR_TOKENS_FILE: operators.file,
      },
    });
    agent = await connect({ url: system.stack.gatewayUrls(), token: system.token('solo') });
  });

  afterAll(async () => {
    agent?.close();
    await system?.stop();
    await operators?.remove();
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

  it('answers the drill-down of a policy decision: the policy, E_TIMEOUT, the time waited, its delivery, and what is unknown', async () => {
    const result = await agent.hook('pre-tool-use', { tool: { name: 'bash', input: { command: 'make deploy' } } });
    expect(result).toMatchObject({ decidedBy: 'failure_policy', error: { code: 'E_TIMEOUT' } });
    const base = operatorApi(system.stack.gateways[0]!);
    // Delivery times are written in batches (every 0.5 s): wait for this hook's.
    const drill = await eventually(async () => {
      const { status, json } = await operatorCall(base, operators.token('op-viv'), 'GET', `/hooks/${result.hookId}`);
      if (status !== 200) return undefined;
      const parsed = PolicyHookDrillDownSchema.parse(json);
      return parsed.delivered_at === undefined ? undefined : parsed;
    }, 'the drill-down of the policy decision with its delivery time');
    expect(drill.policy).toMatchObject({
      hook_id: result.hookId,
      agent_id: 'solo',
      trigger: 'pre-tool-use',
      allowed: false,
      policy: 'fail_closed',
      error: { code: 'E_TIMEOUT', message: 'no decision arrived before the hook deadline' },
      context_omitted: 'not_recorded',
    });
    expect(drill.delivered_via).toBe('ws');
    expect(drill.received_at).toBeLessThanOrEqual(drill.decided_at);
    // No worker ran: the queue and worker stages are unknown, not zero; no late report.
    expect(Object.keys(drill.stages).sort()).toEqual(['delivery_ms', 'waited_ms']);
    expect(drill.late).toBeUndefined();
    expect(drill.partial).toMatchObject({ reason: 'failure_policy', unavailable: ['signals', 'answers', 'oracles', 'queue', 'context'] });
  });
});
