/**
 * Lifting an agent's enforcement state through the operator API, on a real gateway (in-process, the
 * run's private Redis): an agent held by a block it left unanswered, with breaker counts and rule
 * escalation counters written by the real RuleCounterStore, is read by any role, lifted by an
 * approver (the parts asked for, the values before in the answer and the audit trail) and then let
 * through on the same connection; a viewer, bad bodies, an unknown agent and an agent outside a
 * scoped token's teams are refused and change nothing.
 */
import { randomUUID } from 'node:crypto';
import { AuditListResponseSchema, EnforcementResetResponseSchema, EnforcementStateResponseSchema, OperatorErrorBodySchema, type ErrorFrame, type ServerFrame } from '@ahp/protocol';
import { createRuleCounterStore, type RuleCounterStore } from '@ahp/store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectReady, type AgentClient } from './support/agent-client.js';
import { blockSignal, waitForJob, workerDecision } from './support/decisions.js';
import { newToken, openTestStore, startTestGateway, testLogger, type TestAgentEntry, type TestGateway, type TestOperatorEntry, type TestStore } from './support/test-gateway.js';

const AGENTS: TestAgentEntry[] = [
  { id: 'alice', name: 'Alice', token: newToken(), team: 'red', role: 'teammate' },
  { id: 'bob', name: 'Bob', token: newToken(), team: 'red', role: 'teammate' },
];
const OPERATORS: TestOperatorEntry[] = [
  { id: 'op-viv', name: 'Viv', role: 'viewer', token: newToken() },
  { id: 'op-maria', name: 'Maria', role: 'approver', token: newToken() },
  { id: 'op-blue', name: 'Blue lead', role: 'approver', token: newToken(), scope: { teams: ['blue'] } },
  { id: 'op-root', name: 'Root', role: 'admin', token: newToken() },
];
const RULE = 'no-force-push';
const TTL = 60_000;

let gw: TestGateway;
let store: TestStore;
let counters: RuleCounterStore;
let alice: AgentClient;
/** The block alice left unanswered. */
let signalId: string;

function errorOf(frame: ServerFrame): ErrorFrame['error'] {
  if (frame.type !== 'error') throw new Error(`expected an error frame, got ${JSON.stringify(frame)}`);
  return frame.error;
}

