/**
 * Admission enforcement on one real gateway (in-process, port 0, the run's private Redis, a hooks
 * configuration published in it): the plan gate after a plan is rejected, expires or is withdrawn
 * (docs/spec/teams.md#plan-gate: a teammate works only on an approved plan), the team's planning tools and
 * `require_plan`, and block/control signals an agent leaves unanswered, in this session or an earlier one (docs/spec/spectrum-and-signals.md#unanswered-signals). The test
 * plays the worker (it stores decisions in Redis as a worker would) and, where needed, the lead.
 * Every refusal is checked together with its absence of effects: no job queued, no hook recorded.
 */
import { randomUUID } from 'node:crypto';
import { uniqueKeyPrefix } from '@ahp/embedded-redis/testing';
import { HooksConfigSchema, type ErrorFrame, type Plan, type ProtocolState, type RequestUpdateFrame, type ServerFrame } from '@ahp/protocol';
import { createConfigStore, createFleetStore } from '@ahp/store';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectReady, type AgentClient } from './support/agent-client.js';
import { blockSignal, controlSignal, promptSignal, waitForJob, workerDecision } from './support/decisions.js';
import { newToken, openTestStore, startTestGateway, testLogger, type TestAgentEntry, type TestGateway, type TestStore } from './support/test-gateway.js';

const AGENTS: TestAgentEntry[] = [
  { id: 'lead', name: 'Lead', token: newToken(), team: 'red', role: 'lead' },
  { id: 'alice', name: 'Alice', token: newToken(), team: 'red', role: 'teammate' },
  { id: 'bob', name: 'Bob', token: newToken(), team: 'red', role: 'teammate' },
  { id: 'carol', name: 'Carol', token: newToken(), team: 'red', role: 'teammate' },
  { id: 'gina', name: 'Gina', token: newToken(), team: 'green', role: 'teammate' },
  { id: 'green-lead', name: 'Green lead', token: newToken(), team: 'green', role: 'lead' },
  { id: 'solo', name: 'Solo', token: newToken() },
];

/** Red keeps reading tools open while planning; green requires an approved plan before any other tool. */
const CONFIG = HooksConfigSchema.parse({
  version: 1,
  hooks: {},
  teams: {
    red: { planning_tools: ['read', 'fs.read*'] },
    green: { require_plan: true, planning_tools: ['read'] },
  },
});

const PLAN: Plan = {
  title: 'Speed up the orders report',
  steps: [{ id: 's1', description: 'Add an index on orders.created_at', dependencies: [], status: 'pending', tools_expected: ['db.migrate'] }],
};

let gw: TestGateway;
let store: TestStore;
const clients: AgentClient[] = [];

beforeAll(async () => {
  const keyPrefix = uniqueKeyPrefix('enforcement');
  store = await openTestStore(keyPrefix, testLogger());
  await createConfigStore({ redis: store.redis, keys: store.keys }).publish({ source: JSON.stringify(CONFIG), config: CONFIG, publishedBy: 'int-spec', now: Date.now() });
  gw = await startTestGateway({ name: 'enforcement', keyPrefix, agents: AGENTS, env: { AHP_REQUEST_SWEEP_MS: '100' } });
});

afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()));
});

afterAll(async () => {
  await gw?.stop();
  await store?.close();
});

async function ready(agentId: string): Promise<AgentClient> {
  const { client } = await connectReady(gw.wsUrl, gw.agents[agentId]!.token);
  clients.push(client);
  return client;
}

const requestId = (): string => `req_${randomUUID()}`;

function errorOf(frame: ServerFrame): ErrorFrame['error'] {
  if (frame.type !== 'error') throw new Error(`expected an error frame, got ${JSON.stringify(frame)}`);
  return frame.error;
}

function update(client: AgentClient, id: string, status: ProtocolState['status']): Promise<RequestUpdateFrame> {
  return client.next((frame) => frame.type === 'request_update' && frame.request.request_id === id && frame.request.status === status) as Promise<RequestUpdateFrame>;
}

/** A `pre-tool-use` hook calling `tool` (the shape the rules read). */
function toolCall(client: AgentClient, tool: string, id: string = randomUUID()) {
  return client.hook('pre-tool-use', { id, context: { tool: { name: tool, input: {} } } });
}

