/**
 * GET /v1/operator/hooks/:hookId for a hook that sent no signals, on a real gateway (in-process,
 * the run's private Redis) with a real agent connection: the agent's hook goes through the
 * gateway into the queue, the test decides it as a worker would (with the oracle verdicts and
 * stage times) and appends its replay-log entry, and the operator API answers with the partial
 * drill-down — decision, configuration version, verdicts, stage times, the context from the
 * replay log — marked as such; a token scoped to another team, an undecided hook and a hook
 * decided without an evaluation find nothing.
 */
import { randomUUID } from 'node:crypto';
import { HookDrillDownSchema, OperatorErrorBodySchema, type OracleVerdict } from '@ahp/protocol';
import { createReplayLog } from '@ahp/store';
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
    let answer = await get('op-viv', hookId);
    expect(answer.status).toBe(200);
    let drill = HookDrillDownSchema.parse(answer.json);
    expect(drill.partial).toMatchObject({ reason: 'no_signals', unavailable: ['signals', 'answers', 'delivery', 'context'] });
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
    answer = await get('op-viv', hookId);
    expect(answer.status).toBe(200);
    drill = HookDrillDownSchema.parse(answer.json);
    expect(drill.detail).toMatchObject({ hook_id: hookId, agent_id: 'quiet-1', trigger: 'pre-tool-use', allowed: true, decided_by: 'oracles', config_version: 3, oracles: ORACLES, signals: [] });
    expect(drill.detail.context).toEqual({ tool: { name: 'Bash', input: { command: 'ls -la', api_key: '[redacted]' } } });
    expect(JSON.stringify(drill)).not.toContain('sk-live-5e4d3c2b1a');
    expect(drill.stages.delivery_ms).toBeUndefined();
    expect(Object.keys(drill.stages).sort()).toEqual(['gateway_ms', 'queue_ms', 'worker_ms']);
    expect(drill.received_at).toBeLessThanOrEqual(drill.decided_at);
    expect(drill.partial).toMatchObject({ reason: 'no_signals', unavailable: ['signals', 'answers', 'delivery'], rules: [] });
    expect(drill.partial?.expires_at).toBeGreaterThan(Date.now());
    expect(drill.answers).toEqual({});

    // A token scoped to another team: the same 404 as a hook that does not exist.
    const scoped = await get('op-blue', hookId);
    expect(scoped.status).toBe(404);
    expect(OperatorErrorBodySchema.parse(scoped.json).error.code).toBe('E_NOT_FOUND');
  });

  it('finds nothing for a hook not decided yet, nor for one decided without an evaluation (the failure policy)', async () => {
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
});