async function call(operator: string, method: 'GET' | 'POST', path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  const headers: Record<string, string> = { authorization: `Bearer ${gw.operators[operator]!.token}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${gw.httpUrl}${path}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
  return { status: response.status, json: await response.json() };
}

const reset = (operator: string, agentId: string, body?: unknown) => call(operator, 'POST', `/v1/operator/agents/${agentId}/enforcement/reset`, body);
const state = async (agentId: string) => EnforcementStateResponseSchema.parse((await call('op-viv', 'GET', `/v1/operator/agents/${agentId}/enforcement`)).json).state;

beforeAll(async () => {
  gw = await startTestGateway({ name: 'operator-enforcement', agents: AGENTS, operators: OPERATORS });
  store = await openTestStore(gw.keyPrefix, testLogger());
  counters = createRuleCounterStore({ redis: store.redis, keys: store.keys });
  alice = (await connectReady(gw.wsUrl, gw.agents['alice']!.token)).client;
  // A block decided as a worker would, with no grace: alice's next hooks are refused.
  const hook = alice.hook('pre-tool-use', { context: { tool: { name: 'git', input: { force: true } } } });
  await waitForJob(store, hook.id);
  const decision = workerDecision(hook.id, 'pre-tool-use', [blockSignal(hook.id)]);
  await store.stores.hooks.decide(hook.id, decision, Date.now(), { answerGraceMs: 0 });
  expect((await hook.reply).type).toBe('decision');
  signalId = decision.signals[0]!.header.id;
  for (let i = 0; i < 3; i++) await counters.recordViolation({ agentId: 'alice', ruleKey: RULE, hookId: randomUUID(), ttlMs: TTL });
  for (let i = 0; i < 5; i++) await counters.countToolCall({ agentId: 'alice', signature: 'git push --force', hookId: randomUUID(), ttlMs: TTL });
  for (const iteration of [1, 2]) await counters.countIteration({ agentId: 'alice', iteration, ttlMs: TTL });
});

afterAll(async () => {
  await alice?.close();
  await gw?.stop();
  await store?.close();
});

describe('operator API: lifting an agent enforcement state', () => {
  it('shows any role the state; refuses a viewer, bad bodies, an unknown agent and one outside the token scope, changing nothing', async () => {
    const before = await state('alice');
    expect(before).toEqual({
      breakers: { identical_calls: { distinct: 1, highest: 5 }, iterations: 2 },
      hold: { unanswered: 1, signal_ids: [signalId] },
      escalation: { rules: 1, counters: [{ rule: RULE, violations: 3 }] },
    });

    const viewer = await reset('op-viv', 'alice', {});
    expect(viewer.status).toBe(403);
    expect(OperatorErrorBodySchema.parse(viewer.json).error.code).toBe('E_FORBIDDEN');
    for (const body of [{ parts: [] }, { parts: ['everything'] }, { parts: ['hold', 'hold'] }, { parts: 'hold' }, { all: true }]) {
      const refused = await reset('op-maria', 'alice', body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(OperatorErrorBodySchema.parse(refused.json).error.code).toBe('E_INVALID_FRAME');
    }
    expect((await reset('op-maria', 'nobody', {})).status).toBe(404);
    expect((await reset('op-blue', 'alice', {})).status).toBe(404);
    expect((await call('op-blue', 'GET', '/v1/operator/agents/alice/enforcement')).status).toBe(404);
    expect((await reset('op-maria', 'a%7Bb', {})).status).toBe(400);
    expect(await state('alice')).toEqual(before);
    expect(errorOf(await alice.hook('pre-tool-use').reply)).toMatchObject({ code: 'E_SIGNAL_UNANSWERED', details: { signal_ids: [signalId] } });
  });

  it('lifts the hold alone, then the rest; the agent is let through on the same connection; the trail records who, what and the values before', async () => {
    const hold = await reset('op-maria', 'alice', { parts: ['hold'] });
    expect(hold.status).toBe(200);
    expect(EnforcementResetResponseSchema.parse(hold.json)).toMatchObject({ agent_id: 'alice', parts: ['hold'], before: { hold: { unanswered: 1, signal_ids: [signalId] } }, changed: true });
    expect(Object.keys(EnforcementResetResponseSchema.parse(hold.json).before)).toEqual(['hold']);
    // Nothing is pushed to the agent; its next hook is simply admitted.
    await waitForJob(store, alice.hook('pre-tool-use').id);
    expect((await state('alice')).breakers?.identical_calls.highest).toBe(5);

    const rest = EnforcementResetResponseSchema.parse((await reset('op-maria', 'alice')).json);
    expect(rest).toMatchObject({
      parts: ['breakers', 'hold', 'escalation'],
      before: { breakers: { identical_calls: { distinct: 1, highest: 5 }, iterations: 2 }, hold: { unanswered: 0 }, escalation: { rules: 1, counters: [{ rule: RULE, violations: 3 }] } },
      changed: true,
    });
    expect(await counters.recordViolation({ agentId: 'alice', ruleKey: RULE, hookId: randomUUID(), ttlMs: TTL })).toBe(1);
    // Again: nothing left to lift.
    expect(EnforcementResetResponseSchema.parse((await reset('op-maria', 'bob', { parts: ['breakers'] })).json).changed).toBe(false);

    const { json } = await call('op-root', 'GET', '/v1/operator/audit?action=agent.enforcement.reset');
    const entries = AuditListResponseSchema.parse(json).entries;
    expect(entries.map((entry) => [entry.operator.id, entry.target, entry.outcome])).toEqual([
      ['op-maria', 'bob', 'unchanged'],
      ['op-maria', 'alice', 'applied'],
      ['op-maria', 'alice', 'applied'],
      ['op-maria', 'a{b', 'refused'],
      ['op-blue', 'alice', 'refused'],
      ['op-maria', 'nobody', 'refused'],
      ...Array.from({ length: 5 }, () => ['op-maria', 'alice', 'refused']),
    ]);
    expect(entries[2]?.details).toEqual({ parts: ['hold'], before: { hold: { unanswered: 1, signal_ids: [signalId] } } });
    expect(entries[1]?.details?.['before']).toMatchObject({ breakers: { identical_calls: { distinct: 1, highest: 5 }, iterations: 2 }, escalation: { rules: 1 } });
    expect(entries[1]?.operator.role).toBe('approver');
    // A refused body records the known parts it named (never anything else of it) and why.
    expect(entries.slice(-5).map((entry) => [entry.details?.['parts'], entry.details?.['error_code'], entry.details?.['status']])).toEqual([
      [undefined, 'E_INVALID_FRAME', 400],
      [undefined, 'E_INVALID_FRAME', 400],
      [['hold'], 'E_INVALID_FRAME', 400],
      [undefined, 'E_INVALID_FRAME', 400],
      [undefined, 'E_INVALID_FRAME', 400],
    ]);
  });
});