/** Submits a plan to the lead and waits until it is pending. */
async function submitPlan(client: AgentClient, lead: AgentClient, leadId = 'lead', deadlineMs?: number): Promise<string> {
  const id = requestId();
  const pending = update(lead, id, 'pending');
  await client.request({
    type: 'request',
    id: `open-${id}`,
    request: { request_id: id, type: 'plan_approval', target: { kind: 'agent', agent: leadId }, payload: { plan: PLAN }, ...(deadlineMs === undefined ? {} : { deadline_ms: deadlineMs }) },
  });
  await pending;
  return id;
}

async function decidePlan(lead: AgentClient, id: string, approve: boolean): Promise<void> {
  const reply = await lead.request({ type: 'response', id: `answer-${randomUUID()}`, response: { request_id: id, type: 'plan_approval_response', approve } });
  expect(reply.type).toBe('ack');
}

/** The agent's row of the fleet view, as the operator API reads it. */
async function fleetRow(agentId: string) {
  const rows = await createFleetStore({ redis: store.redis, keys: store.keys }).list(Date.now(), []);
  return rows.find((row) => row.agent.id === agentId);
}

/** Nothing of the refused hook reached Redis: no job for a worker, no correlation to decide. */
async function expectNothingRecorded(hookId: string): Promise<void> {
  expect(await store.queue.queueFor(hookId).getJob(hookId)).toBeUndefined();
  expect(await store.stores.hooks.get(hookId)).toBeNull();
}

describe('plan gate', () => {
  it('keeps tool calls gated after the plan is rejected (E_PLAN_REQUIRED naming it) until a new plan is approved', async () => {
    const lead = await ready('lead');
    const alice = await ready('alice');
    const rejected = await submitPlan(alice, lead);
    await decidePlan(lead, rejected, false);
    await update(alice, rejected, 'rejected');

    const refused = toolCall(alice, 'db.migrate');
    expect(errorOf(await refused.reply)).toMatchObject({
      code: 'E_PLAN_REQUIRED',
      retryable: false,
      details: { status: 'rejected', request_id: rejected, planning_tools: ['read', 'fs.read*'] },
    });
    await expectNothingRecorded(refused.id);

    // A revised plan, pending: the gate says so; approved: the same hook id is evaluated.
    const revised = await submitPlan(alice, lead);
    expect(errorOf(await toolCall(alice, 'db.migrate', refused.id).reply)).toMatchObject({ code: 'E_PLAN_PENDING', details: { request_id: revised } });
    await decidePlan(lead, revised, true);
    await update(alice, revised, 'approved');
    const allowed = toolCall(alice, 'db.migrate', refused.id);
    expect((await waitForJob(store, allowed.id)).trigger).toBe('pre-tool-use');
  });

  it('keeps tool calls gated after the plan expires', async () => {
    const lead = await ready('lead');
    const bob = await ready('bob');
    const id = await submitPlan(bob, lead, 'lead', 300);
    await update(bob, id, 'expired');
    const refused = toolCall(bob, 'db.migrate');
    expect(errorOf(await refused.reply)).toMatchObject({ code: 'E_PLAN_REQUIRED', details: { status: 'expired', request_id: id } });
    await expectNothingRecorded(refused.id);
  });

  it('does not reopen the gate when the agent withdraws a new plan after a rejection', async () => {
    const lead = await ready('lead');
    const carol = await ready('carol');
    const rejected = await submitPlan(carol, lead);
    await decidePlan(lead, rejected, false);
    const withdrawn = await submitPlan(carol, lead);
    const cancelled = await carol.request({ type: 'cancel', id: 'cancel-1', request_id: withdrawn });
    expect(cancelled.type).toBe('ack');

    const refused = toolCall(carol, 'db.migrate');
    expect(errorOf(await refused.reply)).toMatchObject({ code: 'E_PLAN_REQUIRED', details: { status: 'rejected', request_id: rejected } });
    await expectNothingRecorded(refused.id);
  });

  it("leaves the team's planning tools open while the gate is closed, and only those", async () => {
    const lead = await ready('lead');
    const alice = await ready('alice');
    const pending = await submitPlan(alice, lead);

    for (const tool of ['read', 'fs.read_file']) {
      const open = toolCall(alice, tool);
      expect((await waitForJob(store, open.id)).context).toMatchObject({ tool: { name: tool } });
    }
    for (const tool of ['reader', 'fs.write', 'READ']) {
      const gated = toolCall(alice, tool);
      expect(errorOf(await gated.reply).code).toBe('E_PLAN_PENDING');
      await expectNothingRecorded(gated.id);
    }
    // A context whose tool the gate cannot read is refused, never waved through as a planning tool
    // (the typed context check refuses it first; without it, the gate would).
    const shapeless = alice.hook('pre-tool-use', { context: { tool: 'read', input: {} } });
    expect(['E_INVALID_CONTEXT', 'E_PLAN_PENDING']).toContain(errorOf(await shapeless.reply).code);
    await expectNothingRecorded(shapeless.id);
    await decidePlan(lead, pending, true);
  });

  it('gates a teammate of a team that requires a plan before it submits one; its lead and agents of other teams are not', async () => {
    const gina = await ready('gina');
    const refused = toolCall(gina, 'db.migrate');
    expect(errorOf(await refused.reply)).toMatchObject({ code: 'E_PLAN_REQUIRED', details: { status: 'none', planning_tools: ['read'] } });
    await expectNothingRecorded(refused.id);
    const reading = toolCall(gina, 'read');
    await waitForJob(store, reading.id);

    for (const agentId of ['green-lead', 'solo']) {
      const other = toolCall(await ready(agentId), 'db.migrate');
      await waitForJob(store, other.id);
    }

    const greenLead = await ready('green-lead');
    const id = await submitPlan(gina, greenLead, 'green-lead');
    await decidePlan(greenLead, id, true);
    await update(gina, id, 'approved');
    const allowed = toolCall(gina, 'db.migrate');
    await waitForJob(store, allowed.id);
  });

  it('shows the refusal in the fleet row', async () => {
    const gina = await ready('gina');
    const greenLead = await ready('green-lead');
    const id = await submitPlan(gina, greenLead, 'green-lead');
    await decidePlan(greenLead, id, false);
    await update(gina, id, 'rejected');
    const refused = toolCall(gina, 'db.migrate');
    expect(errorOf(await refused.reply).code).toBe('E_PLAN_REQUIRED');
    await expect.poll(async () => (await fleetRow('gina'))?.last_refusal, { timeout: 5_000 }).toMatchObject({
      hook_id: refused.id,
      code: 'E_PLAN_REQUIRED',
      request_id: id,
    });
  });
});

