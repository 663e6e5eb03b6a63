/**
 * GET /v1/operator/hooks/:hookId for a hook that sent no signals, on a real gateway (in-process,
 * the run's private Redis) with a real agent connection: the agent's hook goes through the
 * gateway into the queue, the test decides it as a worker would (with the oracle verdicts and
 * stage times) and appends its replay-log entry, and the operator API answers with the partial
 * drill-down — decision, configuration version, verdicts, stage times, the context from the
 * replay log, and its delivery time, which the gateway's next flush records — marked as such; a
 * hook the gateway's failure policy decided at its (short) deadline, with no worker running,
 * answers in its own shape, and with a worker's report once one arrives; a token scoped to another
 * team, an undecided hook and a hook decided without an evaluation find nothing.
 */
import { randomUUID } from 'node:crypto';
import { HookDrillDownSchema, OperatorErrorBodySchema, PolicyHookDrillDownSchema, type OracleVerdict } from '@ahp/protocol';
import { createHookDetailStore, createReplayLog } from '@ahp/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectReady, type AgentClient } from './support/agent-client.js';
import { waitForJob, workerDecision } from './support/decisions.js';
import { newToken, openTestStore, startTestGateway, testLogger, type TestAgentEntry, type TestGateway, type TestOperatorEntry, type TestStore } from './support/test-gateway.js';

const AGENTS: TestAgentEntry[] = [{ id: 'quiet-1', name: 'Quiet one', token: newToken(), team: 'red' }];
const OPERATORS: TestOperatorEntry[] = [
  { id: 'op-viv', name: 'Viv', role: 'viewer', token: newToken() },
  { id: 'op-blue', name: 'Blue viewer', role: 'viewer', token: newToken(), scope: { teams: ['blue'] } },
];
const ORACLES: OracleVerdict[] = [
  { oracle: 'rules', outcome: 'answered', duration_ms: 0.4, signals: 0 },
  { oracle: 'lint-plugin', outcome: 'threw', duration_ms: 3, signals: 0, message: 'plugin crashed', skipped: true },
];

let gw: TestGateway;
let store: TestStore;
let agent: AgentClient;

beforeAll(async () => {
  gw = await startTestGateway({ name: 'operator-hook-drill-down', agents: AGENTS, operators: OPERATORS });
  store = await openTestStore(gw.keyPrefix, testLogger());
  agent = (await connectReady(gw.wsUrl, gw.agents['quiet-1']!.token)).client;
});

afterAll(async () => {
  await agent?.close();
  await store?.close();
  await gw?.stop();
});

async function get(operator: string, hookId: string): Promise<{ status: number; json: unknown }> {
  const response = await fetch(`${gw.httpUrl}/v1/operator/hooks/${hookId}`, { headers: { authorization: `Bearer ${gw.operators[operator]!.token}` } });
  return { status: response.status, json: await response.json() };
}

/** Asks again until `check` returns a value (the gateway writes delivery times every 0.5 s). */
async function until<T>(check: () => Promise<T | undefined>, what: string): Promise<T> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const found = await check();
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`gave up waiting for ${what}`);
}