describe('unanswered block and control signals', () => {
  /** Opens a hook on `client`, decides it with `signals` as a worker would (answer grace `graceMs`), and returns the decision frame. */
  async function decided(client: AgentClient, signals: (hookId: string) => ReturnType<typeof blockSignal>[], graceMs: number, trigger = 'pre-issue-submit') {
    const context = trigger === 'pre-tool-use' ? { tool: { name: 'git', input: { force: true } } } : { files: { changed_count: 3 } };
    const hook = client.hook(trigger, { context });
    await waitForJob(store, hook.id);
    const decision = workerDecision(hook.id, trigger as 'pre-issue-submit', signals(hook.id));
    await store.stores.hooks.decide(hook.id, decision, Date.now(), { answerGraceMs: graceMs });
    const frame = await hook.reply;
    expect(frame.type).toBe('decision');
    return decision;
  }

  it('refuses the next hooks of the agent once a block goes unanswered past its grace, and lets them through once it is answered', async () => {
    const solo = await ready('solo');
    const decision = await decided(solo, (id) => [blockSignal(id)], 0);
    const signalId = decision.signals[0]!.header.id;

    for (const trigger of ['pre-tool-use', 'post-tool-use', 'pre-issue-submit']) {
      const refused = solo.hook(trigger);
      expect(errorOf(await refused.reply)).toMatchObject({ code: 'E_SIGNAL_UNANSWERED', retryable: false, details: { signal_ids: [signalId] } });
      await expectNothingRecorded(refused.id);
    }
    await expect.poll(async () => (await fleetRow('solo'))?.last_refusal, { timeout: 5_000 }).toMatchObject({
      code: 'E_SIGNAL_UNANSWERED',
      signal_ids: [signalId],
    });

    // An answer that does not fit the intensity is refused and lifts nothing.
    expect(errorOf(await solo.request({ type: 'signal_response', id: 'r-bad', response: { signal_id: signalId, consumed_at: new Date().toISOString(), action: 'dismiss' } })).code).toBe('E_INVALID_ACTION');
    expect(errorOf(await solo.hook('pre-tool-use').reply).code).toBe('E_SIGNAL_UNANSWERED');

    const answered = await solo.request({ type: 'signal_response', id: 'r-1', response: { signal_id: signalId, consumed_at: new Date().toISOString(), action: 'retry_after_fix' } });
    expect(answered.type).toBe('ack');
    const next = solo.hook('pre-tool-use');
    await waitForJob(store, next.id);
  });

  it('refuses after an unanswered control signal too, but never after prompt signals', async () => {
    const solo = await ready('solo');
    await decided(solo, (id) => [promptSignal(id)], 0);
    await waitForJob(store, solo.hook('pre-tool-use').id);

    const decision = await decided(solo, (id) => [controlSignal(id)], 0, 'pre-tool-use');
    const refused = solo.hook('pre-tool-use');
    expect(errorOf(await refused.reply)).toMatchObject({ code: 'E_SIGNAL_UNANSWERED', details: { signal_ids: [decision.signals[0]!.header.id] } });
    await expectNothingRecorded(refused.id);
    await solo.request({ type: 'signal_response', id: 'r-2', response: { signal_id: decision.signals[0]!.header.id, consumed_at: new Date().toISOString(), action: 'reject_modification' } });
    await waitForJob(store, solo.hook('pre-tool-use').id);
  });

  it('lets the next hook through within the grace; a re-sent hook keeps its stored decision', async () => {
    const solo = await ready('solo');
    const decision = await decided(solo, (id) => [blockSignal(id)], 60_000);
    await waitForJob(store, solo.hook('pre-tool-use').id);
    await solo.request({ type: 'signal_response', id: 'r-3', response: { signal_id: decision.signals[0]!.header.id, consumed_at: new Date().toISOString(), action: 'abort' } });

    const overdue = await decided(solo, (id) => [blockSignal(id)], 0);
    const again = solo.hook('pre-issue-submit', { id: overdue.hook_id });
    expect(await again.reply).toMatchObject({ type: 'decision', decision: { hook_id: overdue.hook_id, allowed: false } });
    await solo.request({ type: 'signal_response', id: 'r-4', response: { signal_id: overdue.signals[0]!.header.id, consumed_at: new Date().toISOString(), action: 'abort' } });
  });

  it('holds the agent, not only the session: reconnecting without session_id does not lift the hold; the new session may answer', async () => {
    const first = await ready('solo');
    const decision = await decided(first, (id) => [blockSignal(id)], 0);
    const signalId = decision.signals[0]!.header.id;
    await first.close();

    // A restarted agent: a new socket, a hello without session_id, a fresh session.
    const { client: restarted, welcome } = await connectReady(gw.wsUrl, gw.agents['solo']!.token);
    clients.push(restarted);
    expect(welcome.resumed).toBe(false);
    const refused = restarted.hook('pre-tool-use');
    expect(errorOf(await refused.reply)).toMatchObject({ code: 'E_SIGNAL_UNANSWERED', details: { signal_ids: [signalId] } });
    await expectNothingRecorded(refused.id);

    // The signal is the agent's: its new session answers it, and the hold is lifted.
    const answered = await restarted.request({ type: 'signal_response', id: 'r-6', response: { signal_id: signalId, consumed_at: new Date().toISOString(), action: 'abort' } });
    expect(answered.type).toBe('ack');
    await waitForJob(store, restarted.hook('pre-tool-use').id);
  });

  it('holds the agent, not another agent: a teammate of the same gateway is not refused', async () => {
    const solo = await ready('solo');
    const lead = await ready('lead');
    const decision = await decided(solo, (id) => [blockSignal(id)], 0);
    expect(errorOf(await solo.hook('pre-tool-use').reply).code).toBe('E_SIGNAL_UNANSWERED');
    await waitForJob(store, lead.hook('post-tool-use').id);
    await solo.request({ type: 'signal_response', id: 'r-5', response: { signal_id: decision.signals[0]!.header.id, consumed_at: new Date().toISOString(), action: 'abort' } });
  });
});