describe('operator API: the drill-down of a hook without signals', () => {
  it('answers with the partial drill-down: decision, version, verdicts, stage times, the context from the replay log', async () => {
    const hookId = randomUUID();
    const context = { tool: { name: 'Bash', input: { command: 'ls -la', api_key: 'sk-live-5e4d3c2b1a' } } };
    const reply = agent.request({ type: 'hook', id: hookId, trigger: 'pre-tool-use', context });
    const job = await waitForJob(store, hookId);
    const decision = { ...workerDecision(hookId, 'pre-tool-use'), config_version: 3 };
    const pickedAt = Date.now();
    await store.stores.hooks.decide(hookId, decision, Date.now(), {
      evaluation: { agentId: 'quiet-1', sessionId: job.session_id, enqueuedAt: job.enqueued_at, pickedAt, context: job.context, oracles: ORACLES },
    });
    expect(await reply).toMatchObject({ type: 'decision', decision: { hook_id: hookId, allowed: true } });

    // Before the worker's replay-log append: everything but the context, which says so.
    const answer = await get('op-viv', hookId);
    expect(answer.status).toBe(200);
    let drill = HookDrillDownSchema.parse(answer.json);
    expect(drill.partial).toMatchObject({ reason: 'no_signals' });
    expect(drill.partial?.unavailable).toContain('context');
    expect(drill.detail.context_omitted).toBe('not_recorded');

    await createReplayLog({ redis: store.redis, keys: store.keys }).append({
      hookId,
      trigger: 'pre-tool-use',
      agent: job.agent,
      sessionId: job.session_id,
      context: job.context,
      decision,
      configVersion: 3,
      at: Date.now(),
    });
    // The delivery over the socket is recorded by the gateway's next flush.
    drill = await until(async () => {
      const next = HookDrillDownSchema.parse((await get('op-viv', hookId)).json);
      return next.delivered_at === undefined ? undefined : next;
    }, 'the delivery time of a hook without signals');
    expect(drill.detail).toMatchObject({ hook_id: hookId, agent_id: 'quiet-1', trigger: 'pre-tool-use', allowed: true, decided_by: 'oracles', config_version: 3, oracles: ORACLES, signals: [] });
    expect(drill.detail.context).toEqual({ tool: { name: 'Bash', input: { command: 'ls -la', api_key: '[redacted]' } } });
    expect(JSON.stringify(drill)).not.toContain('sk-live-5e4d3c2b1a');
    expect(drill.delivered_via).toBe('ws');
    expect(Object.keys(drill.stages).sort()).toEqual(['delivery_ms', 'gateway_ms', 'queue_ms', 'worker_ms']);
    expect(drill.received_at).toBeLessThanOrEqual(drill.decided_at);
    expect(drill.partial).toMatchObject({ reason: 'no_signals', unavailable: ['signals', 'answers'], rules: [] });
    expect(drill.partial?.expires_at).toBeGreaterThan(Date.now());
    expect(drill.answers).toEqual({});

    // A token scoped to another team: the same 404 as a hook that does not exist.
    const scoped = await get('op-blue', hookId);
    expect(scoped.status).toBe(404);
    expect(OperatorErrorBodySchema.parse(scoped.json).error.code).toBe('E_NOT_FOUND');
  });

  it('finds nothing for a hook not decided yet, nor for one a worker decided without handing in its evaluation', async () => {
    const pending = randomUUID();
    const reply = agent.request({ type: 'hook', id: pending, trigger: 'pre-tool-use', context: { tool: { name: 'Bash', input: { command: 'pwd' } } } });
    await waitForJob(store, pending);
    expect((await get('op-viv', pending)).status).toBe(404);
    await store.stores.hooks.decide(pending, workerDecision(pending, 'pre-tool-use'), Date.now());
    await reply;
    const answer = await get('op-viv', pending);
    expect(answer.status).toBe(404);
    expect(OperatorErrorBodySchema.parse(answer.json).error.code).toBe('E_NOT_FOUND');
  });

  it("answers a hook the failure policy decided at its deadline (no worker runs) in its own shape: policy, error, what is known of the stages, then a worker's report", async () => {
    const hookId = randomUUID();
    // The client may shorten the deadline: 300 ms, and no worker takes the job.
    const reply = await agent.request({ type: 'hook', id: hookId, trigger: 'pre-tool-use', deadline_ms: 300, context: { tool: { name: 'Bash', input: { command: 'make deploy' } } } });
    expect(reply).toMatchObject({ type: 'decision', decision: { hook_id: hookId, decided_by: 'failure_policy', error: { code: 'E_TIMEOUT' } } });
    const job = await waitForJob(store, hookId);

    let drill = await until(async () => {
      const answer = await get('op-viv', hookId);
      expect(answer.status).toBe(200);
      const next = PolicyHookDrillDownSchema.parse(answer.json);
      return next.delivered_at === undefined ? undefined : next;
    }, 'the delivery time of the failure-policy decision');
    expect(drill.policy).toMatchObject({ hook_id: hookId, agent_id: 'quiet-1', trigger: 'pre-tool-use', allowed: false, policy: 'fail_closed', error: { code: 'E_TIMEOUT', message: 'no decision arrived before the hook deadline' }, context_omitted: 'not_recorded' });
    expect(drill.delivered_via).toBe('ws');
    expect(Object.keys(drill.stages).sort()).toEqual(['delivery_ms', 'waited_ms']);
    expect(drill.late).toBeUndefined();
    expect(drill.partial).toMatchObject({ reason: 'failure_policy', unavailable: ['signals', 'answers', 'oracles', 'queue', 'context'] });

    // A worker picks the job up now, past the deadline, skips it and says so.
    await createHookDetailStore({ redis: store.redis, keys: store.keys }).recordLate(hookId, { outcome: 'skipped', enqueued_at: job.enqueued_at, picked_at: Date.now() });
    drill = PolicyHookDrillDownSchema.parse((await get('op-viv', hookId)).json);
    expect(drill.late).toMatchObject({ outcome: 'skipped', enqueued_at: job.enqueued_at });
    expect(Object.keys(drill.stages).sort()).toEqual(['delivery_ms', 'gateway_ms', 'queue_ms', 'waited_ms']);
    expect(drill.partial.unavailable).toEqual(['signals', 'answers', 'oracles', 'context']);

    // A token scoped to another team: the same 404 as a hook that does not exist.
    expect((await get('op-blue', hookId)).status).toBe(404);
  });
});
